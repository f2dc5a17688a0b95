"""Right-to-left text laid out in its direction (pieces, text boxes, vocabulary table), and
View ▸ Zoom for the text and table fonts, remembered."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QTableView

from bpe_desktop.core import Corpus, TrainConfig, train
from bpe_desktop.core.pieces import isolated_if_rtl, text_direction
from bpe_desktop.ui.codec.panel import CodecPanel
from bpe_desktop.ui.vocabulary.table_model import COL_PIECE

pytest_plugins = ["tests.ui.window_fixtures"]

SYRIAC = "ܫܠܡܐ ܥܠܡܐ ܫܠܡܐ ܫܠܡܐ ܥܠܡܐ"
ARABIC = "كتاب الكتاب كتب كتاب"


def test_direction_of_a_text_is_its_first_strong_letter():
    assert text_direction("  123 ▁كتاب hello") == "rtl"
    assert text_direction("▁hello كتاب") == "ltr"
    assert text_direction("123 …") == "ltr"
    assert isolated_if_rtl("▁ܫܠܡܐ") == "\u2068▁ܫܠܡܐ\u2069"
    assert isolated_if_rtl("▁hello") == "▁hello"


def _x(document, position: int) -> float:
    """Where the character at ``position`` starts, in the laid-out document."""
    block = document.findBlock(position)
    line = block.layout().lineForTextPosition(position - block.position())
    return line.cursorToX(position - block.position())[0]


def test_pieces_of_a_right_to_left_text_read_from_the_right(qtbot):
    model = train(Corpus.from_texts([SYRIAC] * 5), TrainConfig.preset("sentencepiece",
                                                                       vocab_size=40)).model
    panel = CodecPanel()
    qtbot.addWidget(panel)
    panel.set_model(model)
    panel.resize(1000, 700)
    panel.show()
    qtbot.waitExposed(panel)
    # the line starts with a letter the model never saw: its first piece drawn is <unk>,
    # whose Latin letters must not turn the line left-to-right
    panel.set_text("ܬ" + SYRIAC + "\nplain English")
    view = panel.piece_view
    document = view.document()
    assert view.items[0].text == "▁" and view.items[1].unknown
    last = next(i for i, item in enumerate(view.items) if item.after == "line")
    # ▁ is at the line's right (where an RTL line starts), its last piece at the left
    assert _x(document, view._starts[0]) > _x(document, view._starts[last])
    english = view._starts[last + 1]
    assert _x(document, english) < _x(document, view._ends[-1])  # English stays LTR
    # and the text box is aligned right
    input_doc = panel.input_edit.document()
    assert input_doc.defaultTextOption().textDirection() == Qt.LayoutDirection.RightToLeft
    panel.set_text("plain English")
    assert panel.input_edit.document().defaultTextOption().textDirection() == \
        Qt.LayoutDirection.LeftToRight


def _shown_pieces(window, qtbot, preset: str) -> list[str]:
    """The vocabulary table's Piece column for a model of :data:`ARABIC`."""
    model = train(Corpus.from_texts([ARABIC] * 5), TrainConfig.preset(preset,
                                                                       vocab_size=40)).model
    window.document.set_imported(model)
    table = window.vocab.table_model
    qtbot.waitUntil(lambda: table.rowCount() == model.vocab_size, timeout=10_000)
    return [table.data(table.index(r, COL_PIECE)) for r in range(table.rowCount())]


def test_vocabulary_table_isolates_right_to_left_pieces(window, qtbot):
    shown = _shown_pieces(window, qtbot, "sentencepiece")
    word = next(s for s in shown if "▁" in s and "ك" in s)
    assert word.startswith("\u2068▁") and word.endswith("\u2069")
    assert "\u2068" not in "".join(s for s in shown if s.isascii())


def test_vocabulary_table_shows_a_right_to_left_pieces_end_of_word_marker_as_written(
        window, qtbot):
    shown = _shown_pieces(window, qtbot, "subword-nmt")
    # the piece in its own direction, its </w> a left-to-right isolate (not drawn as <w/>)
    assert "\u2068كتاب\u2066</w>\u2069\u2069" in shown



def test_copying_a_right_to_left_piece_from_the_tables_gives_its_own_text(window, qtbot):
    """Ctrl+C in the vocabulary table, its merge tree and the Compare tables copies what
    the cell shows without the isolates drawn around right-to-left pieces."""
    shown = _shown_pieces(window, qtbot, "subword-nmt")
    table = window.vocab.table
    row = shown.index("\u2068كتاب\u2066</w>\u2069\u2069")
    table.setCurrentIndex(table.model().index(row, COL_PIECE))
    table.setFocus()
    qtbot.keyClick(table, Qt.Key.Key_C, Qt.KeyboardModifier.ControlModifier)
    assert QGuiApplication.clipboard().text() == "كتاب</w>"
    tree = window.vocab.merge_tree
    tree.setCurrentItem(tree.topLevelItem(0))
    qtbot.keyClick(tree, Qt.Key.Key_C, Qt.KeyboardModifier.ControlModifier)
    assert QGuiApplication.clipboard().text().startswith("كتاب</w>  (rank ")
    compare = window.compare
    compare.add_current()
    compare.add_model("same", window.document.model)
    compare.set_text("كتاب")
    with qtbot.waitSignal(compare.compared, timeout=30_000):
        compare.start()
    overlap = next(view for view in compare.findChildren(QTableView)
                   if view.model() is compare.overlap_model)
    texts = [overlap.model().index(r, 0).data() for r in range(overlap.model().rowCount())]
    cell = overlap.model().index(texts.index("كتاب"), 1)
    assert cell.data() == "كتاب\u2066</w>\u2069"
    overlap.setCurrentIndex(cell)
    qtbot.keyClick(overlap, Qt.Key.Key_C, Qt.KeyboardModifier.ControlModifier)
    assert QGuiApplication.clipboard().text() == "كتاب</w>"

def test_zoom_scales_text_and_tables_and_is_remembered(window, qtbot):
    from bpe_desktop.ui.window.main_window import MainWindow

    edit, table = window.codec.input_edit, window.vocab.table
    before = (edit.font().pointSizeF(), table.font().pointSizeF())
    shortcuts = {a.shortcut().toString(): a for a in window.actions()}
    shortcuts["Ctrl++"].trigger()
    shortcuts["Ctrl++"].trigger()
    assert edit.font().pointSizeF() == pytest.approx(before[0] * 1.2)
    assert table.font().pointSizeF() == pytest.approx(before[1] * 1.2)
    assert table.verticalHeader().defaultSectionSize() >= table.fontMetrics().height()
    again = MainWindow()
    qtbot.addWidget(again)
    assert again.codec.input_edit.font().pointSizeF() == pytest.approx(before[0] * 1.2)
    shortcuts["Ctrl+-"].trigger()
    assert edit.font().pointSizeF() == pytest.approx(before[0] * 1.1)
    shortcuts["Ctrl+0"].trigger()
    assert edit.font().pointSizeF() == pytest.approx(before[0])
    again.close()
