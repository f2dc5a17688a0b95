"""Several runs' metrics side by side: a table (one row per run) and a plot of any metric
against vocabulary size (a run's sweep as a line) or against any option of the runs'
configuration (one point per run)."""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)
from PySide6.QtCore import Qt

from bpe_desktop.core.project import RunDetails
from bpe_desktop.core.project.report import COLOURS_FOR_PLOTS, metric_names, sweep_points

VOCABULARY = "vocabulary size"


class MetricsView(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.runs: list[RunDetails] = []
        self.table = QTableWidget()
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.table.setTabKeyNavigation(False)  # read only: Tab leaves the table
        self.table.verticalHeader().setVisible(False)
        self.metric_combo = QComboBox()
        self.x_combo = QComboBox()
        self.plot = pg.PlotWidget()
        self.plot.setBackground("w")
        self.plot.addLegend()
        row = QHBoxLayout()
        row.addWidget(QLabel("Plot"))
        row.addWidget(self.metric_combo, 1)
        row.addWidget(QLabel("against"))
        row.addWidget(self.x_combo, 1)
        plot_box = QWidget()
        plot_layout = QVBoxLayout(plot_box)
        plot_layout.setContentsMargins(0, 0, 0, 0)
        plot_layout.addLayout(row)
        plot_layout.addWidget(self.plot, 1)
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(self.table)
        split.addWidget(plot_box)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(split)
        self.metric_combo.currentIndexChanged.connect(self.redraw)
        self.x_combo.currentIndexChanged.connect(self.redraw)

    def set_runs(self, runs: list[RunDetails]) -> None:
        if not runs and not self.runs:
            return  # (clearing an empty plot still lays out its axes: milliseconds)
        self.runs = runs
        names = metric_names(runs)
        self.table.clear()
        self.table.setColumnCount(2 + len(names))
        self.table.setRowCount(len(runs))
        self.table.setHorizontalHeaderLabels(["run", "kind", *names])
        for r, run in enumerate(runs):
            values = [str(run.summary.id), run.summary.kind]
            values += [_value(run, n) for n in names]
            for c, text in enumerate(values):
                self.table.setItem(r, c, QTableWidgetItem(text))
        self.table.resizeColumnsToContents()
        for combo, items in ((self.metric_combo, names),
                             (self.x_combo, [VOCABULARY, *config_fields(runs)])):
            current = combo.currentText()
            combo.blockSignals(True)
            combo.clear()
            combo.addItems(items)
            if current in items:
                combo.setCurrentText(current)
            elif combo is self.metric_combo and "f1" in items:
                combo.setCurrentText("f1")
            elif combo is self.metric_combo and "fertility" in items:
                combo.setCurrentText("fertility")
            combo.blockSignals(False)
        self.redraw()

    def series(self) -> list[tuple[str, list[tuple[float, float]]]]:
        """What the plot shows: (label, points) per line."""
        metric, x = self.metric_combo.currentText(), self.x_combo.currentText()
        if not metric:
            return []
        if x == VOCABULARY:
            return [(f"run {r.summary.id}", sweep_points(r, metric)) for r in self.runs
                    if sweep_points(r, metric)]
        points = []
        for r in self.runs:
            value = r.config.get(x)
            y = _mean(r, metric)
            if _is_number(value) and y is not None:
                points.append((float(value), y))
        return [(f"{metric} by {x}", sorted(points))] if points else []

    def redraw(self) -> None:
        self.plot.clear()
        self.plot.setLabel("left", self.metric_combo.currentText())
        self.plot.setLabel("bottom", self.x_combo.currentText())
        for k, (label, points) in enumerate(self.series()):
            colour = COLOURS_FOR_PLOTS[k % len(COLOURS_FOR_PLOTS)]
            self.plot.plot([p[0] for p in points], [p[1] for p in points], name=label,
                           pen=pg.mkPen(colour, width=2), symbol="o", symbolSize=6,
                           symbolBrush=colour)
        self.plot.enableAutoRange()


def config_fields(runs: list[RunDetails]) -> list[str]:
    """The numeric options of the runs' configurations (what a point can be plotted at)."""
    return sorted({k for r in runs for k, v in r.config.items() if _is_number(v)})


def _is_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _mean(run: RunDetails, metric: str) -> float | None:
    values = [m.value for m in run.metrics if m.metric == metric and m.vocab_size is None]
    return sum(values) / len(values) if values else None


def _value(run: RunDetails, metric: str) -> str:
    value = _mean(run, metric)
    return "" if value is None else f"{value:.4g}"
