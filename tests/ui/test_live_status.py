"""Progress widgets that neither re-lay out the window nor paint in a pass of their own."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QLabel, QProgressBar, QVBoxLayout, QWidget

from bpe_desktop.ui.common.live_status import ProgressBar, StatusLine


class EventCounter(QObject):
    def __init__(self, kind: QEvent.Type) -> None:
        super().__init__()
        self.kind = kind
        self.count = 0

    def eventFilter(self, watched, event) -> bool:  # noqa: N802 (Qt's name)
        if event.type() == self.kind:
            self.count += 1
        return False


@pytest.fixture
def holder(qtbot):
    """A shown widget whose layout holds the widget under test."""
    widget = QWidget()
    QVBoxLayout(widget)
    qtbot.addWidget(widget)
    widget.resize(300, 80)
    return widget


def _show(holder, qtbot, child):
    holder.layout().addWidget(child)
    holder.show()
    qtbot.waitExposed(holder)
    qtbot.wait(20)  # the first layout and paint


@pytest.mark.parametrize("widget_class, relays_out", [(QLabel, True), (StatusLine, False)])
def test_new_text_re_lays_out_only_a_qlabel(holder, qtbot, widget_class, relays_out):
    line = widget_class("Ready.")
    _show(holder, qtbot, line)
    requests = EventCounter(QEvent.Type.LayoutRequest)
    holder.installEventFilter(requests)
    height = line.height()
    for i in range(5):
        line.setText(f"Reading and counting words: {i * 20} MB of 100 MB, {i * 123_457:,} words")
        qtbot.wait(5)
    assert (requests.count > 0) is relays_out
    assert line.text().endswith("493,828 words")
    assert line.height() == height


def test_status_line_elides_and_keeps_the_whole_text(holder, qtbot):
    line = StatusLine()
    _show(holder, qtbot, line)
    text = "Merging pairs: " + ", ".join(f"merge {i}" for i in range(200))
    line.setText(text)
    assert line.text() == text and line.toolTip() == text
    assert line.sizeHint().height() == line.minimumSizeHint().height()
    assert line.minimumSizeHint().width() == 0  # never widens the window
    qtbot.wait(20)
    assert not line.grab().isNull()  # paints (elided) without error
    copy = line.actions()[0]
    assert line.contextMenuPolicy() == Qt.ContextMenuPolicy.ActionsContextMenu
    copy.trigger()
    assert QGuiApplication.clipboard().text() == text


@pytest.mark.parametrize("bar_class, paints_at_once", [(QProgressBar, True),
                                                       (ProgressBar, False)])
def test_new_value_is_painted_at_once_only_by_a_qprogressbar(holder, qtbot, bar_class,
                                                              paints_at_once):
    bar = bar_class()
    bar.setRange(0, 1000)
    _show(holder, qtbot, bar)
    paints = EventCounter(QEvent.Type.Paint)
    bar.installEventFilter(paints)
    bar.setValue(500)
    assert (paints.count > 0) is paints_at_once
    assert bar.value() == 500 and bar.updatesEnabled()
    qtbot.waitUntil(lambda: paints.count > 0)  # painted in the next pass either way
    before = paints.count
    bar.setValue(500)  # no change: nothing to paint
    qtbot.wait(20)
    assert paints.count == before
