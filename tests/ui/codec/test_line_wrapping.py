"""The Encode / Decode panel never breaks a piece across lines, in the pieces or the steps."""

from __future__ import annotations

from bpe_desktop.ui.codec.piece_view import plain


def _line_starts(view) -> list[int]:
    """Document positions where a laid-out line starts (after the first of each block)."""
    doc = view.document()
    doc.documentLayout().documentSize()  # lay it all out
    starts = []
    block = doc.begin()
    while block.isValid():
        layout = block.layout()
        for n in range(1, layout.lineCount()):
            starts.append(block.position() + layout.lineAt(n).textStart())
        block = block.next()
    return starts


def _pieces_to_wrap():
    from bpe_desktop.ui.codec.piece_view import PieceItem

    texts = ["and</w>", "re-use", "日本語", "a/b/c", "(x)", "3.14", "क्षत्रिय", "مرحبا",
             "</w>", "word-final</w>"]
    return [PieceItem(i, t, t, False, i, "word" if i % 3 == 2 else "")
            for i, t in enumerate(texts * 12)]


def test_a_piece_is_never_split_across_lines(qtbot):
    from bpe_desktop.ui.codec.piece_view import PieceView

    view = PieceView()
    qtbot.addWidget(view)
    view.resize(170, 600)
    view.show()
    qtbot.waitExposed(view)
    items = _pieces_to_wrap()
    view.show_items(items)
    starts = _line_starts(view)
    assert len(starts) > 10  # lines do wrap, between pieces
    inside = [(p, i) for p in starts for i, (a, b) in enumerate(zip(view._starts, view._ends))
              if a < p < b]
    assert inside == []
    assert [plain(view.toPlainText())[a:b] for a, b in zip(view._starts, view._ends)] != []
    drawn = plain(view.toPlainText()).replace("\u2009", " ").split()
    assert drawn == [item.text for item in items]  # the joiners are invisible


def test_without_joiners_those_pieces_would_split(qtbot):
    """The layout check above is meaningful: plain text of the same pieces breaks inside
    pieces at that width."""
    from PySide6.QtWidgets import QTextBrowser

    view = QTextBrowser()
    qtbot.addWidget(view)
    view.resize(170, 600)
    view.show()
    qtbot.waitExposed(view)
    items = _pieces_to_wrap()
    text, spans = "", []
    for item in items:
        spans.append((len(text), len(text) + len(item.text)))
        text += item.text + ("\u2009" if not item.after else " ")
    view.setPlainText(text)
    starts = _line_starts(view)
    assert any(a < p < b for p in starts for a, b in spans)


def test_unbreakable_joins_only_where_a_line_could_break():
    from bpe_desktop.ui.codec.piece_view import WORD_JOINER, unbreakable

    assert unbreakable("and</w>") == "and</" + WORD_JOINER + "w>"
    assert unbreakable("日本語") == WORD_JOINER.join("日本語")
    for kept in ("lowest", "क्षत्रिय", "مرحبا", "e\u0301t", "␣the", "x"):
        assert unbreakable(kept) == kept  # clusters and scripts that join stay untouched
    for text in ("and</w>", "re-use", "日本語", "a/b/c", "👩\u200d💻/x"):
        assert plain(unbreakable(text)) == text


def test_step_rows_do_not_break_pieces_either(panel):
    panel.word_edit.setText("lowest")
    panel.step_slider.setValue(5)
    assert "est</" + "\u2060" + "w>" in panel.step_view.toPlainText()
