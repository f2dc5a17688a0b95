"""``-`` as an input file: standard input, for ``zcat corpus.gz | bpe-desktop train -``.

Training, counting, evaluation and comparison need a path (the engine opens its files
itself, reads them more than once, and a History run or a model file records each
file with its SHA-256), so standard input is first copied, once, into a private
temporary file named :data:`STDIN_NAME`. The model file and History record that name
with the copy's size and SHA-256; error messages name it instead of the copy's path.
A model given as ``-m -`` is copied too (another tool's format is read from a path, and a
BPE Desktop model file is checked for its size before it is read).

Standard input can be read once: a command may use it for one argument only, ``-m -``
included, and ``encode``/``decode`` read it for their text when given no file, so ``-m
-`` needs the text as a file there. Two uses are a usage error naming both.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from typing import IO

from bpe_desktop.cli._common import CliError, UsageError
from bpe_desktop.core.text_files import STDIN_NAME  # (how messages name it, too)

#: Per command, the arguments holding input files of which one may be ``-``, copied
#: into a file before the command runs (``model``/``models``: ``-m``).
STDIN_ARGUMENTS = {
    "train": ("files",), "count": ("inputs",), "evaluate": ("model", "text", "gold"),
    "compare": ("models", "text"), "extend": ("model", "files"),
    "trim": ("model", "text"), "encode": ("model",), "decode": ("model",),
    "info": ("model",), "export": ("model",),
}
#: Per command, the arguments that may be ``-`` and are read from standard input as it
#: comes, line by line (not copied); they count as a use of it all the same.
STREAMED_ARGUMENTS = {
    "encode": ("input",), "decode": ("input",), "export": ("verify",),
    "extend": ("verify",), "trim": ("verify",),
}
#: How a usage error names each argument that took standard input.
_SHOWN = {"model": "-m", "models": "-m", "input": "the text (FILE; standard input when "
          "left out)", "verify": "--verify", "text": "the text", "gold": "--gold",
          "files": "the corpus", "inputs": "INPUT"}

#: The path of each copy of standard input this process made.
_COPIES: set[str] = set()


def input_name(path: str) -> str:
    """How messages name an input given as ``path`` (``-``: standard input)."""
    return STDIN_NAME if path == "-" else path


def shown_names(message: str) -> str:
    """``message`` with each copy of standard input named as standard input."""
    for path in _COPIES:
        message = message.replace(path, STDIN_NAME)
    return message


@contextlib.contextmanager
def standard_input_as_file(args: argparse.Namespace) -> Iterator[str | None]:
    """While the block runs, the command's ``-`` input (at most one: standard input can
    be read only once) is a copy of standard input; the copy's path, or None without
    ``-``."""
    command = getattr(args, "command", None) or ""
    where = _uses(args, (*STDIN_ARGUMENTS.get(command, ()),
                         *STREAMED_ARGUMENTS.get(command, ())))
    if len(where) > 1:
        raise UsageError("standard input (-) can be given only once; here "
                         + " and ".join(_SHOWN.get(name, name) for name, _ in where)
                         + " read it")
    if not where or where[0][0] in STREAMED_ARGUMENTS.get(command, ()):
        yield None
        return
    with tempfile.TemporaryDirectory(prefix="bpe-desktop-stdin-") as folder:
        copy = os.path.join(folder, _file_name())
        try:
            with open(copy, "wb") as out:
                shutil.copyfileobj(stdin_bytes(), out, 1 << 20)
        except OSError as exc:  # (a full temporary folder: say which, and what to do)
            raise CliError(f"{STDIN_NAME}: cannot copy standard input into "
                           f"{os.path.dirname(folder)} ({exc.strerror or exc}); set TMPDIR "
                           "to a folder with room, or give the text as a file") from None
        name, index = where[0]
        if index is None:
            setattr(args, name, copy)
        else:
            getattr(args, name)[index] = copy
        # Kept after the block: the command's error is reported once it has left it.
        _COPIES.add(copy)
        yield copy


def _uses(args: argparse.Namespace, names: tuple[str, ...]) -> list[tuple[str, int | None]]:
    """Each (argument, index in its list, or None for a single value) given as ``-``."""
    uses: list[tuple[str, int | None]] = []
    for name in names:
        value = getattr(args, name, None)
        if isinstance(value, list):
            uses += [(name, i) for i, item in enumerate(value) if item == "-"]
        elif value == "-":
            uses.append((name, None))
    return uses


def is_copy(path: str) -> bool:
    """Whether ``path`` is this process's copy of standard input."""
    return path in _COPIES


def _file_name() -> str:
    # The copy's own name is what labels derived from file names show (an evaluation's
    # text, a History run's corpus); Windows allows no < > in a name.
    return STDIN_NAME if os.name != "nt" else "stdin"


def stdin_bytes() -> IO[bytes]:
    """Standard input as bytes; a clear error when the command was started without one
    (``<&-``, a launcher that closes it), where Python has no ``sys.stdin``."""
    if sys.stdin is None:
        raise CliError(f"{STDIN_NAME}: standard input is closed; give a file instead of -")
    buffer = getattr(sys.stdin, "buffer", None)
    if buffer is None:  # a text-only stdin (tests): re-encode
        return io.BytesIO(sys.stdin.read().encode("utf-8"))
    return buffer


def stdin_text_bytes() -> IO[bytes]:
    """Standard input's text as bytes, decompressed when it is gzip, as a corpus file
    is (``cat corpus.gz | bpe-desktop encode`` reads what ``train -`` reads)."""
    import gzip

    from bpe_desktop.core.text_files import GZIP_MAGIC

    stream = stdin_bytes()
    peek = getattr(stream, "peek", None)  # (peeked, not read: nothing is lost)
    if peek is not None and peek(2)[:2] == GZIP_MAGIC:
        return gzip.GzipFile(fileobj=stream, mode="rb")  # type: ignore[return-value]
    return stream


def relabel_corpus(model, copy: str | None):
    """``model`` with the copy of standard input at ``copy`` recorded as
    :data:`STDIN_NAME` among its corpus files (with the copy's size and SHA-256: those
    of standard input), as the copy is gone once the command ends."""
    import dataclasses

    corpus = model.corpus
    if copy is None or corpus is None:
        return model
    files = tuple(dataclasses.replace(f, path=STDIN_NAME)
                  if os.path.abspath(f.path) == os.path.abspath(copy) else f
                  for f in corpus.files)
    return model.with_provenance(corpus=dataclasses.replace(corpus, files=files))


__all__ = ["STDIN_NAME", "input_name", "is_copy", "relabel_corpus", "shown_names",
           "standard_input_as_file", "stdin_bytes", "stdin_text_bytes"]
