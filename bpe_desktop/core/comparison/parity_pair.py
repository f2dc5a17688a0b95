"""Plain BPE against parity-aware BPE: the plain counterpart of a parity-aware model, and
each language's token cost on a parallel set under each tokenizer.

The **plain counterpart** is trained on the languages the parity-aware model names
(``lang``, balanced by the same ``weight`` or ``temperature``), with all its options but
the development set and its variants (``parity_dev``, ``parity_dev_documents``,
``parity_window``, ``parity_measure`` back to their defaults), at the parity-aware model's
vocabulary size. Whether the languages' files are word-count tables is given, or else
read from the files: a table ``bpe-desktop count`` wrote starts with its header line.

A language's **token cost** is its tokens on the parallel text per parallel unit: per line
for line-aligned texts (every language has the same lines), per document for whole
parallel documents (the text is one unit). Each line is encoded on its own, as Evaluate's
parity does. Over the languages, **max/min** is the highest cost divided by the lowest
(1.0: every language costs the same for the same content), and the **Gini coefficient**
is the mean absolute difference of the costs over twice their mean (0: all equal).
"""

from __future__ import annotations

import gzip
import os
from dataclasses import dataclass
from typing import Callable, Sequence

from bpe_desktop.core.config import TrainConfig
from bpe_desktop.core.errors import ConfigError
from bpe_desktop.core.languages import language_paths
from bpe_desktop.core.model import BPEModel
from bpe_desktop.core.parity_dev import DevSet, load_dev_set

#: The options of parity-aware training; the plain counterpart has their defaults.
PARITY_OPTIONS = ("parity_dev", "parity_dev_documents", "parity_window", "parity_measure")


def plain_config(model: BPEModel) -> TrainConfig:
    """The parity-aware model's options without the development set, at its vocabulary
    size (ConfigError when the model was not trained parity-aware)."""
    config = model.config
    if not config.parity_dev:
        raise ConfigError("this model was not trained parity-aware (it has no development "
                          "set), so it has no plain counterpart")
    defaults = TrainConfig()
    return config.replace(**{name: getattr(defaults, name) for name in PARITY_OPTIONS},
                          vocab_size=model.vocab_size, merges=None)


def languages_are_tables(config: TrainConfig) -> bool:
    """Whether every language's files are word-count tables written by ``count`` (they
    start with its header line); folders and other files are running text."""
    from bpe_desktop.core.counting import table_header

    header = table_header().encode("utf-8")
    paths = [p for ps in language_paths(config).values() for p in ps]

    def is_table(path: str) -> bool:
        if not os.path.isfile(path):
            return False
        opener = gzip.open if path.endswith(".gz") else open
        try:
            with opener(path, "rb") as fh:
                first = fh.readline(len(header) + 8).rstrip(b"\r\n")
        except (OSError, EOFError, gzip.BadGzipFile):
            return False
        return first.removeprefix(b"\xef\xbb\xbf") == header

    return bool(paths) and all(is_table(p) for p in paths)


def train_plain_counterpart(model: BPEModel, *, word_counts: bool | None = None,
                            errors: str | None = None, on_progress: Callable | None = None,
                            cancel=None) -> BPEModel:
    """Train the plain counterpart of a parity-aware model (see the module), reading its
    corpora as the parity-aware run did: ``errors`` "replace" reads invalid UTF-8 as
    U+FFFD (None: as the model records its run read them). Raises ConfigError /
    CorpusError naming the file when its corpora cannot be read again."""
    from bpe_desktop.core.multilingual import train_multilingual

    if errors is None:
        errors = model.corpus.encoding_errors if model.corpus else "strict"
    config = plain_config(model)
    if word_counts is None:
        word_counts = languages_are_tables(config)
    return train_multilingual(config, on_progress=on_progress, cancel=cancel,
                              word_counts=word_counts, errors=errors).model


def model_dev_set(model: BPEModel) -> DevSet:
    """The development set a parity-aware model records, read again, its languages named
    and chosen as the training named and chose them."""
    if not model.config.parity_dev:
        raise ConfigError("this model records no development set")
    dev = load_dev_set(model.config.parity_dev, documents=model.config.parity_dev_documents)
    return dev.matched_to(list(language_paths(model.config)))


def gini(values: Sequence[float]) -> float:
    """Mean absolute difference over twice the mean: 0 when all are equal."""
    n = len(values)
    mean = sum(values) / n if n else 0.0
    if not mean:
        return 0.0
    return sum(abs(a - b) for a in values for b in values) / (2 * n * n * mean)


@dataclass(frozen=True)
class LanguageCosts:
    """Each tokenizer's tokens per language on one parallel set."""

    codes: tuple[str, ...]
    names: tuple[str, ...]
    #: Parallel units per language: its lines, or 1 for whole documents.
    units: int
    documents: bool
    #: tokens[t][l]: tokenizer t's tokens on language l's text.
    tokens: tuple[tuple[int, ...], ...]

    @property
    def unit(self) -> str:
        return "document" if self.documents else "line"

    def costs(self, t: int) -> list[float]:
        """Tokenizer ``t``'s tokens per parallel unit, per language."""
        return [n / self.units for n in self.tokens[t]]

    def max_min(self, t: int) -> float:
        costs = self.costs(t)
        return max(costs) / min(costs) if min(costs) else float("inf")

    def gini(self, t: int) -> float:
        return gini(self.costs(t))

    def total(self, t: int) -> int:
        return sum(self.tokens[t])

    def _cost_text(self, cost: float) -> str:
        """A whole document's cost is a count of tokens, written as counts are; a line's is
        a mean, to two decimals."""
        return f"{round(cost):,}" if self.documents else f"{cost:,.2f}"

    def to_json(self) -> dict:
        return {"unit": self.unit, "units": self.units, "languages": list(self.codes),
                "tokenizers": [{"name": name, "tokens": dict(zip(self.codes, self.tokens[t])),
                                "cost_per_unit": dict(zip(self.codes, self.costs(t))),
                                "total": self.total(t), "max_min": self.max_min(t),
                                "gini": self.gini(t)} for t, name in enumerate(self.names)]}

    def values(self) -> list[tuple]:
        """The table's rows at full precision: one per language (tokens per unit under
        each tokenizer), then max/min, Gini and the total tokens."""
        each = range(len(self.names))
        rows: list[tuple] = [(code, *(self.costs(t)[l] for t in each))
                             for l, code in enumerate(self.codes)]
        rows.append(("max/min", *(self.max_min(t) for t in each)))
        rows.append(("Gini", *(self.gini(t) for t in each)))
        rows.append(("total tokens", *(self.total(t) for t in each)))
        return rows

    def rows(self) -> list[tuple[str, ...]]:
        """:meth:`values` as read: costs as :meth:`_cost_text` writes them, max/min to 3
        decimals, Gini to 4, totals as counts."""
        values = self.values()
        languages = len(self.codes)
        formats = [self._cost_text] * languages + [
            lambda v: f"{v:.3f}", lambda v: f"{v:.4f}", lambda v: f"{v:,}"]
        return [(row[0], *(form(v) for v in row[1:])) for row, form in zip(values, formats)]


def language_costs(models: Sequence[tuple[str, BPEModel]], dev: DevSet) -> LanguageCosts:
    """Each tokenizer's tokens per language on the parallel set ``dev``."""
    tokens = []
    for _, model in models:
        tok = model.tokenizer()
        tokens.append(tuple(int(tok.encode_batch_flat(list(dev.texts[code]))[1].sum())
                            for code in dev.codes))
    units = 1 if dev.documents else len(next(iter(dev.texts.values())))
    return LanguageCosts(dev.codes, tuple(n for n, _ in models), max(1, units),
                         dev.documents, tuple(tokens))


def compare_on_parallel(models: Sequence[tuple[str, BPEModel]], dev: DevSet, *,
                        cancelled: Callable[[], bool] | None = None):
    """:func:`~bpe_desktop.core.comparison.compare` on every line of the parallel set
    (languages in order), with each language's token cost under each tokenizer."""
    import dataclasses

    from bpe_desktop.core.comparison import compare

    lines = [line for code in dev.codes for line in dev.texts[code]]
    result = compare(models, lines, cancelled=cancelled)
    return dataclasses.replace(result, language_costs=language_costs(models, dev))
