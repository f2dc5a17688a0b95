"""The vocabulary table's filter, computed off the GUI thread for large tables.

Filtering 100,000 tokens holds the GIL for up to ~80 ms (a Python test per token), which
the GUI would show as a stutter on every keystroke. :class:`TableFilter` runs the model's
:meth:`~bpe_desktop.ui.vocabulary.table_model.VocabTableModel.filter_job` in a worker
thread instead: a newer request supersedes an older one (only the latest result arrives),
and the GUI thread only swaps the resulting rows in. A result made for a table that has
been replaced since is dropped and the filter is computed again for the new one.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal, Slot

from bpe_desktop.views.vocab_table import make_filter_spec
from bpe_desktop.ui.common.background import LatestJob
from bpe_desktop.ui.common.workers import JobError
from bpe_desktop.ui.vocabulary.table_model import FilterResult, VocabTableModel

#: Tables up to this many tokens are filtered on the GUI thread (a few milliseconds at
#: most: a thread hop would only delay the rows); larger ones in a worker thread.
INLINE_FILTER_ROWS = 5000


class TableFilter(QObject):
    """Applies filter settings (:meth:`VocabTableModel.set_filter`'s keywords) to a table
    model, in a worker thread when the table is large."""

    #: The table shows the latest settings, or refused them (its ``filter_error`` says why).
    applied = Signal()
    #: Filtering raised unexpectedly (the message); the table is unchanged.
    failed = Signal(str)

    def __init__(self, table: VocabTableModel, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._table = table
        self._settings: dict = {}
        self._waiting = False  # a result is still to be applied
        self._jobs = LatestJob(self)
        self._jobs.finished.connect(self._on_finished)
        self._jobs.failed.connect(self._on_failed)

    @property
    def busy(self) -> bool:
        """A filter is being computed in the background (``applied`` follows)."""
        return self._waiting

    def apply(self, settings: dict, *, inline: bool = False) -> None:
        """Filter with ``settings``: at once for a small table, no table yet or
        ``inline``, else in the worker."""
        self._settings = settings
        table = self._table
        if inline or table.columns is None or table.total_count() <= INLINE_FILTER_ROWS:
            self.discard()
            table.set_filter(**settings)
            self.applied.emit()
            return
        job = table.filter_job(make_filter_spec(**settings))
        self._waiting = True
        self._jobs.submit(lambda _report, _cancel: job())

    def finish(self) -> None:
        """Compute a filter still running in the background here and now."""
        if self._waiting:
            self.apply(self._settings, inline=True)

    def discard(self) -> None:
        """Drop a filter still being computed: nothing more arrives."""
        self._waiting = False
        self._jobs.discard()

    def shutdown(self) -> None:
        """Cancel and wait for the worker thread (the panel is closing)."""
        self._waiting = False
        self._jobs.shutdown()

    @Slot(object)
    def _on_finished(self, result: FilterResult) -> None:
        self._waiting = False
        if not self._table.apply_filter_result(result):
            self.apply(self._settings)  # the table changed meanwhile: filter the new one
            return
        self.applied.emit()

    @Slot(object)
    def _on_failed(self, error: JobError) -> None:
        self._waiting = False
        self.failed.emit(error.message)
