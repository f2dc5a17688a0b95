"""The Training panel takes word-count tables (several, .gz), shows each one's distinct
words and total count, and trains from them as from the text they were counted on."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt

import bpe_desktop
from bpe_desktop.core import Corpus, TrainConfig, train
from bpe_desktop.core.counting import count_words, table_stats
from bpe_desktop.core.errors import CorpusError
from bpe_desktop.ui.training.options import TIPS

BOTCHAN = Path(bpe_desktop.__file__).parent / "resources" / "examples" / "botchan.txt"


@pytest.fixture
def panel(training_panel):
    return training_panel


@pytest.fixture
def tables(tmp_path):
    lines = BOTCHAN.read_text(encoding="utf-8").splitlines(keepends=True)
    texts = [tmp_path / "a.txt", tmp_path / "b.txt"]
    texts[0].write_text("".join(lines[:2500]), encoding="utf-8")
    texts[1].write_text("".join(lines[2500:]), encoding="utf-8")
    paths = [tmp_path / "a.tsv", tmp_path / "b.tsv.gz"]
    for text, path in zip(texts, paths):
        count_words([text]).save(path)
    return texts, paths


def test_table_stats_are_hand_checked(tmp_path):
    path = tmp_path / "t.tsv"
    path.write_text("low\t5\nlower\t2\n\nnewest\t6\n", encoding="utf-8")
    assert table_stats(path) == (3, 13)
    path.write_text("low\t5\nlower two\n", encoding="utf-8")
    with pytest.raises(CorpusError) as caught:
        table_stats(path)
    assert caught.value.line == 2 and caught.value.path == str(path)


def column(panel) -> list[str]:
    return [panel.corpus.topLevelItem(i).text(2) for i in range(panel.corpus.topLevelItemCount())]


def test_tables_show_distinct_words_and_total_and_train_like_text(panel, qtbot, tables):
    texts, paths = tables
    panel.options.set_config(TrainConfig(vocab_size=700))
    panel.options.word_counts.setChecked(False)
    panel.corpus.add_paths([str(p) for p in paths])
    qtbot.waitUntil(lambda: "…" not in column(panel), timeout=10_000)
    assert panel.corpus.headerItem().text(2) == "Lines"
    panel.options.word_counts.setChecked(True)
    assert panel.corpus.headerItem().text(2) == "Words / total"
    expected = [table_stats(p) for p in paths]
    qtbot.waitUntil(lambda: column(panel) == [f"{w:,} / {t:,}" for w, t in expected],
                    timeout=10_000)
    assert expected[0] == (count_words([texts[0]]).distinct_words,
                           count_words([texts[0]]).total_count)
    with qtbot.waitSignal(panel.trained, timeout=60_000) as blocker:
        qtbot.mouseClick(panel.train_button, Qt.MouseButton.LeftButton)
    from_text = train(Corpus.from_files(texts), TrainConfig(vocab_size=700)).model
    assert blocker.args[0].model.merges == from_text.merges


def test_a_corrupt_gzip_table_is_marked_with_where_and_the_others_are_counted(panel, qtbot,
                                                                              tables):
    _, paths = tables
    data = bytearray(paths[1].read_bytes())
    for k in range(200, 260):  # damage inside the deflate stream: zlib's own error
        data[k] ^= 0x55
    paths[1].write_bytes(bytes(data))
    panel.options.word_counts.setChecked(True)
    panel.corpus.add_paths([str(paths[1]), str(paths[0])])
    words, total = table_stats(paths[0])
    qtbot.waitUntil(lambda: column(panel) == ["unreadable", f"{words:,} / {total:,}"],
                    timeout=10_000)
    reason = panel.corpus.topLevelItem(0).toolTip(2)
    assert reason.startswith(f"{paths[1]}: the compressed data is truncated or corrupt (")
    assert "near byte offset" in reason


def test_a_count_that_fails_unexplained_is_shown_once_not_retried(panel, qtbot, tables,
                                                                  monkeypatch):
    from bpe_desktop.ui.training import corpus_list

    runs = []

    def broken(path, cancel=None):
        runs.append(path)
        raise RuntimeError("a defect")

    monkeypatch.setattr(corpus_list, "count_lines", broken)
    texts, _ = tables
    panel.corpus.add_paths([str(t) for t in texts])
    qtbot.waitUntil(lambda: column(panel) == ["?", "?"], timeout=10_000)
    qtbot.wait(300)  # time for the retries there were
    assert runs == [str(texts[0])]
    assert panel.corpus.topLevelItem(1).toolTip(2) == "Could not be counted: a defect"


def test_help_says_how_to_count_at_scale():
    assert "bpe-desktop count" in TIPS["word_counts"] and "Dask" in TIPS["word_counts"]
