"""Short labels for a set of files: what tells each apart from the others.

Parallel corpora are often laid out as ``de/udhr.txt``, ``fr/udhr.txt``: the file names
repeat and the folders tell the languages apart. Each file is labelled by the shortest
tail of its path (file name, then parent folder and file name, ...) that no other file
shares, so ``a.txt`` and ``b.txt`` stay ``a.txt`` and ``b.txt``.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from bpe_desktop.core.errors import CorpusError


def distinguishing_labels(paths: Sequence[str | os.PathLike]) -> list[str]:
    """A label per path, in order: its shortest path tail no other path ends with.

    The tails are taken from the absolute paths, so two different files always get two
    labels; the same file given twice (however spelt) is refused, naming it.
    """
    given = [os.fspath(p) for p in paths]
    parts = [os.path.abspath(p).replace(os.sep, "/").split("/") for p in given]
    seen: dict[tuple[str, ...], str] = {}
    for path, split in zip(given, parts):
        if tuple(split) in seen:
            raise CorpusError(f"{path}: given twice (as {seen[tuple(split)]} too)",
                              path=path)
        seen[tuple(split)] = path
    labels = []
    for i, split in enumerate(parts):
        others = [p for j, p in enumerate(parts) if j != i]
        depth = 1
        while depth < len(split) and any(o[-depth:] == split[-depth:] for o in others):
            depth += 1
        labels.append("/".join(split[-depth:]))
    return labels
