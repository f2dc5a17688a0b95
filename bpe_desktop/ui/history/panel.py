"""The History panel: every run of the open project, to filter, sort, inspect, reproduce,
compare, report on and delete.

The table reads which runs match, in which order, in the background and then their rows
a page at a time (:mod:`.table_model`); the selected runs stay selected when the list is
read again (a sort, runs recorded). The details of the chosen run
are shown as the report shows them; with several runs chosen, their metrics side by
side and plotted (:mod:`.metrics_view`). Deleting hides the runs at once and can be
undone until the window closes, when they are removed for good.
"""

from __future__ import annotations

import os
from dataclasses import replace

from PySide6.QtCore import QItemSelection, QItemSelectionModel, Qt, QTimer, Signal, Slot
from PySide6.QtGui import QGuiApplication, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QInputDialog,
    QLabel,
    QPushButton,
    QSplitter,
    QTableView,
    QTabWidget,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from bpe_desktop.core.comparison import MAX_TOKENIZERS, MIN_TOKENIZERS
from bpe_desktop.core.project import RUN_KINDS, RUN_STATUSES, Project, RunDetails, RunQuery
from bpe_desktop.core.project.commands import shell_command
from bpe_desktop.core.project.queries import PERIODS, RunList
from bpe_desktop.core.project.report import run_section
from bpe_desktop.core.project.report_html import render_html
from bpe_desktop.core.project.report import Report
from bpe_desktop.ui.history.metrics_view import MetricsView
from bpe_desktop.ui.history.table_model import COLUMNS, RunTableModel

ALL = "All"
#: Each History column's width in digits' widths.
COLUMN_CHARS = (6, 8, 9, 19, 9, 12, 18, 10, 7, 9)
#: How often the panel looks for runs recorded by other programs (a cheap query).
WATCH_INTERVAL_MS = 1500
#: The most runs whose details and metrics are shown side by side.
MAX_DETAILED = 50
#: The most selected runs kept selected when the list is read again.
MAX_RESELECTED = 1000


class HistoryPanel(QWidget):
    status_message = Signal(str)
    #: Open the model a run made: (run id).
    open_model_requested = Signal(int)
    #: Train again with a run's settings and files: (RunDetails).
    rerun_requested = Signal(object)
    #: Compare the models of 2–4 training runs: (list of run ids).
    compare_requested = Signal(list)
    #: Write a report of these runs: (list of run ids).
    report_requested = Signal(list)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.project: Project | None = None
        self.model = RunTableModel(self)
        self._deleted: list[list[int]] = []  # undo stack of hidden runs
        self._seen_version: int | None = None
        #: The runs to select once the list being read is shown (None: those selected
        #: when it is swapped in).
        self._next_selection: list[int] | None = None
        self._build()
        # Runs other programs record (a command line with --project) appear on their own.
        self.watch = QTimer(self)
        self.watch.setInterval(WATCH_INTERVAL_MS)
        self.watch.timeout.connect(self._check_for_changes)
        self.watch.start()

    def _build(self) -> None:
        self.project_label = QLabel("No project open")
        self.project_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.kind_combo = _combo([ALL, *RUN_KINDS])
        self.status_combo = _combo([ALL, *RUN_STATUSES])
        self.preset_combo = _combo([ALL])
        self.corpus_combo = _combo([ALL])
        self.period_combo = _combo(list(PERIODS))
        filters = QHBoxLayout()
        # Letters are unique in the panel and leave the menus' and tabs' letters free; the
        # words with no free letter (Preset, Date, Delete, Undo delete) go without one.
        for label, combo in (("&Kind:", self.kind_combo), ("St&atus:", self.status_combo),
                             ("Preset:", self.preset_combo), ("&Corpus:", self.corpus_combo),
                             ("Date:", self.period_combo)):
            text = QLabel(label)
            text.setBuddy(combo)
            filters.addWidget(text)
            filters.addWidget(combo, 1)
            combo.currentIndexChanged.connect(self.apply_filters)

        self.table = QTableView()
        self.table.setModel(self.model)
        self.table.setSortingEnabled(True)
        self.table.horizontalHeader().setSortIndicator(
            [c[1] for c in COLUMNS].index("started"), Qt.SortOrder.DescendingOrder)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.table.setTabKeyNavigation(False)  # rows are selected whole: Tab leaves the table
        self.table.verticalHeader().setVisible(False)
        self.table.verticalHeader().setDefaultSectionSize(22)
        self.table.setWordWrap(False)
        # Widths from the font, not from the contents: measuring them would read every run.
        em = self.table.fontMetrics().horizontalAdvance("0")
        for index, chars in enumerate(COLUMN_CHARS):
            self.table.setColumnWidth(index, em * chars + 16)
        self.table.selectionModel().selectionChanged.connect(self._on_selection)
        self.model.modelReset.connect(self._on_selection)
        self.model.modelAboutToBeReset.connect(self._keep_selection)
        self.model.listed.connect(self._on_listed)

        self.details = QTextBrowser()
        self.details.setOpenLinks(False)
        self.metrics = MetricsView()
        self.side = QTabWidget()
        self.side.addTab(self.details, "Details")
        self.side.addTab(self.metrics, "Metrics")

        self.open_button = QPushButton("O&pen model")
        self.rerun_button = QPushButton("Re-r&un")
        self.copy_button = QPushButton("Copy as comma&nd")
        self.compare_button = QPushButton("Co&mpare")
        self.report_button = QPushButton("E&xport report…")
        self.language_button = QPushButton("Lan&guage…")
        self.delete_button = QPushButton("Delete")
        self.undo_button = QPushButton("Undo delete")
        buttons = QHBoxLayout()
        for button, slot, tip in (
                (self.open_button, self.open_model, "Open the model this run made"),
                (self.rerun_button, self.rerun,
                 "Run again with the same settings and files (a training in the Training "
                 "panel, anything else by its command, in the background)"),
                (self.copy_button, self.copy_command,
                 "Copy the bpe-desktop command that reproduces this run"),
                (self.compare_button, self.compare,
                 f"Compare the models of {MIN_TOKENIZERS}–{MAX_TOKENIZERS} training runs"),
                (self.report_button, self.export_report,
                 "Write an HTML or PDF report of the selected runs"),
                (self.language_button, self.ask_language,
                 "Label the corpus files of the selected run with their language"),
                (self.delete_button, self.delete_selected, "Delete the selected runs (Del)"),
                (self.undo_button, self.undo_delete,
                 "Bring back the runs deleted last (Ctrl+Z)")):
            button.setToolTip(tip)
            button.clicked.connect(slot)
            buttons.addWidget(button)
        buttons.addStretch(1)
        QShortcut(QKeySequence.StandardKey.Delete, self.table, self.delete_selected)
        undo = QShortcut(QKeySequence.StandardKey.Undo, self, self.undo_delete)
        undo.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)

        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(self.table)
        split.addWidget(self.side)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 2)
        layout = QVBoxLayout(self)
        layout.addWidget(self.project_label)
        layout.addLayout(filters)
        layout.addWidget(split, 1)
        layout.addLayout(buttons)
        self._on_selection()

    # -- the project ---------------------------------------------------------------------

    def set_project(self, project: Project | None, runs: RunList | None = None) -> None:
        """Show this project's runs (the panel reads through this connection); ``runs``:
        its list for :meth:`opening_query`, when the caller read it already."""
        self.purge_deleted()
        self.project = project
        self.project_label.setText(f"Project: {project.path}" if project
                                   else "No project open")
        self._next_selection = []  # another project's runs
        for combo in (self.preset_combo, self.corpus_combo):
            self._fill_combo(combo, [])
        self.model.query = self.opening_query()
        self.model.set_project(project, runs)

    def opening_query(self) -> RunQuery:
        """The query a newly opened project is shown with: the kind, status and date
        filters and the order stay; presets and corpora are the project's own."""
        return replace(self.model.query, preset="", corpus="")

    @Slot(int)
    def on_recorded(self, _run_id: int = 0) -> None:
        """Runs were recorded or deleted: read the list again."""
        if self.project is not None:
            self.model.refresh()

    @Slot(object)
    def _on_listed(self, runs: RunList) -> None:
        """A new list is shown: offer its presets and corpora, select what was."""
        self._fill_combo(self.preset_combo, runs.presets)
        self._fill_combo(self.corpus_combo, runs.corpora)
        selection, self._next_selection = self._next_selection or [], None
        self.select_ids(selection)
        if (self.preset_combo.currentText(), self.corpus_combo.currentText()) != (
                runs.query.preset or ALL, runs.query.corpus or ALL):
            self.apply_filters()  # the chosen value is gone: all of them

    @staticmethod
    def _fill_combo(combo: QComboBox, values: list[str]) -> None:
        current = combo.currentText()
        if [combo.itemText(i) for i in range(1, combo.count())] == values:
            return
        combo.blockSignals(True)
        combo.clear()
        combo.addItems([ALL, *values])
        combo.setCurrentText(current if current in values else ALL)
        combo.blockSignals(False)

    @Slot()
    def apply_filters(self) -> None:
        value = lambda combo: "" if combo.currentText() == ALL else combo.currentText()
        self.model.set_query(replace(
            self.model.query, kind=value(self.kind_combo), status=value(self.status_combo),
            preset=value(self.preset_combo), corpus=value(self.corpus_combo),
            period=self.period_combo.currentText()))

    # -- selection and details -------------------------------------------------------------

    def selected_ids(self) -> list[int]:
        rows = sorted(i.row() for i in self.table.selectionModel().selectedRows())
        runs = [self.model.run_at(r) for r in rows]
        return [r.id for r in runs if r is not None]

    def select_ids(self, ids: list[int]) -> None:
        selection = QItemSelection()
        last = self.model.columnCount() - 1
        for row in self.model.rows_of(ids):
            selection.select(self.model.index(row, 0), self.model.index(row, last))
        self.table.selectionModel().select(
            selection, QItemSelectionModel.SelectionFlag.ClearAndSelect)

    @Slot()
    def _keep_selection(self) -> None:
        """The list is about to change: remember the selected runs (up to
        :data:`MAX_RESELECTED`) to select them in the new one."""
        if self._next_selection is None:
            ranges = self.table.selectionModel().selection()
            count = sum(r.height() for r in ranges)
            self._next_selection = self.selected_ids() if count <= MAX_RESELECTED else []

    def selected_runs(self) -> list[RunDetails]:
        """The selected runs' details; none beyond :data:`MAX_DETAILED` (a selection of
        thousands is for deleting, not for reading)."""
        ids = self.selected_ids()
        if self.project is None or len(ids) > MAX_DETAILED:
            return []
        return [self.project.run_details(i) for i in ids]

    @Slot()
    def _on_selection(self, *_args) -> None:
        runs = self.selected_runs()
        count = len(self.selected_ids()) if not runs else len(runs)
        one = runs[0] if len(runs) == 1 else None
        trainings = [r for r in runs if r.model_path or r.has_stored_model]
        self.open_button.setEnabled(one is not None and bool(trainings))
        self.rerun_button.setEnabled(one is not None and (
            one.summary.kind == "train" and bool(one.inputs) or one.command is not None))
        self.copy_button.setEnabled(one is not None and one.command is not None)
        self.compare_button.setEnabled(
            MIN_TOKENIZERS <= len(trainings) == len(runs) <= MAX_TOKENIZERS)
        self.report_button.setEnabled(bool(runs))
        self.language_button.setEnabled(one is not None and any(
            i.role == "corpus" for i in one.inputs))
        self.delete_button.setEnabled(count > 0)
        self.undo_button.setEnabled(bool(self._deleted))
        if one is not None:
            report = Report("", "", [run_section(one)])
            self.details.setHtml(render_html(report, lambda _i, _p: "(plot in the report)"))
        elif runs:
            self.details.setPlainText(f"{len(runs)} runs selected: their metrics are on the "
                                      "Metrics tab.")
        elif count:
            self.details.setPlainText(f"{count:,} runs selected (details are shown for up to "
                                      f"{MAX_DETAILED}).")
        else:
            self.details.setPlainText("Select a run to see its settings, files, log and "
                                      "metrics.")
        self.metrics.set_runs(runs)
        if len(runs) > 1:
            self.side.setCurrentWidget(self.metrics)
        elif one is not None:
            self.side.setCurrentWidget(self.details)

    # -- actions -------------------------------------------------------------------------

    @Slot()
    def open_model(self) -> None:
        ids = self.selected_ids()
        if len(ids) == 1:
            self.open_model_requested.emit(ids[0])

    @Slot()
    def rerun(self) -> None:
        runs = self.selected_runs()
        if len(runs) == 1:
            self.rerun_requested.emit(runs[0])

    @Slot()
    def copy_command(self) -> None:
        runs = self.selected_runs()
        if len(runs) == 1 and runs[0].command:
            text = shell_command(runs[0].command)
            QGuiApplication.clipboard().setText(text)
            self.status_message.emit(f"Copied: {text}")

    @Slot()
    def compare(self) -> None:
        self.compare_requested.emit(self.selected_ids())

    @Slot()
    def export_report(self) -> None:
        ids = self.selected_ids()
        if ids:
            self.report_requested.emit(ids)

    @Slot()
    def ask_language(self) -> None:
        runs = self.selected_runs()
        if len(runs) != 1:
            return
        current = next((i.language for i in runs[0].inputs if i.role == "corpus"), "")
        label, ok = QInputDialog.getText(self, "Corpus language",
                                         "Language of this run's corpus files:", text=current)
        if ok:
            self.set_language(runs[0].summary.id, label.strip())

    def set_language(self, run_id: int, label: str) -> None:
        if self.project is not None:
            self.project.set_language(run_id, label)
            self._on_selection()
            self.status_message.emit(f"Run {run_id}: corpus language set to {label or 'none'}.")

    @Slot()
    def _check_for_changes(self) -> None:
        if self.project is None or not self.isVisible():
            return
        version = self.project.data_version()
        if self._seen_version is not None and version != self._seen_version:
            self.on_recorded()
        self._seen_version = version

    @Slot()
    def delete_selected(self) -> None:
        ids = self.selected_ids()
        if not ids or self.project is None:
            return
        self.project.hide_runs(ids)
        self._deleted.append(ids)
        self._next_selection = []
        self.on_recorded()
        self.status_message.emit(f"Deleted {len(ids)} run(s); Undo delete brings them back "
                                 "until the window closes.")

    @Slot()
    def undo_delete(self) -> None:
        if not self._deleted or self.project is None:
            return
        ids = self._deleted.pop()
        self.project.hide_runs(ids, hidden=False)
        self._next_selection = ids
        self.on_recorded()
        self.status_message.emit(f"Restored {len(ids)} run(s).")

    def shutdown(self) -> None:
        """The window is closing: runs deleted here go for good, the list's reader stops."""
        self.watch.stop()
        self.set_project(None)
        self.model.shutdown()

    def purge_deleted(self) -> None:
        """Remove for good the runs deleted here (the project changes or the window
        closes: no undo after that)."""
        if self.project is not None and self._deleted:
            self.project.delete_runs([i for ids in self._deleted for i in ids])
        self._deleted.clear()


def _combo(items: list[str]) -> QComboBox:
    combo = QComboBox()
    combo.addItems(items)
    combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
    return combo


def default_project_path() -> str:
    """Where runs are recorded until the user chooses a project."""
    from bpe_desktop.paths import user_data_dir

    return os.path.join(str(user_data_dir()), "History.bpeproj")
