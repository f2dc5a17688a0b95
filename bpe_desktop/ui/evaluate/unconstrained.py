"""Evaluate's one-click "Compare with unconstrained": trains the model without its
linguistic constraints (same corpus, same vocabulary size) in a worker, evaluates both on
the panel's gold files and texts, and shows the measures side by side and the gold words
cut differently."""

from __future__ import annotations

from PySide6.QtCore import Signal, Slot
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from bpe_desktop.core.comparison.unconstrained import ConstraintGain, compare_with_unconstrained
from bpe_desktop.core.evaluation import read_gold
from bpe_desktop.ui.common import dialogs
from bpe_desktop.ui.common.single_dialog import SingleDialog
from bpe_desktop.ui.common.workers import JobError, JobRunner

TIP = ("Train the same corpus without the linguistic constraints, at the same vocabulary "
       "size, and compare boundary F1, MorphScore, fertility and the gold words cut "
       "differently")


class UnconstrainedButton(QPushButton):
    """The button and its worker; ``panel`` is the Evaluate panel it reads inputs from."""

    #: The finished comparison (ConstraintGain), after its dialog opened.
    compared = Signal(object)

    def __init__(self, panel) -> None:
        super().__init__("Compare &with unconstrained")
        self.setToolTip(TIP)
        self.panel = panel
        self._window: SingleDialog[GainDialog] = SingleDialog()
        self._method = ""
        self.runner = JobRunner(self)
        self.runner.progressed.connect(self._on_progress)
        self.runner.finished.connect(self._on_finished)
        self.runner.failed.connect(self._on_failed)
        self.runner.cancelled.connect(lambda: panel._set_status("Comparison cancelled."))
        # The panel's Cancel button stops the comparison too.
        self.runner.stopped.connect(panel._update_enabled)
        self.clicked.connect(self.start)
        self.update_enabled()

    def update_enabled(self) -> None:
        model = self.panel._model
        self.setEnabled(model is not None and model.constraints is not None
                        and not self.runner.running)

    def start(self) -> None:
        model = self.panel._model
        if model is None or model.constraints is None or self.runner.running:
            return
        self._method = model.constraints.method
        gold_paths = self.panel.gold_files.paths()
        fmt = self.panel.gold_format_combo.currentData()
        request = self.panel.request()
        if not (gold_paths or request.has_text):
            self.panel._set_status("Add a gold file or a text first.")
            return

        def job(report, cancel):
            request.gold = [read_gold(p, fmt) for p in gold_paths]
            return compare_with_unconstrained(
                model, request, cancel=cancel,
                progress=lambda stage, done, total: report(stage))

        self.runner.start(job)
        self.panel._update_enabled()
        self.panel._set_status("Training the unconstrained model…")

    def cancel(self) -> None:
        self.runner.cancel()

    def shutdown(self) -> None:
        self.runner.shutdown()

    @Slot(object)
    def _on_progress(self, stage: str) -> None:
        self.panel._set_status(f"Comparing with the unconstrained model: {stage}…")

    @Slot(object)
    def _on_finished(self, gain: ConstraintGain) -> None:
        self.panel._set_status(f"Compared with the unconstrained model: {len(gain.changed):,} "
                               "gold words are cut differently.")
        # One result window: the previous comparison's is replaced.
        self._window.show(lambda: GainDialog(gain, self._method, self.panel))
        self.compared.emit(gain)

    @property
    def dialog(self) -> GainDialog | None:
        """The comparison's result window, while it is open."""
        return self._window.dialog

    @Slot(object)
    def _on_failed(self, error: JobError) -> None:
        self.panel._set_status(f"Comparison failed: {error.message}")
        dialogs.show_error(self.panel, "Cannot compare with the unconstrained model",
                           error.message, error.details_if_bug)


def _table(headers: list[str], rows: list[list[str]]) -> QTableWidget:
    table = QTableWidget(len(rows), len(headers))
    table.setHorizontalHeaderLabels(headers)
    for r, row in enumerate(rows):
        for c, text in enumerate(row):
            table.setItem(r, c, QTableWidgetItem(text))
    table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
    table.horizontalHeader().setStretchLastSection(True)
    table.resizeColumnsToContents()
    return table


class GainDialog(QDialog):
    """The measures of both models and the gold words whose segmentation changed."""

    def __init__(self, gain: ConstraintGain, method: str,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Constrained vs unconstrained")
        self.measures = _table(
            ["measure", "constrained", "unconstrained", "difference"],
            [[name, f"{a:.3f}", f"{b:.3f}", f"{a - b:+.3f}"] for name, a, b in gain.rows()])
        self.words = _table(
            ["word", "constrained", "unconstrained"],
            [[c.word, " ".join(c.constrained), " ".join(c.unconstrained)]
             for c in gain.changed])
        note = QLabel(f"Constraints: {method}. Same corpus, vocabulary of "
                      f"{gain.unconstrained.vocab_size:,} tokens for both. "
                      f"{len(gain.changed):,} gold words are cut differently:")
        note.setWordWrap(True)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        for w in (self.measures, note, self.words, buttons):
            layout.addWidget(w)
        self.resize(640, 560)
