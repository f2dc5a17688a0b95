"""A plain vocabulary list for spreadsheets: ``piece<TAB>id<TAB>count`` per token, by id.

``count`` is the pair count at the merge that made the token; it is empty for special
tokens, alphabet symbols and models whose counts are unknown (see ``recount``).
Pieces are written as they are, except that a backslash, tab, line feed and carriage
return are escaped as ``\\\\``, ``\\t``, ``\\n`` and ``\\r`` so that every token stays on
one line in its own column. Every model can be listed; the list cannot be imported
(it has no merges).
"""

from __future__ import annotations

import os
from pathlib import Path

from bpe_desktop.core.model import BPEModel
from bpe_desktop.core.formats import _common

EXPORT_OPTIONS: tuple[str, ...] = ()
_ESCAPES = str.maketrans({"\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r"})


def problem(model: BPEModel) -> str | None:
    return None


def escape(piece: str) -> str:
    return piece.translate(_ESCAPES)


def list_text(model: BPEModel) -> str:
    lines = []
    for info in model.tokens():
        count = "" if info.count is None else str(info.count)
        lines.append(f"{escape(info.piece)}\t{info.id}\t{count}\n")
    return "".join(lines)


def export(model: BPEModel, path: str | os.PathLike) -> list[Path]:
    return _common.write_files([(Path(path), list_text(model).encode("utf-8"))])
