"""Live plot of each merged pair's count against the merge step (log scale).

Progress arrives up to ten times a second and every update repaints the plot, so a
repaint must stay far below a frame: the axes keep a fixed range, drawn from a cached
pixmap nearly always. The step axis is set once, with the first progress, to the most
merges the run can learn when that is known (else it grows in 1-2-5 steps), and the count
axis to whole decades from the first merge, whose count no later merge exceeds (a merge
creates pairs no more frequent than itself). A change of range costs 2-3 ms of the GUI
thread and 5 ms in the next repaint. The grid is a cheap :class:`pyqtgraph.GridItem`;
and the curve is clipped to the view and downsampled to about one point per pixel column.
"""

from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QTimer

from bpe_desktop.ui.common import plot_grid, theme

#: The merge-step axis starts this long and grows in 1-2-5 steps.
MIN_STEPS = 1000


def nice_ceiling(n: float) -> float:
    """The smallest of 1, 2, 5, 10, 20, 50, … that is >= ``n`` (at least MIN_STEPS)."""
    n = max(float(n), MIN_STEPS)
    decade = 10.0 ** math.floor(math.log10(n))
    for step in (1, 2, 5, 10):
        if step * decade >= n:
            return step * decade
    return 10 * decade  # unreachable: 10 * decade > n


class MergeCountPlot(pg.PlotWidget):
    """Counts arrive in batches; the curve is redrawn once for the batches that arrive
    together, in an event-loop pass of its own (the one that brought them stays short)."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self._counts = np.zeros(1024, dtype=np.float64)
        self._size = 0
        self._range: tuple[float, float] | None = None  # (last step, top decade) shown
        self._expected_merges: int | None = None
        item = self.getPlotItem()
        item.setLogMode(x=False, y=True)
        item.setLabel("bottom", "merge step")
        item.setLabel("left", "count of the merged pair")
        item.setMenuEnabled(False)
        item.disableAutoRange()
        self._grid = plot_grid.add_grid(item, log_y=True)
        plot_grid.cache_axes(item)
        for name in plot_grid.AXES:
            # Major ticks only: the minor ones' labels are measured one by one whenever
            # the range changes, a large share of that repaint.
            item.getAxis(name).setStyle(maxTickLevel=0)
        self.setMinimumHeight(160)
        self._curve = item.plot([], [])
        self._curve.setClipToView(True)
        self._curve.setDownsampling(auto=True, method="peak")
        self._redraw_timer = QTimer(self)
        self._redraw_timer.setSingleShot(True)
        self._redraw_timer.setInterval(0)
        self._redraw_timer.timeout.connect(self._redraw)
        self._fit_range()
        self.restyle()
        theme.on_scheme_change(self.restyle)

    def restyle(self) -> None:
        theme.style_plot(self)
        plot_grid.style_grid(self._grid)
        # A cosmetic 1-pixel pen: wider pens cost several ms per repaint at 30,000 points.
        self._curve.setPen(pg.mkPen(theme.plot_colors()["curve"], width=1))

    def expect_merges(self, merges: int) -> None:
        """The run will learn at most about this many merges (a limit from its options,
        then the engine's target once merging starts): the step axis shows them all."""
        if merges != self._expected_merges:
            self._expected_merges = merges
            self._fit_range()

    def clear_counts(self) -> None:
        """A new run: no counts, and the axes it starts with (unchanged if they are those
        already: a change of range is a costly repaint in the pass that starts a run)."""
        self._size = 0
        self._expected_merges = None
        self._redraw_timer.stop()
        if self._curve.xData is not None and self._curve.xData.size:
            self._curve.setData([], [])  # (a repaint, not needed by the first run)
        if self._range != (MIN_STEPS, 1.0):
            self._range = None
            self._fit_range()

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
        self._redraw_timer.start()

    def flush(self) -> None:
        """Draw the counts that arrived now, not in the next pass."""
        if self._redraw_timer.isActive():
            self._redraw_timer.stop()
            self._redraw()

    def set_counts(self, counts) -> None:
        self._size = 0
        self.add_counts(np.asarray(counts, dtype=np.float64))
        self.flush()
        if not len(counts):
            self._curve.setData([], [])
            self._fit_range()

    def fit_to_data(self) -> None:
        """Training ended: the step axis ends at the last merge, not at the next 1-2-5
        step it grew to while counts were arriving (2,899 merges on a 5,000 axis)."""
        self.flush()
        self._expected_merges = self._size
        top = float(self._counts[: self._size].max()) if self._size else 1.0
        fitted = (float(max(self._size, 1)), max(1.0, math.ceil(math.log10(max(top, 1.0)))))
        if fitted == self._range:
            return
        self._range = fitted
        self.getPlotItem().setRange(xRange=(0, fitted[0]), yRange=(0, fitted[1]),
                                    padding=0.02)

    def counts(self) -> np.ndarray:
        return self._counts[: self._size].copy()

    def shown_range(self) -> tuple[float, float]:
        """(last merge step, top count) the axes show."""
        steps, decades = self._range
        return steps, 10.0 ** decades

    def _redraw(self) -> None:
        y = self._counts[: self._size]
        # log scale: a count is at least 1 when merged (min frequency >= 1)
        self._curve.setData(np.arange(1, self._size + 1, dtype=np.float64), np.maximum(y, 1.0))
        self._fit_range()

    def _fit_range(self) -> None:
        """Grow the axes to hold every point; keep them as they are otherwise. The step
        axis may also shrink to an expected number of merges well below it (an options'
        limit on the vocabulary counts the characters as merges)."""
        top = float(self._counts[: self._size].max()) if self._size else 1.0
        decades = max(1.0, math.ceil(math.log10(max(top, 1.0))))
        expected = self._expected_merges
        if expected and self._size <= expected:
            steps, widest = float(expected), 1.25 * expected
        else:
            steps, widest = nice_ceiling(self._size), math.inf
        shown = self._range
        if shown is not None and steps <= shown[0] <= widest and decades <= shown[1]:
            return
        wanted = (steps, max(decades, shown[1]) if shown is not None else decades)
        self._range = wanted
        self.getPlotItem().setRange(xRange=(0, wanted[0]), yRange=(0, wanted[1]),
                                    padding=0.02)
