"""Tokens per line, tokenizer A against B: a scatter plot with the diagonal."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt

from bpe_desktop.ui.common import theme


class LineTokensScatter(pg.PlotWidget):
    """One point per line of the text: (tokens by A, tokens by B)."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.x = np.zeros(0)
        self.y = np.zeros(0)
        item = self.getPlotItem()
        item.showGrid(x=True, y=True, alpha=0.25)
        self.points = pg.ScatterPlotItem(size=6, pen=None,
                                         brush=pg.mkBrush(theme.plot_colors()["accent"]))
        self.diagonal = pg.PlotDataItem(pen=pg.mkPen("#888888", style=Qt.PenStyle.DashLine))
        item.addItem(self.diagonal)
        item.addItem(self.points)
        self.restyle()
        theme.on_scheme_change(self.restyle)

    def restyle(self) -> None:
        """The current light or dark scheme (pyqtgraph's own default is a black plot)."""
        theme.style_plot(self)
        self.points.setBrush(pg.mkBrush(theme.plot_colors()["accent"]))

    def set_counts(self, a_name: str, b_name: str, a: list[int], b: list[int]) -> None:
        self.x, self.y = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
        # One spot per distinct (A, B) pair: the spots are opaque, so lines of the same
        # counts look the same drawn once, and a long text's 10,000s of lines are few
        # pairs (pyqtgraph makes Python objects per spot, on the GUI thread).
        distinct = np.unique(np.column_stack([self.x, self.y]), axis=0)
        self.points.setData(distinct[:, 0], distinct[:, 1])
        top = float(max(self.x.max(initial=0), self.y.max(initial=0), 1))
        self.diagonal.setData([0, top], [0, top])
        item = self.getPlotItem()
        item.setLabel("bottom", f"tokens per line: {a_name}")
        item.setLabel("left", f"tokens per line: {b_name}")
        item.enableAutoRange()

    def clear_counts(self) -> None:
        self.x, self.y = np.zeros(0), np.zeros(0)
        self.points.setData([], [])
        self.diagonal.setData([], [])
