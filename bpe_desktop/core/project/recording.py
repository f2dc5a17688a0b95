"""One way to record a run, for every command and panel that runs something.

``with recorded_run(project, "train", config=..., command=argv, inputs=...) as run:``
inserts the run as ``running`` (hashing new corpus files first), and on leaving the
block completes it: ``finished`` with whatever the block attached (``run.metrics``,
``run.set_model``), ``cancelled`` when the work was cancelled or interrupted, or
``failed`` with the error's message (the error goes on to the caller). A kind the
project knows (train, extend, evaluate, compare, count) is all a new command needs.
"""

from __future__ import annotations

import sys
from contextlib import contextmanager
from typing import Iterable, Iterator

from bpe_desktop import __version__
from bpe_desktop.core.errors import TrainingCancelled
from bpe_desktop.core.project.store import Metric, Project


def training_inputs(config, paths, *, word_counts: bool = False) -> list[tuple[str, ...]]:
    """The corpus inputs a training records: with languages, each file they are read from
    (a folder's files) as (role, path, language), so History and a query can tell the
    languages apart; otherwise the files given."""
    if config.lang:
        from bpe_desktop.core.multilingual import language_corpus_files

        return [("corpus", f, code)
                for code, f in language_corpus_files(config, word_counts=word_counts)]
    return [("corpus", p) for p in paths]


def training_side_inputs(config) -> list[tuple[str, str]]:
    """The files a training reads besides its corpus, so a changed one is told as a changed
    corpus is: gold segmentations, Morfessor annotations and knockout gold (role
    ``boundaries``), and parity development texts (``dev``)."""
    from bpe_desktop.core.constraints import FILE_LIST_OPTIONS
    from bpe_desktop.core.errors import BpeError
    from bpe_desktop.core.languages import language_paths
    from bpe_desktop.core.parity_dev import dev_set_files

    inputs = [("boundaries", path) for name in FILE_LIST_OPTIONS
              for path in getattr(config, name)]
    try:
        dev = dev_set_files(config.parity_dev, list(language_paths(config)))
    except BpeError:  # named by the training itself, which reads them
        dev = []
    return inputs + [("dev", path) for path in dev]


def source_inputs(path: str, fmt: str = "") -> list[tuple[str, str]]:
    """The source tokenizer's files as ("model", file) inputs: a transformers folder's
    ``tokenizer.json``, GPT-2's ``vocab.json`` and ``merges.txt`` (a folder or prefix
    names no file itself, and only files are recorded)."""
    import os

    from bpe_desktop.core.formats.gpt2 import file_pair

    if os.path.isdir(path) and os.path.isfile(os.path.join(path, "tokenizer.json")) \
            and fmt in ("", "hf"):
        return [("model", os.path.join(path, "tokenizer.json"))]
    if fmt in ("", "gpt2") and not os.path.isfile(path) and file_pair(path)[0].is_file():
        return [("model", str(p)) for p in file_pair(path)]
    return [("model", path)]


def trim_record(model: str, fmt: str, targets, *, out_format: str, drop_alphabet: bool,
                drop_specials: bool) -> tuple[dict, list[tuple[str, str]]]:
    """The configuration and input files a trim records (the command and the window
    record a trim alike, so History and a query compare them)."""
    config = {"format": fmt, "out_format": out_format, "drop_alphabet": drop_alphabet,
              "drop_specials": drop_specials}
    return config, [*source_inputs(model, fmt), *(("text", t) for t in targets)]


class RecordedRun:
    """What a run hands the project before it completes."""

    def __init__(self, project: Project, run_id: int) -> None:
        self.project = project
        self.id = run_id
        self.metrics: list[Metric] = []
        self.log_lines: list[str] = []
        self.model: tuple[str | None, bytes | None, tuple[int, int]] | None = None
        self.status: str | None = None  # set to end with another status than finished
        self.message = ""
        self.config_added: dict = {}

    def add_metrics(self, rows: Iterable[Metric]) -> None:
        self.metrics.extend(rows)

    def add_model_config(self, model) -> None:
        """The evaluated model's training options, as ``model.NAME`` entries of the run's
        configuration (so evaluations can be plotted against how their models were made)."""
        self.config_added.update(model_config_entries(model))

    def log(self, line: str) -> None:
        self.log_lines.append(line)

    def set_model(self, model, *, path: str | None = None, fmt: str = "model") -> None:
        """The model the run made, written to ``path`` (None: to no file) in ``fmt``
        (an output format of ``extend`` and ``trim``): see :func:`model_to_keep`."""
        from bpe_desktop.core.project.run_model import model_to_keep

        self.model = (*model_to_keep(model, path, fmt), (model.vocab_size, len(model.merges)))

    def end_as(self, status: str, message: str = "") -> None:
        """End as ``cancelled`` or ``failed`` though the block returns normally (a
        command that reports failure by its exit status)."""
        self.status, self.message = status, message


@contextmanager
def recorded_run(project: Project, kind: str, *, config: dict | None = None,
                 command: dict | None = None,
                 inputs: Iterable[tuple[str, ...]] = (), preset: str = "",
                 language: str = "",
                 stand_ins: dict[str, str] | None = None) -> Iterator[RecordedRun]:
    run = RecordedRun(project, project.start_run(
        kind, config=config, command=command, inputs=inputs, preset=preset,
        engine_version=engine_version(), app_version=__version__, language=language,
        stand_ins=stand_ins))
    try:
        yield run
    except (TrainingCancelled, KeyboardInterrupt):
        _finish(run, "cancelled", "cancelled")
        raise
    except BaseException as exc:
        _finish(run, "failed", str(exc) or type(exc).__name__)
        raise
    _finish(run, run.status or "finished", run.message)


def _finish(run: RecordedRun, status: str, message: str) -> None:
    path, data, size = run.model if run.model else (None, None, None)
    keep = status == "finished"
    run.project.finish_run(
        run.id, status, message=message, metrics=run.metrics if keep else (),
        model_path=path, model_data=data, model_size=size if keep else None,
        log="\n".join(run.log_lines), peak_memory=peak_memory(),
        config_added=run.config_added)


def model_config_entries(model) -> dict:
    return {f"model.{k}": v for k, v in model.config.to_dict().items()
            if not isinstance(v, (list, dict))}


def engine_version() -> str:
    try:
        from bpe_desktop import _engine
    except ImportError:
        return ""
    return str(getattr(_engine, "__version__", ""))


def peak_memory() -> int | None:
    """This process's peak resident memory in bytes (None where it cannot be known)."""
    try:
        import resource
    except ImportError:  # Windows
        return None
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak if sys.platform == "darwin" else peak * 1024
