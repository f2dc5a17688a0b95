"""Cheap grids and axes for the pyqtgraph plots.

pyqtgraph's own grid (``PlotItem.showGrid``) is drawn by the axes: with it, repainting a
700×400 plot takes 20–30 ms offscreen, mostly replaying the axes' pictures, and it repaints
on every data update. A :class:`pyqtgraph.GridItem` in the view costs about 1 ms, and axes
cached as pixmaps cost nothing until their range changes. Decades are the grid's only
lines on a log axis (the item spaces lines evenly in view coordinates, which there are
powers of ten).
"""

from __future__ import annotations

import contextlib
from typing import Iterator

import pyqtgraph as pg
from PySide6.QtWidgets import QGraphicsItem

from bpe_desktop.ui.common import theme

AXES = ("left", "bottom")


def add_grid(item: pg.PlotItem, *, log_x: bool = False, log_y: bool = False) -> pg.GridItem:
    """A faint grid behind ``item``'s data, ignored by auto-ranging."""
    grid = pg.GridItem(textPen=None)
    grid.setTickSpacing(x=[1.0] if log_x else [None, None],
                        y=[1.0] if log_y else [None, None])
    grid.setZValue(-100)
    item.addItem(grid, ignoreBounds=True)
    style_grid(grid)
    return grid


def style_grid(grid: pg.GridItem) -> None:
    """Colour the grid for the current light/dark scheme (the item fades it itself)."""
    grid.setPen(pg.mkPen(theme.plot_colors()["foreground"]))


def cache_axes(item: pg.PlotItem) -> None:
    """Draw the axes from a pixmap while their range and style stay the same."""
    for name in AXES:
        item.getAxis(name).setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)


@contextlib.contextmanager
def axes_drawn_directly(item: pg.PlotItem) -> Iterator[None]:
    """Axes without their pixmap cache (for exports: an SVG must get vector axes)."""
    axes = [item.getAxis(name) for name in AXES]
    modes = [axis.cacheMode() for axis in axes]
    for axis in axes:
        axis.setCacheMode(QGraphicsItem.CacheMode.NoCache)
    try:
        yield
    finally:
        for axis, mode in zip(axes, modes):
            axis.setCacheMode(mode)
