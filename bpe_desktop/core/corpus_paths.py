"""How a model file names its corpus files, so they are found again after the model and
its corpus moved together (an experiment folder copied to another path or computer).

In a model held in memory a corpus file's path is absolute (a training records where it
read each file). A model file names each relative to the file's own folder when it is in
that folder, below it or in a folder beside it (``corpus.txt``, ``data/corpus.txt``,
``../corpora/corpus.txt``: they move with it), and by its absolute path otherwise (a
shared corpus elsewhere, which stays where it is). Reading resolves a relative path
against the model file's folder; files written before named a file as the command was
given it, relative to the folder it ran in, which is mostly the model's own.
"""

from __future__ import annotations

import dataclasses
import os

from bpe_desktop.core.model import CorpusInfo
from bpe_desktop.core.text_files import STDIN_NAME


def _written(path: str, folder: str) -> str:
    if path == STDIN_NAME:  # standard input: a name, not a place
        return path
    absolute = os.path.abspath(path)
    try:
        relative = os.path.relpath(absolute, folder)
    except ValueError:  # another drive
        return absolute
    parts = relative.split(os.sep)
    return absolute if parts[:2] == [os.pardir, os.pardir] else relative


def corpus_as_written(corpus: CorpusInfo | None, model_path: str) -> CorpusInfo | None:
    """``corpus`` naming its files as the model file at ``model_path`` does."""
    if corpus is None or not corpus.files:
        return corpus
    folder = os.path.dirname(os.path.abspath(model_path))
    return _with_paths(corpus, lambda p: _written(p, folder))


def corpus_as_read(corpus: CorpusInfo | None, model_path: str) -> CorpusInfo | None:
    """``corpus`` as read from the model file at ``model_path``, its paths absolute."""
    if corpus is None or not corpus.files:
        return corpus
    folder = os.path.dirname(os.path.abspath(model_path))
    return _with_paths(corpus, lambda p: p if p == STDIN_NAME else os.path.normpath(os.path.join(folder, p)))


def _with_paths(corpus: CorpusInfo, change) -> CorpusInfo:
    return dataclasses.replace(corpus, files=tuple(
        dataclasses.replace(f, path=change(f.path)) for f in corpus.files))
