"""The vocabulary browser's split: the table gets its columns' width; the user's split is kept."""

from __future__ import annotations

from PySide6.QtCore import QPoint, Qt

from bpe_desktop.views.vocab_table import COL_RIGHT
from bpe_desktop.ui.vocabulary.panel import VocabPanel


def shown_panel(qtbot, model, width=1600, height=1000) -> VocabPanel:
    panel = VocabPanel()
    qtbot.addWidget(panel)
    panel.resize(width, height)
    with qtbot.waitSignal(panel.ready, timeout=60_000):
        panel.set_model(model)
    panel.show()
    qtbot.waitExposed(panel)
    return panel


def test_table_shows_every_column_whole_at_1600_px(qtbot, botchan_model):
    panel = shown_panel(qtbot, botchan_model)
    table, header = panel.table, panel.table.horizontalHeader()
    assert panel.splitter.sizes()[0] >= panel.table_width_needed()
    # no horizontal scrolling, and the Parents columns (Left, Right) are fully in view
    assert table.horizontalScrollBar().maximum() == 0
    em = table.fontMetrics().horizontalAdvance("0")
    assert header.sectionSize(COL_RIGHT) >= 14 * em
    right_end = header.sectionViewportPosition(COL_RIGHT) + header.sectionSize(COL_RIGHT)
    assert right_end <= table.viewport().width()
    # the details side keeps the rest
    assert panel.splitter.sizes()[1] >= 1600 - panel.table_width_needed() - 40


def test_narrow_window_keeps_room_for_the_details(qtbot, toy_model):
    panel = shown_panel(qtbot, toy_model, width=900, height=700)
    details = panel.splitter.widget(1)
    assert panel.splitter.sizes()[1] >= details.minimumSizeHint().width()


def test_at_1024_px_the_details_keep_a_readable_third(qtbot, botchan_model):
    """The table's columns want most of a 1024 px window: the merge tree and the words'
    segmentations still get a third rather than their bare minimum."""
    panel = shown_panel(qtbot, botchan_model, width=1024, height=700)
    table_side, details_side = panel.splitter.sizes()
    assert details_side >= (table_side + details_side) // 3
    assert table_side >= panel.splitter.widget(0).minimumSizeHint().width()


def test_the_split_the_user_drags_is_remembered(qtbot, toy_model):
    panel = shown_panel(qtbot, toy_model)
    before = panel.splitter.sizes()
    handle = panel.splitter.handle(1)
    middle = QPoint(handle.width() // 2, handle.height() // 2)
    qtbot.mousePress(handle, Qt.MouseButton.LeftButton, pos=middle)
    qtbot.mouseMove(handle, middle + QPoint(-300, 0))
    qtbot.mouseRelease(handle, Qt.MouseButton.LeftButton, pos=middle + QPoint(-300, 0))
    dragged = panel.splitter.sizes()
    assert dragged[0] < before[0] - 200
    again = shown_panel(qtbot, toy_model)
    assert again.splitter.sizes() == dragged


def test_rows_arriving_do_not_resize_the_table_viewport(qtbot, botchan_model):
    """The scroll bar keeps its room: a model's rows arriving neither narrow the viewport
    nor make Qt lay out and paint the whole table again."""
    panel = VocabPanel()
    qtbot.addWidget(panel)
    panel.resize(1200, 300)
    panel.show()
    qtbot.waitExposed(panel)
    viewport = panel.table.viewport()
    empty_width = viewport.width()
    assert panel.table.verticalScrollBar().isVisible()
    with qtbot.waitSignal(panel.ready, timeout=60_000):
        panel.set_model(botchan_model)
    assert panel.table_model.rowCount() * panel.table.rowHeight(0) > viewport.height()
    assert viewport.width() == empty_width
