"""What a run is, as a project records and reads it: its metrics, input files, the
History table's row and the whole record; and how that row's columns follow from the
metrics. Plain values, no database: :mod:`.store` writes and reads them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable


@dataclass(frozen=True)
class Metric:
    """One measured value: ``source`` names the gold file, text or model it is about;
    ``vocab_size`` is set for the points of a vocabulary-size sweep."""

    metric: str
    value: float
    source: str = ""
    vocab_size: int | None = None


@dataclass(frozen=True)
class RunInput:
    """A file a run read, as recorded: its content hash identifies it across renames."""

    role: str  # corpus, gold, text, parallel, reference, model
    path: str
    size: int
    sha256: str
    language: str = ""


@dataclass(frozen=True)
class RunSummary:
    """One row of the History table."""

    id: int
    kind: str
    status: str
    started: float
    duration: float | None
    preset: str
    corpus_label: str
    vocab_size: int | None
    f1: float | None
    fertility: float | None
    message: str


SUMMARY_COLUMNS = ("id", "kind", "status", "started", "duration", "preset", "corpus_label",
                   "vocab_size", "f1", "fertility", "message")


@dataclass(frozen=True)
class RunDetails:
    summary: RunSummary
    config: dict
    #: {"argv": the command's arguments, "cwd": the folder it ran in}, or None.
    command: dict | None
    engine_version: str
    app_version: str
    peak_memory: int | None
    log: str
    inputs: tuple[RunInput, ...]
    metrics: tuple[Metric, ...]
    model_path: str | None
    has_stored_model: bool
    #: The SHA-256 of the model file as the run wrote it (None: not known).
    model_sha256: str | None = None


def summary_columns(kind: str, metrics: list[Metric], model_size: tuple[int, int] | None
             ) -> tuple[int | None, float | None, float | None]:
    """The History table's columns of a run: its model's vocabulary size, and the F1
    and fertility of the whole model (averaged over gold files). A comparison's values
    belong to several models: none of them is the run's."""
    if kind == "compare":
        return None, None, None
    full = [m for m in metrics if m.vocab_size is None]
    vocab = model_size[0] if model_size else next(
        (int(m.value) for m in full if m.metric == "vocab_size"), None)
    return (vocab, _mean(m.value for m in full if m.metric == "f1"),
            _mean(m.value for m in full if m.metric == "fertility"))


def _mean(values: Iterable[float]) -> float | None:
    values = list(values)
    return sum(values) / len(values) if values else None
