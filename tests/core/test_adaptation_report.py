"""The before/after report, hand-computed on a handmade model."""

from __future__ import annotations

from bpe_desktop.core import SpecialToken, TrainConfig
from bpe_desktop.core.adaptation_report import format_report, held_out_report
from bpe_desktop.core.model import BPEModel, Merge

CONFIG = TrainConfig(boundary="none", special_tokens=(SpecialToken("<unk>", 0, "unk"),))


def test_figures_by_hand():
    before = BPEModel(CONFIG, ("a", "b", "c"), (Merge("a", "b"),))
    # the extended model keeps every id of the source: ж and abc come after them
    after = BPEModel(CONFIG, ("a", "b", "c", "ж"), (Merge("a", "b"), Merge("ab", "c")),
                     ids=(1, 2, 3, 5, 4, 6))
    # before: "abc ab" -> ab c | ab = 3 tokens; "жc" -> <unk> c = 2 (1 unknown); "ab" -> 1
    # after:  abc | ab = 2;  ж c = 2 (0 unknown);  ab = 1 (unchanged)
    report = held_out_report(before, after, ["abc ab", "жc", "", "ab"], "held")
    assert (report.lines, report.words) == (3, 4)
    assert report.utf8_bytes == 6 + 3 + 2
    assert (report.before.tokens, report.after.tokens) == (6, 5)
    assert (report.before.unknown, report.after.unknown) == (1, 0)
    assert report.before.tokens_per_word(report.words) == 6 / 4
    assert report.bytes_per_token(report.after) == 11 / 5
    assert report.unchanged_lines == 1 and report.unchanged_share == 1 / 3
    assert abs(report.tokens_per_word_change - (5 / 6 - 1)) < 1e-12
    assert [c.number for c in report.changed] == [1, 2]  # 'ab' keeps its id
    assert report.changed[1].before == ("<unk>", "c") and report.changed[1].after == ("ж", "c")
    text = format_report(report)
    assert "tokens per word" in text and "1 of 3 (33.3%)" in text
