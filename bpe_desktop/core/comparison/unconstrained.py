"""A constrained model against the unconstrained one: same corpus, same vocabulary size,
no linguistic constraints; both evaluated alike, and the gold words cut differently.

The unconstrained model is trained on the files the constrained model names (its
``corpus``), with its options minus the constraint options and with ``vocab_size`` set to
the constrained model's vocabulary size. A model trained on in-memory text, an imported
model or one trained on a pre-segmented corpus (whose text is only meaningful with its
separator) has no unconstrained counterpart, nor has a model whose corpus files are gone
or changed since (checked against the SHA-256 it records): :class:`ConfigError` says why.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Callable

from bpe_desktop.core.config import TrainConfig
from bpe_desktop.core.errors import ConfigError
from bpe_desktop.core.evaluation import EvaluationReport, EvaluationRequest, evaluate, map_gold
from bpe_desktop.core.model import BPEModel
from bpe_desktop.core.options import option_specs

#: The options a constrained model has and its unconstrained counterpart drops (the
#: "constraints" group of TrainConfig, back to their defaults).
CONSTRAINT_OPTIONS = {name: getattr(TrainConfig(), name)
                      for name, spec in option_specs(TrainConfig).items()
                      if spec.group == "constraints"}


@dataclass(frozen=True)
class ChangedWord:
    """A gold word both models cut, differently."""

    word: str
    constrained: tuple[str, ...]
    unconstrained: tuple[str, ...]


@dataclass
class ConstraintGain:
    """Both models' evaluations and the words whose segmentation changed."""

    constrained: EvaluationReport
    unconstrained: EvaluationReport
    unconstrained_model: BPEModel
    changed: list[ChangedWord] = field(default_factory=list)

    def rows(self) -> list[tuple[str, float, float]]:
        """(measure, constrained, unconstrained) for boundary P/R/F1 and MorphScore per
        gold set, and tokens per word on the texts."""
        out = []
        for name, m in self.constrained.morphology.items():
            u = self.unconstrained.morphology[name]
            out += [(f"{name}: boundary precision", m.precision, u.precision),
                    (f"{name}: boundary recall", m.recall, u.recall),
                    (f"{name}: boundary F1", m.f1, u.f1),
                    (f"{name}: MorphScore", m.morphscore, u.morphscore)]
        if self.constrained.text is not None and self.unconstrained.text is not None:
            out.append(("texts: tokens per word (fertility)", self.constrained.text.fertility,
                        self.unconstrained.text.fertility))
        return out


def unconstrained_config(model: BPEModel) -> TrainConfig:
    """The constrained model's options without constraints, at its vocabulary size."""
    if model.constraints is None:
        raise ConfigError("this model was trained without linguistic constraints")
    if model.config.separator:
        raise ConfigError("this model was trained on a pre-segmented corpus: without its "
                          "separator the text is not the same corpus, so there is no "
                          "unconstrained counterpart")
    return model.config.replace(**CONSTRAINT_OPTIONS, vocab_size=model.vocab_size,
                                merges=None)


def unconstrained_corpus(model: BPEModel):
    """The files the model was trained on, read as its run read them (invalid UTF-8 as
    U+FFFD when it records so), as a corpus (ConfigError when not on disk)."""
    from bpe_desktop.core.training import Corpus

    from bpe_desktop.core.project.corpus_hash import sha256_of

    info = model.corpus
    if info is None or info.kind not in ("files", "word-count-files") or not info.files:
        raise ConfigError("the model does not name its corpus files (it was trained on "
                          "typed text or imported), so it cannot be trained again")
    # Trained on another text, the counterpart would show the corpora's difference as the
    # constraints' gain.
    for f in info.files:
        if not os.path.isfile(f.path):
            relative = "" if os.path.isabs(f.path) else (
                " (the model names it relative to the folder it was trained in; read from "
                f"{os.getcwd()})")
            raise ConfigError(f"{f.path}: the model's corpus file is no longer there{relative}, "
                              "so the unconstrained model cannot be trained on it")
        if f.sha256 and sha256_of(f.path) != f.sha256:
            raise ConfigError(f"{f.path} has changed since the model was trained (its "
                              "SHA-256 differs): the unconstrained model would learn from "
                              "another text")
    return Corpus.from_files([f.path for f in info.files],
                             word_counts=info.kind == "word-count-files",
                             errors=info.encoding_errors)


def compare_with_unconstrained(model: BPEModel, request: EvaluationRequest, *,
                               progress: Callable[[str, int, int], None] | None = None,
                               cancel=None) -> ConstraintGain:
    """Train the unconstrained counterpart, evaluate both on ``request`` (its gold sets
    parsed already), and list the gold words cut differently."""
    from bpe_desktop.core.languages import needs_languages
    from bpe_desktop.core.multilingual import train_multilingual
    from bpe_desktop.core.training import train

    config, corpus = unconstrained_config(model), unconstrained_corpus(model)
    if progress is not None:
        progress("training the unconstrained model", 0, 1)
    if needs_languages(config):  # the same balanced languages, not their files as they are
        plain = train_multilingual(config, cancel=cancel, errors=corpus.errors,
                                   word_counts=corpus.file_format == "word-counts").model
    else:
        plain = train(corpus, config, cancel=cancel).model
    cancelled = (lambda: cancel.cancelled) if cancel is not None else None
    # The character map is how the gold is scored: both models see the gold as Evaluate does.
    request = EvaluationRequest(gold=request.gold, text_files=request.text_files,
                                texts=request.texts, character_map=request.character_map)
    ours = evaluate(model, request, progress=progress, cancelled=cancelled)
    theirs = evaluate(plain, request, progress=progress, cancelled=cancelled)
    return ConstraintGain(ours, theirs, plain, changed_words(model, plain, request))


def changed_words(model: BPEModel, other: BPEModel, request: EvaluationRequest
                  ) -> list[ChangedWord]:
    """Gold words (each once, in file order, spelled through the request's character
    map) that the two models cut differently."""
    ours, theirs = model.tokenizer(), other.tokenizer()
    seen: set[str] = set()
    out = []
    for gold in (map_gold(g, request.character_map) for g in request.gold):
        for w in gold.words:
            if w.word in seen:
                continue
            seen.add(w.word)
            a = tuple(ours.encode_as_pieces(w.word))
            b = tuple(theirs.encode_as_pieces(w.word))
            if a != b:
                out.append(ChangedWord(w.word, a, b))
    return out
