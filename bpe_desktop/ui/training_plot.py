"""Live plot of each merged pair's count against the merge step (log scale)."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg

from bpe_desktop.ui import theme


class MergeCountPlot(pg.PlotWidget):
    """Counts arrive in batches; the curve is redrawn at most once per batch."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self._counts = np.zeros(1024, dtype=np.float64)
        self._size = 0
        item = self.getPlotItem()
        item.setLogMode(x=False, y=True)
        item.showGrid(x=True, y=True, alpha=0.3)
        item.setLabel("bottom", "merge step")
        item.setLabel("left", "count of the merged pair")
        item.setMenuEnabled(False)
        self.setMinimumHeight(160)
        self._curve = item.plot([], [])
        self._curve.setClipToView(True)
        self._curve.setDownsampling(auto=True, method="peak")
        self.restyle()
        theme.on_scheme_change(self.restyle)

    def restyle(self) -> None:
        theme.style_plot(self)
        self._curve.setPen(pg.mkPen(theme.plot_colors()["curve"], width=1.5))

    def clear_counts(self) -> None:
        self._size = 0
        self._curve.setData([], [])

    def add_counts(self, counts) -> None:
        if not len(counts):
            return
        need = self._size + len(counts)
        if need > len(self._counts):
            grown = np.zeros(max(need, 2 * len(self._counts)), dtype=np.float64)
            grown[: self._size] = self._counts[: self._size]
            self._counts = grown
        self._counts[self._size:need] = counts
        self._size = need
        self._redraw()

    def set_counts(self, counts) -> None:
        self._size = 0
        self.add_counts(np.asarray(counts, dtype=np.float64))
        if not len(counts):
            self._curve.setData([], [])

    def counts(self) -> np.ndarray:
        return self._counts[: self._size].copy()

    def _redraw(self) -> None:
        y = self._counts[: self._size]
        # log scale: a count is at least 1 when merged (min frequency >= 1)
        self._curve.setData(np.arange(1, self._size + 1, dtype=np.float64), np.maximum(y, 1.0))
