"""Word markers in a right-to-left line read as written (``</w>``, not the mirrored
``<w/>``) while the pieces keep their right-to-left order: in the Pieces view, the
step-through and the dropout samples. The isolates that do it are drawn only: copying
gives the pieces' own text."""

from __future__ import annotations

import pytest
from PySide6.QtGui import QGuiApplication

from bpe_desktop.core import Corpus, TrainConfig, train
from bpe_desktop.ui.codec.panel import CodecPanel

ARABIC = "كتاب الكتاب كتب كتاب مكتبة"
ISOLATES = ("\u2066", "\u2068", "\u2069")


@pytest.fixture
def arabic_panel(qtbot):
    model = train(Corpus.from_texts([ARABIC] * 5),
                  TrainConfig.preset("subword-nmt", vocab_size=40)).model
    widget = CodecPanel()
    qtbot.addWidget(widget)
    widget.set_model(model)
    widget.resize(1000, 700)
    widget.show()
    qtbot.waitExposed(widget)
    return widget


def _x(document, position: int) -> float:
    block = document.findBlock(position)
    line = block.layout().lineForTextPosition(position - block.position())
    return line.cursorToX(position - block.position())[0]


def _copied(view) -> str:
    view.selectAll()
    view.copy()
    return QGuiApplication.clipboard().text()


def test_end_of_word_marker_reads_left_to_right_in_an_arabic_line(arabic_panel):
    arabic_panel.set_text(ARABIC)
    view = arabic_panel.piece_view
    document = view.document()
    assert [item.text for item in view.items][:2] == ["كتاب</w>", "الكتاب</w>"]
    # the pieces read from the right: the first piece right of the second
    assert _x(document, view._starts[0]) > _x(document, view._starts[1])
    text = document.toPlainText()
    assert "\u2066</\u2060w>\u2069" in text  # (a word joiner: no line break inside)
    start = text.index("\u2066")  # the first piece's marker
    marker = [start + k for k in range(1, 6) if text[start + k] != "\u2060"]
    assert "".join(text[k] for k in marker) == "</w>"
    # the cursor between < and /, / and w, w and >: from left to right, so they read </w>
    # (the mirrored <w/> put the / after the w)
    xs = [_x(document, k) for k in marker[1:]]
    assert xs[0] < xs[1] < xs[2]
    # ... and the marker is at the word's end: left of the word's letters
    assert xs[2] < _x(document, view._starts[0] + 3)


def test_only_lines_with_right_to_left_letters_get_isolates(arabic_panel):
    """A left-to-right line reads its markers as written anyway: its pieces are drawn as
    they are (isolates there would only slow the layout of a long text)."""
    arabic_panel.set_text("abc abd\n" + ARABIC)
    english, arabic = arabic_panel.piece_view.document().toPlainText().splitlines()
    assert "</\u2060w>" in english and not any(c in english for c in ISOLATES)
    assert "\u2066</\u2060w>\u2069" in arabic


def test_copied_pieces_carry_no_isolates(arabic_panel):
    arabic_panel.set_text(ARABIC)
    copied = _copied(arabic_panel.piece_view)
    assert "كتاب</w>" in copied and not any(c in copied for c in ISOLATES)


def test_step_through_shows_and_copies_the_marker_as_written(arabic_panel):
    arabic_panel.word_edit.setText("مكتبة")
    view = arabic_panel.step_view
    assert "\u2066</\u2060w>\u2069" in view.toPlainText()
    copied = _copied(view)
    assert "</w>" in copied and not any(c in copied for c in ISOLATES)
    summary = arabic_panel.step_label.text()
    assert "\u2066</w>\u2069" in summary


def test_dropout_samples_show_the_marker_as_written(arabic_panel, qtbot):
    arabic_panel.set_text(ARABIC)
    box = arabic_panel.dropout_box
    with qtbot.waitSignal(box.sampled, timeout=10_000):
        box.setChecked(True)
    assert "\u2066</w>\u2069" in box.view.toPlainText()
    copied = _copied(box.view)
    assert "</w>" in copied and not any(c in copied for c in ISOLATES)
