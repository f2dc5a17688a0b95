"""Plain against parity-aware BPE in the Compare panel: the background job that trains
the plain counterpart and compares both on the development set, and the *Languages* tab
with each language's token cost under each tokenizer (definitions: Help ▸ Comparison)."""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QPushButton,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from bpe_desktop.core import BPEModel
from bpe_desktop.core.comparison import Comparison
from bpe_desktop.core.comparison.parity_pair import (
    compare_on_parallel,
    model_dev_set,
    train_plain_counterpart,
)
from bpe_desktop.core.parity_dev import DevSet
from bpe_desktop.ui.common import dialogs
from bpe_desktop.ui.evaluate.table_models import RowsModel

PLAIN_NAME = "plain BPE"


@dataclass(frozen=True)
class PlainVsParity:
    """What the job hands back: the plain counterpart, the development set and both
    tokenizers compared on it."""

    plain: BPEModel
    parity: BPEModel
    dev: DevSet
    comparison: Comparison


def plain_vs_parity_job(model: BPEModel, parity_name: str, word_counts: bool | None,
                        errors: str | None = None):
    """The worker's function: train the plain counterpart (progress as stage texts, its
    corpora read with ``errors`` as the parity-aware run read them; None: as the model
    records), then compare it with ``model`` on the development set the model records."""

    def job(report, cancel):
        report("reading the development set", force=True)
        dev = model_dev_set(model)  # a missing file fails before the training

        def on_progress(p) -> None:
            if p.stage == "merging" and p.merges_target:
                report(f"training plain BPE: {p.merges_done:,} of {p.merges_target:,} "
                       "merges")
            else:
                report("training plain BPE: reading the corpora")

        plain = train_plain_counterpart(model, word_counts=word_counts, errors=errors,
                                        on_progress=on_progress, cancel=cancel)
        report("comparing on the development set", force=True)
        comparison = compare_on_parallel([(PLAIN_NAME, plain), (parity_name, model)], dev,
                                         cancelled=lambda: cancel.cancelled)
        return PlainVsParity(plain, model, dev, comparison)

    return job


class LanguageCostsView(QWidget):
    """Each language's tokens per parallel unit under each tokenizer, with max/min, Gini
    and the total tokens below."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.model = RowsModel(("language",), self)
        self.label = QLabel()
        self.label.setWordWrap(True)
        self.table = QTableView()
        self.table.setModel(self.model)
        self.table.setTabKeyNavigation(False)  # read only: Tab leaves the table
        self.table.verticalHeader().hide()
        self.table.horizontalHeader().setStretchLastSection(True)
        self.costs = None
        self.export_button = QPushButton("Export CSV…")
        self.export_button.setToolTip("Write the table as CSV, the costs at full precision")
        self.export_button.clicked.connect(self._ask_export_csv)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        buttons.addWidget(self.export_button)
        layout = QVBoxLayout(self)
        layout.addWidget(self.label)
        layout.addWidget(self.table, 1)
        layout.addLayout(buttons)
        self.show_costs(None)

    def show_costs(self, costs, source: str = "") -> None:
        """``costs``: a :class:`~bpe_desktop.core.comparison.parity_pair.LanguageCosts`
        (None: nothing to show)."""
        self.costs = costs
        self.export_button.setEnabled(costs is not None)
        if costs is None:
            self.model.headers = ["language"]
            self.model.set_rows([])
            self.label.setText("Each language's token cost is shown for a comparison on a "
                               "parallel set: choose <b>Plain vs parity-aware</b> for a "
                               "model trained parity-aware.")
            return
        self.model.headers = ["language", *(f"{name}: tokens per {costs.unit}"
                                            for name in costs.names)]
        self.model.set_rows(costs.rows())
        self.table.resizeColumnsToContents()
        where = f" ({source})" if source else ""
        self.label.setText(f"Tokens per {costs.unit} of the parallel set{where}; "
                           "<b>max/min</b>: the most expensive language's cost over the "
                           "cheapest's (1.000: equal). Score on held-out parallel text to "
                           "judge a model: the development set was used in training.")

    def export_csv(self, path: str) -> None:
        """The table shown, its numbers at full precision (as ``compare --json``)."""
        table = RowsModel(self.model.headers)
        table.set_rows(self.costs.values())
        table.to_csv(path)

    def _ask_export_csv(self) -> None:
        dialogs.export_to_chosen_file(self, "Export the languages' costs as CSV",
                                      "CSV files (*.csv)", "language-costs.csv",
                                      self.export_csv)
