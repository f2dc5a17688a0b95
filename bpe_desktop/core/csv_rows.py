"""CSV rows as every table export of the application writes them: ``\\n`` line ends,
fields quoted where needed.

Python's ``csv`` writer quotes a field holding the delimiter, the quote or a character
of its line terminator; with ``\\n`` rows a carriage return inside a field (a piece of
an imported vocabulary) stayed bare, and every reader took it for the end of the row.
A row with such a field is written with every field quoted.
"""

from __future__ import annotations

import csv
from collections.abc import Iterable
from typing import IO, Any


class CsvRows:
    """Writes rows to ``out`` (opened with ``newline=""`` or a ``StringIO``)."""

    def __init__(self, out: IO[str]) -> None:
        self._minimal = csv.writer(out, lineterminator="\n")
        self._quoted = csv.writer(out, lineterminator="\n", quoting=csv.QUOTE_ALL)

    def writerow(self, row: Iterable[Any]) -> None:
        row = list(row)
        bare_cr = any(isinstance(field, str) and "\r" in field for field in row)
        (self._quoted if bare_cr else self._minimal).writerow(row)

    def writerows(self, rows: Iterable[Iterable[Any]]) -> None:
        for row in rows:
            self.writerow(row)
