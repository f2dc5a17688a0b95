"""The warning line beside the Evaluate and Compare panels' results when a model they
measured only approximates an imported tokenizer (see
:mod:`bpe_desktop.views.approximations`)."""

from __future__ import annotations

from typing import Iterable, Sequence

from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from bpe_desktop.views.approximations import approximation_warning

#: The red of the panels' other warnings (it reads on light and dark backgrounds).
_WARNING_COLOR = "#e03131"


class ApproximationWarning(QLabel):
    """Hidden until results of an approximating model are shown; one line per model."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("approximation_warning")
        self.setWordWrap(True)
        self.setStyleSheet(f"color: {_WARNING_COLOR}")
        self.setVisible(False)

    def show_models(self, models: Iterable[tuple[str, Sequence[str]]]) -> None:
        """``(name, notes)`` of each measured model ("" names the only one); models
        without notes add no line, and none at all hides the label."""
        lines = [f"⚠ {approximation_warning(notes, name)}" for name, notes in models if notes]
        self.setText("\n".join(lines))
        self.setVisible(bool(lines))


def above(warning: ApproximationWarning, results: QWidget) -> QWidget:
    """``results`` (a panel's result tabs) with ``warning`` over them, so the line stands
    beside every tab's figures."""
    box = QWidget()
    layout = QVBoxLayout(box)
    layout.setContentsMargins(0, 0, 0, 0)
    layout.addWidget(warning)
    layout.addWidget(results, 1)
    return box
