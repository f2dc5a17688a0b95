"""The Encode / Decode panel's statistics: tokens, characters and bytes per token, words,
unknown tokens. A part of :class:`CodecPanel`."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QGridLayout, QLabel

from bpe_desktop.core.formatting import counted
from bpe_desktop.views.encoding_view import Stats
from bpe_desktop.ui.codec.decode_box import ERROR_STYLE


class StatsGrid:
    """The statistics grid and how it is filled (mixed into the panel)."""

    def _build_stats(self) -> QGridLayout:
        grid = QGridLayout()
        names = (("tokens", "Tokens"), ("characters", "Characters"),
                 ("chars_per_token", "Characters per token"), ("words", "Words"),
                 ("tokens_per_word", "Tokens per word"), ("unknowns", "Unknown tokens"),
                 ("distinct", "Distinct tokens"))
        self.stat_labels: dict[str, QLabel] = {}
        for n, (key, title) in enumerate(names):
            value = QLabel("–")
            value.setObjectName(f"stat_{key}")
            value.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            self.stat_labels[key] = value
            row, col = divmod(n, 4)
            grid.addWidget(QLabel(title + ":"), row, 2 * col)
            grid.addWidget(value, row, 2 * col + 1)
        return grid

    def _show_stats(self, s: Stats) -> None:
        values = {"tokens": f"{s.tokens:,}", "characters": f"{s.characters:,}",
                  "chars_per_token": f"{s.chars_per_token:.2f}", "words": f"{s.words:,}",
                  "tokens_per_word": f"{s.tokens_per_word:.2f}",
                  "unknowns": f"{s.unknowns:,}", "distinct": f"{s.distinct:,}"}
        for key, text in values.items():
            self.stat_labels[key].setText(text)
        self.stat_labels["unknowns"].setStyleSheet(ERROR_STYLE if s.unknowns else "")
        merges, greedy = ((s.tokens, s.other_mode_tokens) if self.mode == "merges"
                          else (s.other_mode_tokens, s.tokens))
        self.compare_label.setText(f"merge rank: {counted(merges, 'token')} · greedy longest "
                                   f"match: {counted(greedy, 'token')}")
