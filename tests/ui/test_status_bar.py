"""Long status messages end at a word with "…" left of the model label; full text in the tooltip."""

from __future__ import annotations

from PySide6.QtGui import QFont, QFontMetrics

from bpe_desktop.ui.window.status_bar import ELLIPSIS, elide_at_word
from tests.ui.window_helpers import train_toy

pytest_plugins = ["tests.ui.window_fixtures"]

LONG = ("Exported to /home/someone/models/botchan-8000/tokenizer.json. Verified on 1,000 "
        "lines with tokenizers 0.20.3: 100%. The vocabulary and the merges were written "
        "in the Hugging Face format, with the pre-tokenizer that reproduces ours.")


def test_elide_at_word_keeps_whole_words(qapp):
    metrics = QFontMetrics(QFont())
    width = metrics.horizontalAdvance("Exported to /home/someone/models/botchan-8000/")
    shown = elide_at_word(LONG, metrics, width)
    assert shown.endswith(" " + ELLIPSIS)
    kept = shown[: -len(ELLIPSIS) - 1]
    assert LONG.startswith(kept) and LONG[len(kept)] == " "  # cut between words
    assert metrics.horizontalAdvance(shown) <= width
    # of several lines the first (lines aligned as a table do not read joined)
    assert elide_at_word("a report:\n  tokens  580  280", metrics, 1000) == \
        "a report: " + ELLIPSIS
    # a single word wider than the room is cut inside, still with the ellipsis
    assert elide_at_word("x" * 200, metrics, 50).endswith(ELLIPSIS)


def test_long_message_stops_before_the_model_label(window, qtbot):
    train_toy(window, qtbot)
    narrow = max(860, window.minimumSizeHint().width())  # as narrow as the panels allow
    window.resize(narrow + 140, 600)
    qtbot.waitUntil(lambda: window.width() == narrow + 140)
    bar = window.statusBar()
    window._show_status(LONG)
    shown = bar.currentMessage()
    assert shown != LONG and shown.endswith(ELLIPSIS)
    assert LONG.startswith(shown[: -len(ELLIPSIS) - 1])
    room = window.model_label.x() - 2 - 6
    assert bar.fontMetrics().horizontalAdvance(shown) <= room
    assert bar.toolTip() == LONG and bar.full_message() == LONG
    # narrower window: elided again to the new room
    window.resize(narrow, 600)
    qtbot.waitUntil(lambda: window.width() == narrow)
    qtbot.waitUntil(lambda: bar.fontMetrics().horizontalAdvance(bar.currentMessage())
                    <= window.model_label.x() - 8)
    assert len(bar.currentMessage()) < len(shown)
    # a message that fits is shown as it is, without a tooltip
    window._show_status("Saved.")
    assert bar.currentMessage() == "Saved." and bar.toolTip() == ""
    bar.clearMessage()
    assert bar.toolTip() == ""


def test_status_tips_shown_by_qt_itself_are_elided_too(window, qtbot):
    from PySide6.QtWidgets import QStatusBar

    window.resize(1000, 600)
    qtbot.waitUntil(lambda: window.width() == 1000)
    bar = window.statusBar()
    QStatusBar.showMessage(bar, LONG)  # as QAction.showStatusText does, past Python
    shown = bar.currentMessage()
    assert shown.endswith(ELLIPSIS) and LONG.startswith(shown[: -len(ELLIPSIS) - 1])
    assert bar.fontMetrics().horizontalAdvance(shown) <= window.model_label.x() - 8
    assert bar.toolTip() == LONG
