"""A pyqtgraph plot written as PNG or SVG, atomically: the one export every panel uses."""

from __future__ import annotations

import os
from pathlib import Path

import pyqtgraph as pg
from pyqtgraph.exporters import ImageExporter, SVGExporter
from PySide6.QtCore import QBuffer, QIODevice, QRect, QSize
from PySide6.QtGui import QPainter
from PySide6.QtSvg import QSvgGenerator

from bpe_desktop.core.safe_write import write_files
from bpe_desktop.ui.common import plot_grid

#: The formats a plot is written in, by file extension.
PLOT_FORMATS = (".png", ".svg")


def export_plot(widget: pg.PlotWidget, path: str) -> None:
    """Write the plot as PNG or SVG (by the extension) through a temporary file and a
    rename, so a failed export leaves any earlier file as it was. ValueError for another
    extension; OSError naming the path if it cannot be written."""
    ext = os.path.splitext(path)[1].lower()
    if ext not in PLOT_FORMATS:
        raise ValueError(f"cannot export a plot as {ext or 'a file without extension'}: "
                         "use .png or .svg")
    item = widget.getPlotItem()
    with plot_grid.axes_drawn_directly(item):
        if ext == ".svg":
            data = svg_bytes(widget)
        else:
            # At the widget's own size: pyqtgraph 0.14 scales the title out of the
            # picture when asked for a larger width.
            image = ImageExporter(item).export(toBytes=True)
            buffer = QBuffer()
            buffer.open(QIODevice.OpenModeFlag.WriteOnly)
            if not image.save(buffer, "PNG"):
                raise OSError(f"could not write {path}")
            data = bytes(buffer.data())
    write_files([(Path(path), data)])


def svg_bytes(widget: pg.PlotWidget) -> bytes:
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
