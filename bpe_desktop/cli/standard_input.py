"""``-`` as an input file: standard input, for ``zcat corpus.gz | bpe-desktop train -``.

Training, counting, evaluation and comparison need a path (the engine opens its files
itself, reads them more than once, and a History run or a model file records each
file with its SHA-256), so standard input is first copied, once, into a private
temporary file named :data:`STDIN_NAME`. The model file and History record that name
with the copy's size and SHA-256; error messages name it instead of the copy's path.
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

#: Per command, the arguments holding input files of which one may be ``-``.
STDIN_ARGUMENTS = {
    "train": ("files",), "count": ("inputs",), "evaluate": ("text", "gold"),
    "compare": ("text",), "extend": ("files",), "trim": ("text",),
}

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
    names = STDIN_ARGUMENTS.get(getattr(args, "command", None) or "", ())
    where = [(name, i) for name in names for i, value in enumerate(getattr(args, name) or ())
             if value == "-"]
    if not where:
        yield None
        return
    if len(where) > 1:
        raise UsageError("standard input (-) can be given only once")
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
        getattr(args, name)[index] = copy
        # Kept after the block: the command's error is reported once it has left it.
        _COPIES.add(copy)
        yield copy


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


__all__ = ["STDIN_NAME", "input_name", "relabel_corpus", "shown_names",
           "standard_input_as_file", "stdin_bytes", "stdin_text_bytes"]
