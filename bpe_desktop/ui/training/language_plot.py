"""Live plot of parity-aware training: each language's development tokens per line (or
per whole document) against the merge step, one curve per language.

A point arrives with each progress report (ten a second at most), so the curves are
redrawn in a pass of their own, as the merge-count plot is; the plot is hidden for runs
without a development set.
"""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtCore import Qt, QTimer

from bpe_desktop.ui.common import theme

#: Distinguishable for colour-blind readers (Okabe-Ito), each at least 2:1 in contrast on
#: the light and the dark plot background (so not Okabe-Ito's yellow and black, which
#: vanish on white and on the dark background: purple and grey instead).
COLOURS = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#D55E00", "#56B4E9", "#9467BD",
           "#888888")
#: After every colour has been used, the next languages' curves are dashed, then dotted...
STYLES = (Qt.PenStyle.SolidLine, Qt.PenStyle.DashLine, Qt.PenStyle.DotLine,
          Qt.PenStyle.DashDotLine)


#: The left axis, for development lines and for whole documents.
UNIT_LABELS = {False: "development tokens per line", True: "development tokens (whole document)"}


class LanguageCurves(pg.PlotWidget):
    """Development tokens per line (or per whole document) of each language against the
    merge step."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        item = self.getPlotItem()
        item.setLabel("bottom", "merge step")
        item.setLabel("left", UNIT_LABELS[False])
        item.setMenuEnabled(False)
        item.showGrid(x=True, y=True, alpha=0.2)
        self._legend = item.addLegend(offset=(-10, 10))
        self.setMinimumHeight(140)
        self._steps: list[int] = []
        self._values: dict[str, list[float]] = {}
        self._curves: dict[str, pg.PlotDataItem] = {}
        self._documents = False
        self._redraw_timer = QTimer(self)
        self._redraw_timer.setSingleShot(True)
        self._redraw_timer.setInterval(0)
        self._redraw_timer.timeout.connect(self._redraw)
        self.restyle()
        theme.on_scheme_change(self.restyle)

    def restyle(self) -> None:
        theme.style_plot(self)

    def set_documents(self, documents: bool) -> None:
        """Whether the development set is whole documents (values are then per document)."""
        self._documents = documents
        self.getPlotItem().setLabel("left", UNIT_LABELS[documents])

    def snapshot(self) -> tuple:
        """What the plot shows, for :meth:`restore` after a run that does not replace it."""
        return (list(self._steps), {c: list(v) for c, v in self._values.items()},
                self._documents)

    def restore(self, shown: tuple) -> None:
        steps, values, documents = shown
        self.clear_curves()
        self._steps.extend(steps)
        self._values.update({c: list(v) for c, v in values.items()})
        self.set_documents(documents)
        self._redraw_timer.start()

    def left_label(self) -> str:
        return self.getPlotItem().getAxis("left").labelText

    def clear_curves(self) -> None:
        self._steps.clear()
        self._values.clear()
        for curve in self._curves.values():
            self.getPlotItem().removeItem(curve)
        self._curves.clear()
        self._legend.clear()

    def add_point(self, step: int, per_line: dict[str, float]) -> None:
        """The languages' tokens per line after ``step`` merges."""
        if not per_line or (self._steps and step <= self._steps[-1]):
            return
        self._steps.append(step)
        for code, value in per_line.items():
            self._values.setdefault(code, []).append(value)
        if not self._redraw_timer.isActive():
            self._redraw_timer.start()

    def complete(self, last_step: int, report) -> None:
        """Add a finished parity-aware run's first point (before any merge) and last one
        from its LanguageReport: progress arrives ten times a second at most, so a short
        run reports few points or one."""
        if not report.dev_tokens_after:
            return

        def per_line(tokens) -> dict[str, float]:
            return {code: n / max(1, lines)
                    for code, n, lines in zip(report.codes, tokens, report.dev_lines)}

        before, after = per_line(report.dev_tokens_before), per_line(report.dev_tokens_after)
        if not self._steps or self._steps[0] > 0:
            self._steps.insert(0, 0)
            for code, value in before.items():
                self._values.setdefault(code, []).insert(0, value)
        self.add_point(last_step, after)
        if not self._redraw_timer.isActive():
            self._redraw_timer.start()

    def curves(self) -> dict[str, tuple[list[int], list[float]]]:
        """Each language's points (steps, tokens per line) as plotted."""
        return {code: (self._steps[-len(v):], list(v)) for code, v in self._values.items()}

    def _redraw(self) -> None:
        for i, (code, values) in enumerate(self._values.items()):
            curve = self._curves.get(code)
            if curve is None:
                pen = pg.mkPen(COLOURS[i % len(COLOURS)], width=2,
                               style=STYLES[i // len(COLOURS) % len(STYLES)])
                curve = self._curves[code] = self.getPlotItem().plot([], [], pen=pen,
                                                                     name=code)
            curve.setData(self._steps[-len(values):], values)
