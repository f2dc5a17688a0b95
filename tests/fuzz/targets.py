"""The fuzz targets: feed one input to a public entry point and check what comes out.

Shared by the hypothesis tests and ``atheris_targets.py``. Each target either returns
(the input was accepted and what was built is sound) or lets an exception escape, which
is a failure: any exception other than the documented :class:`BpeError` subclass, a
documented error whose message does not name the file, or one that is not printable
text. ``COUNTS`` records how many inputs each target ran.
"""

from __future__ import annotations

import os
from collections import Counter
from pathlib import Path
from typing import Sequence

from bpe_desktop.core import (
    BPEModel,
    Corpus,
    CorpusError,
    EncodeError,
    ModelFileError,
    TrainConfig,
    train,
)
from bpe_desktop.core.formats import import_model
from bpe_desktop.core.model_file import dumps, loads

#: Inputs run per target in this process.
COUNTS: Counter[str] = Counter()

CREATED = "2025-01-31T12:00:00Z"


def check_message(error: Exception, *, path: str | None = None,
                  path_first: bool = True) -> None:
    """A user-facing message: one line of printable text, naming ``path`` if given
    (as its first word, if ``path_first``)."""
    message = str(error)
    assert message.strip(), f"{type(error).__name__} with an empty message"
    message.encode("utf-8")  # no lone surrogates: it can be shown and logged
    assert "\n" not in message, f"a message of several lines: {message!r}"
    if path is not None:
        named = message.startswith(path) if path_first else path in message
        assert named, f"the message does not name {path}: {message}"


def check_model(model: BPEModel, texts: Sequence[str] = ("low lowest cat 日本 😀",)) -> None:
    """Whatever was accepted must save and load back unchanged, and encode and decode.

    Only a model without an unknown token may refuse text (a documented EncodeError).
    """
    text = dumps(model, created=CREATED)
    assert loads(text) == model
    tokenizer = model.tokenizer()
    for sample in texts:
        try:
            ids = tokenizer.encode(sample)
        except EncodeError as exc:
            check_message(exc)
            assert model.config.special("unk") is None, str(exc)
            continue
        assert all(0 <= i < model.vocab_size for i in ids)
        assert isinstance(tokenizer.decode(ids), str)


def load_model_bytes(data: bytes, target: str = "model") -> None:
    """``loads`` of a model file's bytes: a model, or ModelFileError."""
    COUNTS[target] += 1
    try:
        model = loads(data)
    except ModelFileError as exc:
        check_message(exc)
        return
    check_model(model)


def import_files(fmt: str, files: Sequence[tuple[str, bytes]], folder: Path,
                 target: str | None = None) -> None:
    """``import_model(fmt, folder / files[0].name)`` with these files and no others.

    A model (which must save and load back), or ModelFileError naming one of the files.
    """
    COUNTS[target or f"import-{fmt}"] += 1
    names = {name for name, _ in files}
    for entry in os.scandir(folder):
        if entry.name not in names:
            os.unlink(entry.path)
    for name, data in files:
        (folder / name).write_bytes(data)
    try:
        model = import_model(fmt, folder / files[0][0])
    except ModelFileError as exc:
        check_message(exc)
        assert exc.path is not None and Path(exc.path).parent == folder, str(exc)
        check_message(exc, path=exc.path)
        return
    check_model(model)


#: Training settings for the corpus targets: every pre-tokenizer, a tiny vocabulary.
CORPUS_CONFIGS = (
    TrainConfig(vocab_size=12),
    TrainConfig.preset("gpt2", vocab_size=270),
    TrainConfig.preset("sentencepiece", vocab_size=12),
    TrainConfig.preset("subword-nmt", merges=5),
    TrainConfig(pretokenizer="letters", boundary="none", normalize="nfkc", lowercase=True,
                character_coverage=0.9, merges=4),
)


def train_file(data: bytes, folder: Path, *, config: int, word_counts: bool,
               replace: bool, target: str = "corpus-files") -> None:
    """Train on one file holding ``data``: a model, or CorpusError naming the file."""
    COUNTS[target] += 1
    path = folder / ("corpus.tsv" if word_counts else "corpus.txt")
    path.write_bytes(data)
    corpus = Corpus.from_files([path], word_counts=word_counts,
                               errors="replace" if replace else "strict")
    try:
        result = train(corpus, CORPUS_CONFIGS[config % len(CORPUS_CONFIGS)])
    except CorpusError as exc:
        check_message(exc, path=str(path), path_first=False)
        assert exc.path == str(path)
        return
    check_model(result.model)


def train_texts(texts: Sequence[str], *, config: int, target: str = "corpus-texts") -> None:
    """Train on in-memory texts: a model whose tokenizer encodes them, or CorpusError."""
    COUNTS[target] += 1
    try:
        result = train(Corpus.from_texts(texts), CORPUS_CONFIGS[config % len(CORPUS_CONFIGS)])
    except CorpusError as exc:
        check_message(exc)
        return
    check_model(result.model, texts)
