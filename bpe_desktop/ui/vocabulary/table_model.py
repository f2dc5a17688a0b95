"""The vocabulary table as a Qt model over :mod:`bpe_desktop.views.vocab_table`'s arrays:
``sort`` and the filters work on an index array, ``data()`` reads the columns."""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass
from typing import IO

import numpy as np
from PySide6.QtCore import QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QFont

from bpe_desktop.core import BPEModel

from bpe_desktop.core import release
from bpe_desktop.core.csv_rows import CsvRows
from bpe_desktop.core.pieces import isolated_if_rtl, piece_bytes
from bpe_desktop.views.vocab_table import (
    _NUMBERS,
    COL_BYTES,
    COL_CHARS,
    COL_COUNT,
    COL_FINAL,
    COL_ID,
    COL_KIND,
    COL_LEFT,
    COL_PIECE,
    COL_RANK,
    COL_RIGHT,
    CSV_HEADER,
    HEADER_TIPS,
    HEADERS,
    KIND_NAMES,
    MERGED,
    NUMERIC_COLUMNS,
    PROTECTED,
    SPECIAL,
    FilterMask,
    TextFilter,
    VocabColumns,
    build_columns,
    compute_mask,
    filter_mask,
    make_filter_spec,
    piece_tooltip,
    spec_error,
)
from bpe_desktop.ui.common.table_base import OneCallPerCell

#: A role giving each cell's raw value (int, str or None), e.g. for tests and exporters.
RawRole = int(Qt.ItemDataRole.UserRole)
#: The token id of a row, in any column.
IdRole = RawRole + 1

# Plain ints: data() runs for every painted cell and role, comparing ints is cheapest.
_DISPLAY = int(Qt.ItemDataRole.DisplayRole)
_ALIGN = int(Qt.ItemDataRole.TextAlignmentRole)
_TOOLTIP = int(Qt.ItemDataRole.ToolTipRole)
_FONT = int(Qt.ItemDataRole.FontRole)
_RIGHT = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter


# =========================================================================================
# The Qt model
# =========================================================================================


@dataclass(frozen=True)
class FilterResult:
    """What a :meth:`VocabTableModel.filter_job` computed, for the table it was made on."""

    generation: int  # the model's table when the job was made (see apply_filter_result)
    mask: FilterMask


class VocabTableModel(OneCallPerCell):
    """Tokens of one BPEModel; ``sort`` and the filters work on an index array."""

    ANSWERED_ROLES = frozenset((_DISPLAY, _ALIGN, _FONT, _TOOLTIP, RawRole, IdRole))

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self._model: BPEModel | None = None
        self._cols: VocabColumns | None = None
        self._text_filter: TextFilter | None = None
        self._rows = np.empty(0, dtype=np.int64)  # visible token ids, in view order
        self._mask: np.ndarray | None = None  # None: every token passes
        self._sort_column = -1
        self._descending = False
        self._filter = make_filter_spec()
        self.filter_error: str | None = None
        # Bumped whenever the rows a filter sees change (another table, final frequencies):
        # a filter computed in a worker before that no longer applies.
        self._generation = 0
        self._special_font = QFont()
        self._special_font.setItalic(True)

    # -- the BPE model ---------------------------------------------------------------------

    def set_bpe_model(self, model: BPEModel | None) -> None:
        """Show ``model`` (None: empty), building its columns here; the filter and sort
        are kept. The panel builds them in a worker and calls :meth:`set_columns`."""
        if model is None:
            self.set_columns(None, None, None)
            return
        columns = build_columns(model)
        self.set_columns(model, columns, TextFilter(columns))

    def set_columns(self, model: BPEModel | None, columns: VocabColumns | None,
                    text_filter: TextFilter | None, mask: FilterMask | None = None) -> None:
        """Show ``model`` from columns built beforehand (in a worker thread).

        ``mask`` is the current filter computed with them; it is used when the filter has
        not changed since, else the filter is applied again here.
        """
        # The replaced columns (a string per token) are freed on the release thread:
        # dropped here, their deallocation would hold the GUI thread as a model opens.
        replaced = (self._model, self._cols, self._text_filter, self._mask, self._rows)
        self.beginResetModel()
        self._generation += 1
        self._model = model
        self._cols = columns
        self._text_filter = text_filter
        self._mask = None
        self.filter_error = None
        if columns is not None:
            if mask is not None and mask.spec == self._filter:
                self._mask = mask.mask
            else:  # (a spec is only kept once it compiled, so this does not raise)
                self._mask = self._compute_mask(*self._filter)
        self._rows = self._ordered_rows()
        self.endResetModel()
        release.retire(replaced)

    def filter_spec(self) -> tuple:
        """The current filter, as :func:`compute_mask` takes it."""
        return self._filter

    def bpe_model(self) -> BPEModel | None:
        return self._model

    @property
    def columns(self) -> VocabColumns | None:
        return self._cols

    def total_count(self) -> int:
        return len(self._cols) if self._cols is not None else 0

    def visible_ids(self) -> np.ndarray:
        """Token ids of the rows, in view order (a copy)."""
        return self._rows.copy()

    def token_id(self, row: int) -> int:
        return int(self._rows[row])

    def row_of(self, token: int) -> int | None:
        """The row showing ``token``, or None when it is filtered out."""
        found = np.flatnonzero(self._rows == token)
        return int(found[0]) if len(found) else None

    # -- filtering -------------------------------------------------------------------------

    def set_filter(self, text: str = "", *, regex: bool = False, case_sensitive: bool = False,
                   min_length: int | None = None, max_length: int | None = None,
                   new_from: int | None = None, intermediate: bool = False) -> str | None:
        """Keep tokens matching ``text`` whose length in characters is in the range.

        ``text`` is a substring of the readable piece, its text or the raw piece, or with
        ``regex`` a regular expression searched in the readable piece (see
        :class:`TextFilter`). Returns an error message for an invalid regex; the filter
        then stays as it was and ``filter_error`` holds the message.
        """
        spec = make_filter_spec(text, regex=regex, case_sensitive=case_sensitive,
                                min_length=min_length, max_length=max_length,
                                new_from=new_from, intermediate=intermediate)
        if self._cols is not None:
            result = filter_mask(self._cols, self._text_filter, spec)
        else:  # no rows yet (loading): still refuse a pattern that cannot compile
            result = FilterMask(spec, None, spec_error(spec))
        self._show_filtered(result)
        return self.filter_error

    def filter_job(self, spec: tuple) -> Callable[..., FilterResult]:
        """The filter ``spec`` (see :func:`make_filter_spec`) as a function to run in a
        worker thread, then give to :meth:`apply_filter_result` on the GUI thread.

        The function reads a snapshot of the current table (a shallow copy of the columns:
        their arrays are never changed in place, and ``final`` is fixed), so the GUI
        thread may keep showing, sorting and replacing the table meanwhile.
        """
        if self._cols is None:
            raise ValueError("no table to filter")
        columns, text_filter = copy.copy(self._cols), self._text_filter
        generation = self._generation
        return lambda: FilterResult(generation, filter_mask(columns, text_filter, spec))

    def apply_filter_result(self, result: FilterResult) -> bool:
        """Show the rows a :meth:`filter_job` found (a model reset; the current sort is
        kept). False, and nothing changes, when the table was replaced or its final
        frequencies arrived since the job was made. An invalid regex sets
        ``filter_error`` and keeps the filter as it was."""
        if result.generation != self._generation:
            return False
        self._show_filtered(result.mask)
        return True

    def _show_filtered(self, result: FilterMask) -> None:
        self.filter_error = result.error
        if result.error is not None:
            return
        self._filter = result.spec
        self.beginResetModel()
        self._mask = result.mask
        self._rows = self._ordered_rows()
        self.endResetModel()

    def _compute_mask(self, *spec):
        return compute_mask(self._cols, self._text_filter, spec)

    def set_final(self, final: np.ndarray | None) -> None:
        """The final frequencies arrived (segmented words): show them.

        Only their column changes, unless the rows depend on them (the intermediate filter
        reads them, or the table is sorted by them): then the rows are filtered and
        ordered again (a reset). A reset also loses the scroll position and selection,
        and repaints every cell (12 ms at 100,000 tokens).
        """
        if self._cols is None:
            return
        self._cols.final = final
        for key in [k for k in self._cols._perms if k[0] == COL_FINAL]:
            del self._cols._perms[key]
        self._cols._sort_keys.pop(COL_FINAL, None)
        self._generation += 1  # a filter computed before may have read them
        if not self._filter[-1] and self._sort_column != COL_FINAL:
            if len(self._rows):
                self.dataChanged.emit(self.index(0, COL_FINAL),
                                      self.index(len(self._rows) - 1, COL_FINAL))
            return
        self.beginResetModel()
        if self._filter[-1]:
            self._mask = self._compute_mask(*self._filter)
        self._rows = self._ordered_rows()
        self.endResetModel()

    # -- sorting ---------------------------------------------------------------------------

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        """Sort the visible rows (column -1: id order). Selections follow their tokens."""
        self._sort_column = column if 0 <= column < len(HEADERS) else -1
        self._descending = order == Qt.SortOrder.DescendingOrder
        self.layoutAboutToBeChanged.emit()
        old = self.persistentIndexList()
        old_ids = [int(self._rows[i.row()]) if i.isValid() else -1 for i in old]
        self._rows = self._ordered_rows()
        if old:
            self.changePersistentIndexList(old, self._moved(old, old_ids))
        self.layoutChanged.emit()

    def sort_order(self) -> tuple[int, Qt.SortOrder]:
        order = Qt.SortOrder.DescendingOrder if self._descending else Qt.SortOrder.AscendingOrder
        return self._sort_column, order

    def _moved(self, old, old_ids) -> list[QModelIndex]:
        where = np.full(self.total_count(), -1, dtype=np.int64)
        where[self._rows] = np.arange(len(self._rows), dtype=np.int64)
        out = []
        for index, token in zip(old, old_ids):
            row = int(where[token]) if token >= 0 else -1
            out.append(self.index(row, index.column()) if row >= 0 else QModelIndex())
        return out

    def _ordered_rows(self) -> np.ndarray:
        cols = self._cols
        if cols is None:
            return np.empty(0, dtype=np.int64)
        if self._sort_column < 0:
            if self._mask is None:
                return np.arange(len(cols), dtype=np.int64)
            return np.flatnonzero(self._mask)
        perm = cols.permutation(self._sort_column, self._descending)
        return perm if self._mask is None else perm[self._mask[perm]]

    # -- Qt model interface ----------------------------------------------------------------

    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(HEADERS)

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = _DISPLAY):
        if role == _DISPLAY:
            return self._text(int(self._rows[index.row()]), index.column())
        if role == _ALIGN:
            return _RIGHT if index.column() in NUMERIC_COLUMNS else None
        if role == _FONT:
            token = int(self._rows[index.row()])
            return self._special_font if self._cols.kind[token] in (SPECIAL, PROTECTED) \
                else None
        if role == _TOOLTIP:
            return self._tooltip(int(self._rows[index.row()]), index.column())
        if role == RawRole:
            return self._cols.raw_value(int(self._rows[index.row()]), index.column())
        if role == IdRole:
            return int(self._rows[index.row()])
        return None

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = _DISPLAY):
        if orientation == Qt.Orientation.Horizontal:
            if role == _DISPLAY:
                return HEADERS[section]
            if role == _TOOLTIP:
                return HEADER_TIPS[section]
            if role == _ALIGN:
                return _RIGHT if section in NUMERIC_COLUMNS else None
            return None
        if role == _DISPLAY:
            return str(section + 1)
        return None

    # -- cell texts ------------------------------------------------------------------------

    def _text(self, token: int, column: int) -> str:
        cols = self._cols
        if column == COL_PIECE:
            return isolated_if_rtl(cols.display[token])
        if column == COL_ID:
            return str(token)
        if column == COL_KIND:
            return KIND_NAMES[cols.kind[token]]
        if column in (COL_LEFT, COL_RIGHT):
            parent = int((cols.left if column == COL_LEFT else cols.right)[token])
            return isolated_if_rtl(cols.display[parent]) if parent >= 0 else ""
        if column == COL_FINAL:
            return "" if cols.final is None else f"{int(cols.final[token]):,}"
        if column == COL_COUNT:
            value = int(cols.count[token])
            if value >= 0:
                return f"{value:,}"
            return "—" if cols.kind[token] == MERGED else ""  # merged but not recorded
        value = int(_NUMBERS[column](cols)[token])
        return str(value) if value >= 0 else ""

    def _tooltip(self, token: int, column: int) -> str | None:
        cols = self._cols
        if column == COL_PIECE:
            piece = cols.pieces[token]
            tip = piece_tooltip(piece, cols.display[token], cols.surface[token],
                                piece_bytes(piece, self._model.config))
            heading = {SPECIAL: "Special token\n",
                       PROTECTED: "Protected string: always one token, never split\n"}
            return heading.get(int(cols.kind[token]), "") + tip
        if column == COL_COUNT and cols.kind[token] == MERGED and cols.count[token] < 0:
            return "This model does not record merge counts (imported)"
        if column in (COL_LEFT, COL_RIGHT):
            parent = int((cols.left if column == COL_LEFT else cols.right)[token])
            return repr(cols.pieces[parent]) if parent >= 0 else None
        return None

    # -- export ----------------------------------------------------------------------------

    def write_csv(self, out: IO[str]) -> None:
        """The visible rows in view order; raw pieces, empty cells for missing values."""
        writer = CsvRows(out)
        writer.writerow(CSV_HEADER)
        cols = self._cols
        if cols is None:
            return
        raw = cols.raw_value
        for token in self._rows.tolist():
            writer.writerow([
                token, cols.pieces[token], cols.display[token], KIND_NAMES[cols.kind[token]],
                *("" if (v := raw(token, c)) is None else v
                  for c in (COL_CHARS, COL_BYTES, COL_RANK, COL_COUNT, COL_LEFT, COL_RIGHT,
                            COL_FINAL)),
            ])
