"""The vocabulary plots: merge-count curve, Zipf rank-frequency, token length histogram.

Each plot is computed when first shown (or exported), not when the model arrives: the
Zipf plot encodes the model's training words, which the user may never look at.
"""

from __future__ import annotations

import os
import weakref
from typing import Callable

import numpy as np
import pyqtgraph as pg
import shiboken6
from pyqtgraph.exporters import ImageExporter, SVGExporter
from PySide6.QtCore import QBuffer, QIODevice, QRect, QSize
from PySide6.QtGui import QPainter
from PySide6.QtSvg import QSvgGenerator
from PySide6.QtWidgets import QTabWidget, QVBoxLayout, QWidget

from bpe_desktop.core import BPEModel
from bpe_desktop.ui import theme
from bpe_desktop.ui.vocab_model import SPECIAL, TokenUsage, VocabColumns

#: Plot keys, in tab order, with their tab titles.
PLOTS = {"merges": "Merge counts", "zipf": "Zipf", "lengths": "Token lengths"}


# -- the data of each plot (Qt-free) ------------------------------------------------------


def merge_curve(model: BPEModel) -> tuple[np.ndarray, np.ndarray]:
    """(merge rank, count at merge) for every merge with a recorded count > 0."""
    counts = np.fromiter((-1 if m.count is None else m.count for m in model.merges),
                         dtype=np.int64, count=len(model.merges))
    ranks = np.flatnonzero(counts > 0)
    return ranks, counts[ranks]


def zipf_curve(frequencies: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(rank from 1, frequency) of the tokens that occur, most frequent first."""
    freq = np.sort(frequencies[frequencies > 0])[::-1]
    return np.arange(1, len(freq) + 1, dtype=np.int64), freq


def length_histogram(columns: VocabColumns) -> tuple[np.ndarray, np.ndarray]:
    """(length in characters, number of tokens) over the non-special tokens."""
    chars = columns.chars[columns.kind != SPECIAL]
    counts = np.bincount(chars) if len(chars) else np.zeros(0, dtype=np.int64)
    return np.arange(len(counts), dtype=np.int64), counts.astype(np.int64)


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
        self._setup_axes()
        self.tabs.currentChanged.connect(lambda _i: self._refresh_visible())
        _restyle_on_scheme_change(self)
        self.apply_theme()

    # -- public ----------------------------------------------------------------------------

    def set_model(self, model: BPEModel | None, columns: VocabColumns | None,
                  usage: Callable[[], TokenUsage] | None) -> None:
        """Plot ``model``; ``usage`` gives its segmented training words (for Zipf)."""
        self._model, self._columns, self._usage = model, columns, usage
        self._data.clear()
        self._notes.clear()
        for key in PLOTS:
            self.widgets[key].getPlotItem().clear()
        self._refresh_visible()

    def current_plot(self) -> str:
        return list(PLOTS)[self.tabs.currentIndex()]

    def show_plot(self, which: str) -> None:
        self.tabs.setCurrentIndex(list(PLOTS).index(which))

    def plot_data(self, which: str) -> tuple[np.ndarray, np.ndarray]:
        """The (x, y) arrays drawn in plot ``which`` (empty when there is nothing to draw)."""
        self._ensure(which)
        return self._data[which]

    def note(self, which: str) -> str:
        """Why plot ``which`` is empty ("" when it is not)."""
        self._ensure(which)
        return self._notes.get(which, "")

    def export(self, which: str, path: str) -> None:
        """Write plot ``which`` as PNG or SVG (by the extension); OSError if it fails."""
        if which not in PLOTS:
            raise ValueError(f"unknown plot {which!r}; choose one of {', '.join(PLOTS)}")
        ext = os.path.splitext(path)[1].lower()
        if ext not in (".png", ".svg"):
            raise ValueError(f"cannot export a plot as {ext or 'a file without extension'}: "
                             "use .png or .svg")
        self._ensure(which)
        item = self.widgets[which].getPlotItem()
        if ext == ".svg":
            data = _svg_bytes(self.widgets[which])
            with open(path, "wb") as f:
                f.write(data)
            return
        # At the widget's own size: pyqtgraph 0.14 scales the title out of the picture
        # when asked for a larger width.
        image = ImageExporter(item).export(toBytes=True)
        if not image.save(path, "PNG"):
            raise OSError(f"could not write {path}")

    def apply_theme(self) -> None:
        """Re-colour the plots for the current light/dark scheme."""
        for widget in self.widgets.values():
            theme.style_plot(widget)
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
        if which in self._data:
            return
        x, y, note = self._compute(which)
        self._data[which] = (x, y)
        if note:
            self._notes[which] = note
        self._draw(which)

    def _compute(self, which: str) -> tuple[np.ndarray, np.ndarray, str]:
        empty = np.zeros(0, dtype=np.int64)
        model = self._model
        if model is None or self._columns is None:
            return empty, empty, "No model"
        if which == "merges":
            if not model.merges:
                return empty, empty, "This model has no merges"
            x, y = merge_curve(model)
            return x, y, "" if len(x) else "This model does not record merge counts"
        if which == "zipf":
            if not model.words or self._usage is None:
                return empty, empty, "This model keeps no training words"
            x, y = zipf_curve(self._usage().frequencies())
            return x, y, "" if len(x) else "No token occurs in the training words"
        x, y = length_histogram(self._columns)
        return x, y, "" if y.any() else "No tokens"

    def _draw(self, which: str) -> None:
        colors = theme.plot_colors()
        item = self.widgets[which].getPlotItem()
        item.clear()
        x, y = self._data[which]
        note = self._notes.get(which, "")
        title = PLOTS[which] + (f" — {note}" if note else "")
        item.setTitle(title, color=colors["foreground"])
        if not len(x):
            return
        pen = pg.mkPen(colors["curve"], width=1.5)
        if which == "lengths":
            edges = np.append(x, x[-1] + 1) - 0.5
            item.plot(edges, y, stepMode="center", pen=pen, fillLevel=0,
                      brush=pg.mkBrush(colors["curve"] + "80"))
        else:
            item.plot(x, y, pen=pen)

    def _setup_axes(self) -> None:
        labels = {"merges": ("merge rank", "count at merge"),
                  "zipf": ("rank", "frequency in the training words"),
                  "lengths": ("length (characters)", "tokens")}
        for key, (bottom, left) in labels.items():
            item = self.widgets[key].getPlotItem()
            item.setLabel("bottom", bottom)
            item.setLabel("left", left)
            item.showGrid(x=True, y=True, alpha=0.3)
            if key != "lengths":  # 100,000-point curves; a step histogram cannot be clipped
                item.setDownsampling(auto=True, mode="peak")
                item.setClipToView(True)
        self.widgets["merges"].getPlotItem().setLogMode(x=False, y=True)
        self.widgets["zipf"].getPlotItem().setLogMode(x=True, y=True)


def _svg_bytes(widget: pg.PlotWidget) -> bytes:
    """The plot as SVG: pyqtgraph's exporter, or Qt's SVG generator where that fails.

    pyqtgraph 0.14's exporter cannot parse the path data newer Qt versions write
    (pyqtgraph issue #3485: ``x,y = c.split(',')`` raises ValueError).
    """
    try:
        return SVGExporter(widget.getPlotItem()).export(toBytes=True)
    except ValueError:
        pass
    buffer = QBuffer()
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    size = widget.size() if widget.width() > 10 else QSize(800, 600)
    generator = QSvgGenerator()
    generator.setOutputDevice(buffer)
    generator.setSize(size)
    generator.setViewBox(QRect(0, 0, size.width(), size.height()))
    generator.setTitle(widget.getPlotItem().titleLabel.text)
    painter = QPainter(generator)
    try:
        widget.render(painter)
    finally:
        painter.end()
    return bytes(buffer.data())


def _restyle_on_scheme_change(plots: VocabPlots) -> None:
    # theme.on_scheme_change keeps the callback forever: hold the widget weakly, so a
    # closed panel is neither kept alive nor called after Qt deleted it.
    ref = weakref.ref(plots)

    def restyle() -> None:
        widget = ref()
        if widget is not None and shiboken6.isValid(widget):
            widget.apply_theme()

    theme.on_scheme_change(restyle)
