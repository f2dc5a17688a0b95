"""The vocabulary plots: merge-count curve, Zipf rank-frequency, token length histogram.

The panel computes the plots' data in its worker thread with the rest of the model's
vocabulary (:func:`compute_plot`) and hands it over with :meth:`VocabPlots.set_data`;
a model set with :meth:`VocabPlots.set_model` instead has each plot computed when first
shown (or exported). Drawing stays cheap at 100,000 points: curves are clipped to the
view and downsampled, and the grid and axes are the cheap kind of :mod:`plot_grid`.
"""

from __future__ import annotations

import weakref
from typing import Callable

import numpy as np
import pyqtgraph as pg
import shiboken6
from PySide6.QtWidgets import QTabWidget, QVBoxLayout, QWidget

from bpe_desktop.core import BPEModel

from bpe_desktop.core import release
from bpe_desktop.views.vocab_plot_data import PLOTS, PlotSeries, compute_plot
from bpe_desktop.views.vocab_table import TokenUsage, VocabColumns
from bpe_desktop.ui.common import plot_grid, theme
from bpe_desktop.ui.common.plot_export import export_plot

#: The Zipf curve is drawn through at most this many ranks, evenly spaced on its log
#: axis (pyqtgraph's downsampling bins consecutive points: on a log axis that would
#: flatten the first hundred ranks into one step).
ZIPF_POINTS = 2000


# -- the widget --------------------------------------------------------------------------


class VocabPlots(QWidget):
    """Three PlotWidgets in tabs; ``set_model`` marks them stale, showing recomputes."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.tabs = QTabWidget(self)
        self.tabs.setDocumentMode(True)
        self.widgets: dict[str, pg.PlotWidget] = {}
        for key, title in PLOTS.items():
            widget = pg.PlotWidget()
            widget.setObjectName(f"plot_{key}")
            widget.getPlotItem().setMenuEnabled(False)
            self.widgets[key] = widget
            self.tabs.addTab(widget, title)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.tabs)
        self._model: BPEModel | None = None
        self._columns: VocabColumns | None = None
        self._usage: Callable[[], TokenUsage] | None = None
        self._data: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        self._notes: dict[str, str] = {}
        self._stale: set[str] = set(PLOTS)  # plots whose drawing is not their data's
        self._titles: dict[str, tuple[str, str]] = {}  # (title, colour) each plot shows
        self._grids: dict[str, pg.GridItem] = {}
        self._setup_axes()
        self.tabs.currentChanged.connect(lambda _i: self._refresh_visible())
        _restyle_on_scheme_change(self)
        self.apply_theme()

    # -- public ----------------------------------------------------------------------------

    def set_model(self, model: BPEModel | None, columns: VocabColumns | None,
                  usage: Callable[[], TokenUsage] | None) -> None:
        """Plot ``model``; ``usage`` gives its segmented training words (for Zipf).
        Each plot is computed when first shown."""
        self._clear()
        self._model, self._columns, self._usage = model, columns, usage
        self._refresh_visible()

    def set_data(self, model: BPEModel, columns: VocabColumns,
                 data: dict[str, PlotSeries]) -> None:
        """Plot ``model`` from data computed beforehand (:func:`compute_plot`)."""
        self._clear()
        self._model, self._columns, self._usage = model, columns, None
        for which, (x, y, note) in data.items():
            self._data[which] = (x, y)
            if note:
                self._notes[which] = note
        self._refresh_visible()

    def set_loading(self, text: str) -> None:
        """No data while the next model loads: each plot's title says ``text``."""
        self._clear()
        empty = np.zeros(0, dtype=np.int64)
        for which in PLOTS:
            self._data[which] = (empty, empty)
            self._notes[which] = text
        self._refresh_visible()

    def _clear(self) -> None:
        """Forget the model shown: what was computed for it is freed on the release thread
        (its columns' last holder may be this panel: ~100,000 strings at 100,000 tokens)."""
        release.retire((self._model, self._columns, self._data))
        self._model = self._columns = self._usage = None
        self._data = {}
        self._notes.clear()
        self._stale = set(PLOTS)  # drawn for an earlier model (or not at all)

    def current_plot(self) -> str:
        return list(PLOTS)[self.tabs.currentIndex()]

    def plot_data(self, which: str) -> tuple[np.ndarray, np.ndarray]:
        """The (x, y) arrays drawn in plot ``which`` (empty when there is nothing to draw)."""
        self._ensure(which)
        return self._data[which]

    def note(self, which: str) -> str:
        """Why plot ``which`` is empty ("" when it is not)."""
        self._ensure(which)
        return self._notes.get(which, "")

    def export(self, which: str, path: str) -> None:
        """Write plot ``which`` as PNG or SVG (by the extension), atomically; ValueError
        for an unknown plot or extension, OSError if it cannot be written."""
        if which not in PLOTS:
            raise ValueError(f"unknown plot {which!r}; choose one of {', '.join(PLOTS)}")
        self._ensure(which)
        export_plot(self.widgets[which], path)

    def apply_theme(self) -> None:
        """Re-colour the plots for the current light/dark scheme."""
        for widget in self.widgets.values():
            theme.style_plot(widget)
        for grid in self._grids.values():
            plot_grid.style_grid(grid)
        for key in list(self._data):
            self._draw(key)

    # -- computing and drawing -------------------------------------------------------------

    def showEvent(self, event) -> None:  # noqa: N802 - Qt override
        super().showEvent(event)
        self._refresh_visible()

    def _refresh_visible(self) -> None:
        if self.isVisible():
            self._ensure(self.current_plot())

    def _ensure(self, which: str) -> None:
        """Compute plot ``which`` if need be, and draw it if its drawing is stale."""
        if which not in self._data:
            x, y, note = compute_plot(which, self._model, self._columns, self._usage)
            self._data[which] = (x, y)
            if note:
                self._notes[which] = note
        if which in self._stale:
            self._draw(which)

    def _draw(self, which: str) -> None:
        """Draw plot ``which`` from its data. Its curve is updated in place: removing a
        curve of 100,000 points from the scene and adding a new one took 4-5 ms of the GUI
        thread at each change of model; so did setting an unchanged title (a layout)."""
        self._stale.discard(which)
        colors = theme.plot_colors()
        item = self.widgets[which].getPlotItem()
        x, y = self._data[which]
        note = self._notes.get(which, "")
        title = (PLOTS[which] + (f" — {note}" if note else ""), colors["foreground"])
        if self._titles.get(which) != title:
            item.setTitle(title[0], color=title[1])
            self._titles[which] = title
        curves = item.listDataItems()  # the grid is not one
        if not len(x):
            for curve in curves:
                curve.clear()
            return
        pen = pg.mkPen(colors["curve"], width=1)
        if which == "zipf" and len(x) > ZIPF_POINTS:
            keep = np.unique(np.geomspace(1, len(x), ZIPF_POINTS).astype(np.int64)) - 1
            x, y = x[keep], y[keep]
        if which == "lengths":
            x = np.append(x, x[-1] + 1) - 0.5  # the bars' edges
            style = {"stepMode": "center", "pen": pen, "fillLevel": 0,
                     "brush": pg.mkBrush(colors["curve"] + "80")}
        else:
            style = {"pen": pen}
        if curves:
            curves[0].setData(x, y, **style)
        else:
            item.plot(x, y, **style)
        item.enableAutoRange()  # fit the new data (a user's zoom was for the old)

    def _setup_axes(self) -> None:
        labels = {"merges": ("merge rank", "count at merge"),
                  "zipf": ("rank", "frequency in the training words"),
                  "lengths": ("length (characters)", "tokens")}
        logs = {"merges": (False, True), "zipf": (True, True), "lengths": (False, False)}
        for key, (bottom, left) in labels.items():
            item = self.widgets[key].getPlotItem()
            item.setLabel("bottom", bottom)
            item.setLabel("left", left)
            log_x, log_y = logs[key]
            item.setLogMode(x=log_x, y=log_y)
            self._grids[key] = plot_grid.add_grid(item, log_x=log_x, log_y=log_y)
            plot_grid.cache_axes(item)
            if key == "merges":  # 100,000 points; Zipf draws few, a histogram cannot be cut
                item.setDownsampling(auto=True, mode="peak")
                item.setClipToView(True)


def _restyle_on_scheme_change(plots: VocabPlots) -> None:
    # theme.on_scheme_change keeps the callback forever: hold the widget weakly, so a
    # closed panel is neither kept alive nor called after Qt deleted it.
    ref = weakref.ref(plots)

    def restyle() -> None:
        widget = ref()
        if widget is not None and shiboken6.isValid(widget):
            widget.apply_theme()

    theme.on_scheme_change(restyle)
