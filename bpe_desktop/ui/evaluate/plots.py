"""The Evaluate panel's pyqtgraph plots: metric curves over vocabulary size, parity bars."""

from __future__ import annotations

import os
from collections.abc import Sequence

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFontMetrics
from PySide6.QtWidgets import QGridLayout, QWidget

from bpe_desktop.core.evaluation import ParityResult, SweepPoint
from bpe_desktop.ui.common import plot_grid, theme

#: The sweep's curves: key -> (title, y label).
SWEEP_PLOTS = {"f1": ("Boundary F1", "F1"), "morphscore": ("MorphScore", "MorphScore"),
               "fertility": ("Fertility", "tokens per word"),
               "renyi": ("Rényi efficiency", "efficiency (α = 2.5)")}
#: Line colours of the gold files' curves, in order.
#: Bars of languages with many unknown tokens (their parity is not comparable).
UNKNOWN_COLOR = "#e03131"
SERIES_COLORS = ("#1f6fc5", "#d9480f", "#2f9e44", "#9c36b5", "#e8590c", "#0c8599")


def _DASHED():
    return pg.mkPen("#888888", style=Qt.PenStyle.DashLine)


def sweep_series(points: Sequence[SweepPoint], key: str
                 ) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """The curves of plot ``key``: series name -> (vocabulary sizes, values)."""
    x = np.array([p.vocab_size for p in points], dtype=float)
    if not points:
        return {}
    if key in ("f1", "morphscore"):
        return {name: (x, np.array([getattr(p.morphology[name], key) for p in points]))
                for name in points[0].morphology}
    if points[0].text is None:
        return {}
    attr = "fertility" if key == "fertility" else "renyi_efficiency"
    return {"text": (x, np.array([getattr(p.text, attr) for p in points]))}


#: Ticks per decade, densest first: 1-2-5, 1-3, 1; then every n-th decade.
_TICK_STEPS = ((1, 2, 5), (1, 3), (1,))
#: Room around a tick label (px), so that neighbours never touch.
_LABEL_GAP = 12


class VocabSizeAxis(pg.AxisItem):
    """A log axis of vocabulary sizes: labels as numbers (``2,000``), only as many as fit
    the axis's width without overlapping (pyqtgraph's own log ticks crowd it)."""

    def tickValues(self, minVal, maxVal, size):  # noqa: N802 (pyqtgraph's name)
        if not self.logMode or maxVal <= minVal or size <= 0:
            return super().tickValues(minVal, maxVal, size)
        return [(1.0, self.fitting_ticks(minVal, maxVal, size)), (1.0, [])]

    def fitting_ticks(self, low: float, high: float, size: float) -> list[float]:
        """log10 of the sizes to label between 10**low and 10**high on ``size`` px."""
        per_decade = size / (high - low)
        width = self.fontMetrics().horizontalAdvance("00,000") + _LABEL_GAP
        first, last = int(np.floor(low)), int(np.ceil(high))
        for steps in _TICK_STEPS:
            values = [np.log10(m) + e for e in range(first, last + 1) for m in steps]
            values = [v for v in values if low <= v <= high]
            gaps = np.diff(values) * per_decade
            if len(values) >= 2 and gaps.min(initial=np.inf) >= width:
                return values
        every = max(1, int(np.ceil(width / per_decade)))
        return [float(e) for e in range(first, last + 1) if low <= e <= high and e % every == 0]

    def fontMetrics(self):  # noqa: N802
        from PySide6.QtGui import QFontMetrics

        return QFontMetrics(self.style.get("tickFont") or self.font())

    def tickStrings(self, values, scale, spacing):  # noqa: N802
        if not self.logMode:
            return super().tickStrings(values, scale, spacing)
        return [f"{round(10 ** v):,}" for v in values]


class SweepPlots(QWidget):
    """Four curves against vocabulary size (log x); the current and chosen sizes marked.

    Clicking near a point emits ``point_clicked`` with its index.
    """

    point_clicked = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = QGridLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.widgets: dict[str, pg.PlotWidget] = {}
        self._markers: dict[str, tuple[pg.InfiniteLine, pg.InfiniteLine]] = {}
        self._points: list[SweepPoint] = []
        for i, (key, (title, label)) in enumerate(SWEEP_PLOTS.items()):
            w = pg.PlotWidget(axisItems={"bottom": VocabSizeAxis("bottom")})
            w.setObjectName(f"sweep_{key}")
            theme.style_plot(w)
            item = w.getPlotItem()
            item.setTitle(title)
            item.setLabel("bottom", "vocabulary size")
            item.setLabel("left", label)
            item.setLogMode(x=True, y=False)
            item.getAxis("left").enableAutoSIPrefix(False)
            # The legend goes under the axis title: inside the plot it covered the curves.
            item.legend = pg.LegendItem(colCount=2)
            item.layout.addItem(item.legend, 4, 1)
            plot_grid.add_grid(item, log_x=True)
            current = pg.InfiniteLine(angle=90, pen=_DASHED())
            chosen = pg.InfiniteLine(angle=90, pen=pg.mkPen(theme.plot_colors()["accent"]))
            for line in (current, chosen):
                line.setVisible(False)
                item.addItem(line, ignoreBounds=True)
            self._markers[key] = (current, chosen)
            w.scene().sigMouseClicked.connect(lambda ev, k=key: self._on_click(k, ev))
            self.widgets[key] = w
            layout.addWidget(w, i // 2, i % 2)

    def set_points(self, points: Sequence[SweepPoint], current_size: int | None) -> None:
        self._points = list(points)
        for key, w in self.widgets.items():
            item = w.getPlotItem()
            for curve in [c for c in item.listDataItems()]:
                item.removeItem(curve)
            if item.legend is not None:
                item.legend.clear()
            for n, (name, (x, y)) in enumerate(sweep_series(self._points, key).items()):
                color = SERIES_COLORS[n % len(SERIES_COLORS)]
                item.plot(x, y, pen=pg.mkPen(color, width=2), symbol="o", symbolSize=5,
                          symbolBrush=color, name=name)
            current, chosen = self._markers[key]
            current.setVisible(current_size is not None and bool(points))
            if current_size:
                current.setValue(np.log10(current_size))
            chosen.setVisible(False)

    def mark_chosen(self, index: int | None) -> None:
        for current, chosen in self._markers.values():
            visible = index is not None and 0 <= index < len(self._points)
            chosen.setVisible(visible)
            if visible:
                chosen.setValue(np.log10(self._points[index].vocab_size))

    def _on_click(self, key: str, event) -> None:
        if not self._points:
            return
        view = self.widgets[key].getPlotItem().vb
        x = view.mapSceneToView(event.scenePos()).x()
        sizes = np.log10([p.vocab_size for p in self._points])
        self.point_clicked.emit(int(np.argmin(np.abs(sizes - x))))


class ParityChart(pg.PlotWidget):
    """One bar per language: its token count relative to the reference (dashed at 1).

    A language with many unknown tokens looks cheap; its bar is drawn in the warning
    colour and its label carries the unknown rate."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("parity_chart")
        theme.style_plot(self)
        item = self.getPlotItem()
        item.setTitle("Parity (tokens relative to the reference)")
        item.setLabel("left", "parity")
        plot_grid.add_grid(item)
        self.bars: pg.BarGraphItem | None = None
        self.values: list[float] = []
        self.names: list[str] = []
        self.labels: list[str] = []

    def set_parity(self, parity: ParityResult | None) -> None:
        item = self.getPlotItem()
        item.clear()
        plot_grid.add_grid(item)
        self.names = [r.name for r in parity.rows] if parity else []
        self.values = [r.parity for r in parity.rows] if parity else []
        self.labels = []
        if not parity:
            self._fit_labels()
            return
        colors = [UNKNOWN_COLOR if r.unknown_high else theme.plot_colors()["accent"]
                  if r.name == parity.reference else theme.plot_colors()["curve"]
                  for r in parity.rows]
        self.bars = pg.BarGraphItem(x=np.arange(len(self.values)), height=self.values,
                                    width=0.7, brushes=colors)
        item.addItem(self.bars)
        item.addItem(pg.InfiniteLine(pos=1.0, angle=0, pen=_DASHED()))
        # the name without its extension; folders stay (de/udhr, fr/udhr)
        self.labels = [os.path.splitext(r.name)[0] + (f"\n⚠ {r.unknown_rate:.0%} unknown"
                                            if r.unknown_high else "") for r in parity.rows]
        item.getAxis("bottom").setTicks([list(enumerate(self.labels))])
        self._fit_labels()

    def _fit_labels(self) -> None:
        """pyqtgraph keeps room for one line of tick text: a label's second line (the
        unknown rate) was cut off."""
        axis = self.getPlotItem().getAxis("bottom")
        lines = max((label.count("\n") + 1 for label in self.labels), default=1)
        spacing = QFontMetrics(axis.style["tickFont"] or self.font()).lineSpacing()
        axis.setHeight(None if lines == 1 else
                       lines * spacing + axis.style["tickTextOffset"][1] + 4)
