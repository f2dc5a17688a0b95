"""The Vocabulary tab: filter bar, selection -> merge tree and words, exports, plots."""

from __future__ import annotations

import threading
import weakref
from collections import Counter

import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QImage

from bpe_desktop.core import BPEModel, Corpus, Merge, TrainConfig, train

from bpe_desktop.core import chunked
from bpe_desktop.core.pieces import surface_text
from bpe_desktop.views.vocab_table import COL_CHARS, COL_COUNT, COL_PIECE, TokenUsage
from bpe_desktop.ui.common import dialogs, theme
from bpe_desktop.ui.vocabulary import panel as vocab_panel
from bpe_desktop.ui.vocabulary.panel import LOADING, VocabPanel
from bpe_desktop.views.vocab_plot_data import PLOTS, compute_plot
from bpe_desktop.ui.vocabulary.table_model import VocabTableModel

DESC = Qt.SortOrder.DescendingOrder


@pytest.fixture(scope="module")
def gpt2_model() -> BPEModel:
    text = ("the cat sat on the mat. the café is naïve, the end.\n"
            "tabs\there and  double  spaces there\n") * 20
    return train(Corpus.from_texts([text]), TrainConfig.preset("gpt2", vocab_size=300)).model


@pytest.fixture
def panel(qtbot, toy_model) -> VocabPanel:
    p = VocabPanel()
    qtbot.addWidget(p)
    p.resize(1200, 700)
    p.set_model(toy_model)
    return p


def show(qtbot, panel: VocabPanel, model) -> None:
    """``set_model`` and wait until the panel shows all of ``model``."""
    with qtbot.waitSignal(panel.ready, timeout=60_000):
        panel.set_model(model)
    assert not panel.is_loading()


def ask_path(monkeypatch, path) -> list[tuple]:
    calls: list[tuple] = []

    def fake(parent, title, kind, filters, suggested_name=""):
        calls.append((title, kind, filters, suggested_name))
        return None if path is None else str(path)

    monkeypatch.setattr(dialogs, "ask_save_path", fake)
    return calls


# -- filter bar ----------------------------------------------------------------------------


def test_empty_panel(qtbot):
    p = VocabPanel()
    qtbot.addWidget(p)
    assert p.count_label.text() == "0 of 0 tokens"
    assert not p.export_table_button.isEnabled() and not p.export_plot_button.isEnabled()
    assert p.merge_tree.topLevelItemCount() == 0
    p.filter_edit.setText("abc")  # no model: no crash
    assert p.table_model.rowCount() == 0


def test_count_label_and_filters(panel):
    assert panel.count_label.text() == "22 of 22 tokens"
    panel.filter_edit.setText("est")
    assert panel.table_model.visible_ids().tolist() == [13, 14, 19]
    assert panel.count_label.text() == "3 of 22 tokens"
    panel.min_length.setValue(4)
    assert panel.table_model.visible_ids().tolist() == [19]
    panel.min_length.setValue(0)
    panel.max_length.setValue(3)
    assert panel.table_model.visible_ids().tolist() == [13, 14]
    panel.filter_edit.clear()
    panel.max_length.setValue(0)
    assert panel.count_label.text() == "22 of 22 tokens"


def test_regex_and_case_toggles(panel):
    panel.regex_check.setChecked(True)
    panel.filter_edit.setText("^lo")
    assert panel.table_model.visible_ids().tolist() == [15, 16, 20]
    panel.filter_edit.setText("^LO")
    assert panel.table_model.visible_ids().tolist() == [15, 16, 20]
    panel.case_check.setChecked(True)
    assert panel.table_model.visible_ids().tolist() == []
    assert panel.count_label.text() == "0 of 22 tokens"


def test_invalid_regex_marks_the_field(qtbot, panel):
    panel.regex_check.setChecked(True)
    panel.filter_edit.setText("new")
    with qtbot.waitSignal(panel.status_message) as signal:
        panel.filter_edit.setText("new(")
    assert signal.args[0].startswith("Invalid regular expression")
    assert "border" in panel.filter_edit.styleSheet()
    assert panel.filter_edit.toolTip().startswith("Invalid regular expression")
    assert not panel.error_label.isHidden()
    assert panel.table_model.visible_ids().tolist() == [18, 19]  # previous filter kept
    panel.filter_edit.setText("new$")
    assert panel.filter_edit.styleSheet() == "" and panel.error_label.isHidden()
    assert panel.table_model.visible_ids().tolist() == [18]


def test_focus_filter(qtbot, panel):
    panel.filter_edit.setText("low")
    panel.show()
    qtbot.waitExposed(panel)
    panel.activateWindow()
    panel.table.setFocus()
    panel.focus_filter()
    qtbot.waitUntil(panel.filter_edit.hasFocus)
    assert panel.filter_edit.selectedText() == "low"


# -- selection: merge tree and words -------------------------------------------------------


def test_selection_shows_merge_tree_and_words(panel):
    assert panel.select_token(14)  # est</w>
    assert panel.current_token() == 14
    assert panel.merge_tree.texts() == [
        (0, "est</w>  (rank 2, count 9)"),
        (1, "est  (rank 1, count 9)"),
        (2, "es  (rank 0, count 9)"),
        (3, "e  (base symbol)"),
        (3, "s  (base symbol)"),
        (2, "t  (base symbol)"),
        (1, "</w>  (base symbol)"),
    ]
    assert panel.words_view.rows() == [("widest", "wi·d·est</w>", "3")]
    assert panel.words_label.text() == "1 training word uses this token:"
    label = panel.token_label.text()
    assert "est&lt;/w&gt;" in label and "merge rank 2" in label


def test_selection_by_clicking_a_row(qtbot, panel):
    panel.show()
    qtbot.waitExposed(panel)
    row = panel.table_model.row_of(19)
    rect = panel.table.visualRect(panel.table_model.index(row, COL_PIECE))
    qtbot.mouseClick(panel.table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert panel.current_token() == 19
    assert panel.merge_tree.texts()[:3] == [
        (0, "newest</w>  (rank 7, count 6)"),
        (1, "new  (rank 6, count 6)"),
        (2, "ne  (rank 5, count 6)"),
    ]
    assert panel.words_view.rows() == [("newest", "newest</w>", "6")]


def test_base_symbol_special_and_intermediate_tokens(panel, toy_model):
    panel.select_token(toy_model.piece_ids["e"])
    assert panel.merge_tree.texts() == [(0, "e  (base symbol)")]
    # "e" survives unmerged in "lower" only (low·e·r·</w>)
    assert panel.words_view.rows() == [("lower", "low·e·r·</w>", "2")]
    panel.select_token(0)
    assert panel.merge_tree.texts() == [(0, "<unk>  (special token)")]
    assert panel.words_view.rows() == []
    assert panel.words_label.text().startswith("Special tokens")
    panel.select_token(12)  # es: always merged further
    assert panel.words_view.rows() == []
    assert panel.words_label.text().startswith("No kept training word")


def test_words_sorted_by_count_with_segmentation(qtbot, panel, botchan_model):
    show(qtbot, panel, botchan_model)
    token = botchan_model.piece_ids["the</w>"]
    panel.select_token(token)
    tok = botchan_model.tokenizer()
    expected = []
    for word, count in botchan_model.words:
        pieces = tok.encode_as_pieces(word)
        if "the</w>" in pieces:
            expected.append((word, "·".join(pieces), f"{count:,}"))
    expected.sort(key=lambda r: -int(r[2].replace(",", "")))
    rows = panel.words_view.rows()
    assert panel.words_view.total == len(expected) > 1
    assert rows == expected[:len(rows)]
    assert rows[0] == ("the", "the</w>", rows[0][2])


def test_selection_survives_filter_and_sort(panel):
    panel.select_token(14)
    panel.table.sortByColumn(COL_CHARS, DESC)
    assert panel.table_model.token_id(panel.table.currentIndex().row()) == 14
    panel.filter_edit.setText("est")
    assert panel.table_model.token_id(panel.table.currentIndex().row()) == 14
    panel.filter_edit.setText("low")  # filtered out: the details stay
    assert not panel.table.currentIndex().isValid()
    assert panel.current_token() == 14 and panel.merge_tree.topLevelItemCount() == 1
    panel.set_model(None)
    assert panel.current_token() is None and panel.merge_tree.topLevelItemCount() == 0


def test_byte_level_model_is_readable(panel, gpt2_model):
    panel.set_model(gpt2_model)
    ids = gpt2_model.piece_ids
    assert panel.select_token(ids["Ġthe"])
    assert panel.merge_tree.texts() == [
        (0, "␣the  (rank 2, count 80)"),
        (1, "␣  (base symbol)"),
        (1, "the  (rank 1, count 100)"),
        (2, "t  (base symbol)"),
        (2, "he  (rank 0, count 120)"),
        (3, "h  (base symbol)"),
        (3, "e  (base symbol)"),
    ]
    assert panel.words_view.rows() == [("␣the", "␣the", "60")]
    panel.select_token(ids["ĉ"])
    assert panel.merge_tree.texts() == [(0, "⇥  (base symbol)")]
    assert panel.words_view.rows() == [("⇥", "⇥", "20")]
    panel.select_token(ids["Ã©"])
    assert panel.words_view.rows() == [("␣café", "␣caf·é", "20")]
    panel.filter_edit.setText(" caf")  # a typed space
    assert [gpt2_model.pieces[i] for i in panel.table_model.visible_ids()] == ["Ġcaf"]
    assert panel.table_model.data(panel.table_model.index(0, COL_PIECE)) == "␣caf"


# -- export --------------------------------------------------------------------------------


def test_export_table_csv(panel, tmp_path):
    panel.filter_edit.setText("low")
    panel.table.sortByColumn(COL_COUNT, DESC)
    path = tmp_path / "vocab.csv"
    panel.export_table_csv(str(path))
    assert path.read_text(encoding="utf-8") == (
        "id,piece,display,kind,chars,bytes,rank,count,left,right,final\n"
        "16,low,low,merged,3,3,4,7,lo,w,2\n"  # final: only in low e r </w> (lower, 2)
        "20,low</w>,low</w>,merged,3,3,8,5,low,</w>,5\n"
    )


def test_export_table_button(qtbot, panel, monkeypatch, tmp_path, errors):
    path = tmp_path / "out.csv"
    calls = ask_path(monkeypatch, path)
    with qtbot.waitSignal(panel.status_message) as signal:
        panel.export_table_button.click()
    assert calls == [("Export vocabulary table", "export", "CSV files (*.csv)", "vocabulary.csv")]
    assert len(path.read_text(encoding="utf-8").splitlines()) == 23
    assert "22 tokens" in signal.args[0] and errors == []
    ask_path(monkeypatch, tmp_path / "missing-folder" / "out.csv")
    panel.export_table_button.click()
    assert len(errors) == 1 and errors[0][0] == "Export failed"
    ask_path(monkeypatch, None)  # cancelled
    panel.export_table_button.click()
    assert len(errors) == 1


def test_a_failed_export_keeps_the_earlier_file(panel, tmp_path, monkeypatch):
    from bpe_desktop.core import safe_write

    table, plot = tmp_path / "table.csv", tmp_path / "plot.png"
    table.write_text("earlier", encoding="utf-8")
    plot.write_bytes(b"earlier")

    def full_disk(*_args):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(safe_write.os, "fsync", full_disk)
    with pytest.raises(OSError):
        panel.export_table_csv(str(table))
    with pytest.raises(OSError):
        panel.export_plot("lengths", str(plot))
    assert table.read_text(encoding="utf-8") == "earlier" and plot.read_bytes() == b"earlier"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["plot.png", "table.csv"]


@pytest.mark.parametrize("which", list(PLOTS))
def test_export_plot_files(panel, tmp_path, which):
    png, svg = tmp_path / f"{which}.png", tmp_path / f"{which}.svg"
    panel.export_plot(which, str(png))
    panel.export_plot(which, str(svg))
    image = QImage(str(png))
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert not image.isNull() and image.width() > 100 and image.height() > 100
    text = svg.read_text(encoding="utf-8")
    assert "<svg" in text and "</svg>" in text and PLOTS[which] in text
    assert "<image" not in text  # vector axes, not the pictures they are shown from
    with pytest.raises(ValueError):
        panel.export_plot(which, str(tmp_path / "plot.jpg"))
    with pytest.raises(OSError):
        panel.export_plot(which, str(tmp_path / "no" / "plot.png"))
    with pytest.raises(OSError):
        panel.export_plot(which, str(tmp_path / "no" / "plot.svg"))


def test_export_plot_button(qtbot, panel, monkeypatch, tmp_path, errors):
    panel.details.setCurrentIndex(1)
    panel.plots.tabs.setCurrentIndex(list(PLOTS).index("zipf"))
    path = tmp_path / "z.svg"
    calls = ask_path(monkeypatch, path)
    panel.export_plot_button.click()
    assert calls[0][0] == "Export plot" and calls[0][3] == "zipf.png"
    assert path.read_text(encoding="utf-8").startswith("<?xml")
    ask_path(monkeypatch, tmp_path / "z.gif")
    panel.export_plot_button.click()
    assert len(errors) == 1 and ".gif" in errors[0][1]


# -- plots ---------------------------------------------------------------------------------


def test_plot_data(qtbot, panel, botchan_model):
    show(qtbot, panel, botchan_model)
    x, y = panel.plots.plot_data("merges")
    assert x.tolist() == list(range(len(botchan_model.merges)))
    assert y.tolist() == [m.count for m in botchan_model.merges]
    tok = botchan_model.tokenizer()
    freq = Counter()
    for word, count in botchan_model.words:
        for i in tok.encode(word):
            freq[i] += count
    x, y = panel.plots.plot_data("zipf")
    assert y.tolist() == sorted(freq.values(), reverse=True)
    assert x.tolist() == list(range(1, len(freq) + 1))
    lengths = Counter(len(surface_text(p, botchan_model.config))
                      for i, p in enumerate(botchan_model.pieces) if i != 0)  # not <unk>
    x, y = panel.plots.plot_data("lengths")
    assert dict(zip(x.tolist(), y.tolist())) == {n: lengths.get(n, 0) for n in x.tolist()}
    assert sum(y) == 1999
    # what is drawn is what plot_data says
    curve = panel.plots.widgets["merges"].getPlotItem().listDataItems()[0]
    assert np.array_equal(curve.getOriginalDataset()[1], [m.count for m in botchan_model.merges])


def test_zipf_plot_agrees_with_the_final_column(qtbot, panel):
    # the model keeps only "newest" of its words; the final counts cover all four:
    # newest</w> 6, low</w> 5, wi d est</w> 3 each, low e r </w> 2 each
    words = {"low": 5, "lower": 2, "newest": 6, "widest": 3}
    model = train(Corpus.from_word_counts(words), TrainConfig(merges=10, keep_words=1)).model
    show(qtbot, panel, model)
    x, y = panel.plots.plot_data("zipf")
    assert y.tolist() == [6, 5, 3, 3, 3, 2, 2, 2, 2] and x.tolist() == list(range(1, 10))


def test_plots_without_counts_or_words(panel, tmp_path):
    model = BPEModel(config=TrainConfig(), alphabet=("a", "b", "c"),
                     merges=(Merge("a", "b"), Merge("ab", "c")))
    panel.set_model(model)
    assert panel.plots.plot_data("merges")[0].size == 0
    assert "does not record" in panel.plots.note("merges")
    assert panel.plots.plot_data("zipf")[0].size == 0
    assert "no training words" in panel.plots.note("zipf")
    x, y = panel.plots.plot_data("lengths")
    assert x.tolist() == [0, 1, 2, 3] and y.tolist() == [0, 3, 1, 1]
    panel.select_token(4)  # ab: no words to list
    assert panel.words_label.text() == "This model keeps no training words."
    assert panel.table_model.data(panel.table_model.index(4, COL_COUNT)) == "—"
    for which in PLOTS:  # empty plots still export
        panel.export_plot(which, str(tmp_path / f"{which}.png"))
        assert (tmp_path / f"{which}.png").stat().st_size > 0


def test_plots_of_empty_panel(qtbot, tmp_path):
    p = VocabPanel()
    qtbot.addWidget(p)
    for which in PLOTS:
        assert p.plots.plot_data(which)[0].size == 0
        assert p.plots.note(which) == "No model"
    p.export_plot("lengths", str(tmp_path / "empty.png"))
    assert (tmp_path / "empty.png").stat().st_size > 0


def test_plots_follow_the_theme(panel, monkeypatch):
    panel.plots.plot_data("merges")
    dark = {"background": "#1e1e1e", "foreground": "#d0d0d0", "curve": "#4fa3ff",
            "accent": "#ffb347", "grid": "#3a3a3a"}
    monkeypatch.setattr(theme, "plot_colors", lambda: dark)
    panel.plots.apply_theme()
    widget = panel.plots.widgets["merges"]
    assert widget.backgroundBrush().color().name() == "#1e1e1e"
    curve = widget.getPlotItem().listDataItems()[0]
    assert curve.opts["pen"].color().name() == "#4fa3ff"


# -- loading a large model in the background ---------------------------------------------------


def test_a_large_model_loads_in_the_background(qtbot, panel, botchan_model):
    assert chunked.model_work(botchan_model) > chunked.INLINE_WORK
    panel.select_token(14)
    with qtbot.waitSignal(panel.ready, timeout=60_000):
        panel.set_model(botchan_model)
        # set_model returned at once: a loading state, nothing of the old model left
        assert panel.is_loading()
        assert panel.count_label.text() == LOADING
        assert panel.token_label.text() == LOADING
        assert panel.table_model.rowCount() == 0 and panel.current_token() is None
        assert not panel.busy_bar.isHidden()
        assert not panel.export_table_button.isEnabled()
        assert not panel.export_plot_button.isEnabled()
        assert panel.plots.note("merges") == LOADING
    assert not panel.is_loading() and panel.busy_bar.isHidden()
    assert panel.export_table_button.isEnabled() and panel.export_plot_button.isEnabled()
    expected = VocabTableModel()
    expected.set_bpe_model(botchan_model)
    assert np.array_equal(panel.table_model.visible_ids(), expected.visible_ids())
    assert panel.count_label.text() == f"{botchan_model.vocab_size:,} of " \
        f"{botchan_model.vocab_size:,} tokens"
    for which in PLOTS:  # the plots computed in the worker are the plots
        x, y, _ = compute_plot(which, botchan_model, expected.columns,
                               lambda: TokenUsage(botchan_model))
        assert np.array_equal(panel.plots.plot_data(which)[0], x)
        assert np.array_equal(panel.plots.plot_data(which)[1], y)
    token = botchan_model.piece_ids["the</w>"]
    assert panel.select_token(token)
    assert panel.words_view.rows()[0][0] == "the"


def test_the_replaced_models_table_is_freed_off_the_gui_thread(qtbot, panel, botchan_model,
                                                               toy_model):
    # Its columns hold a string per token: dropped on the GUI thread, they held it ~5 ms at
    # 100,000 tokens as the next model was opened. The release thread frees them.
    show(qtbot, panel, botchan_model)
    for which in PLOTS:
        panel.plots.plot_data(which)  # every plot computed: the plots hold the columns too
    freed_on = {}
    for name, obj in (("table", panel._table), ("columns", panel.table_model.columns),
                      ("usage", panel._usage)):
        weakref.finalize(obj, lambda n=name: freed_on.setdefault(
            n, threading.current_thread().name))
    del obj
    show(qtbot, panel, toy_model)
    qtbot.waitUntil(lambda: len(freed_on) == 3, timeout=10_000)
    assert freed_on == dict.fromkeys(("table", "columns", "usage"), "bpe-release")


def test_filter_and_sort_set_while_loading_apply_when_it_arrives(qtbot, panel, botchan_model):
    with qtbot.waitSignal(panel.ready, timeout=60_000):
        panel.set_model(botchan_model)
        panel.filter_edit.setText("ing")
        panel.table.sortByColumn(COL_COUNT, DESC)
        panel.regex_check.setChecked(True)
        panel.filter_edit.setText("ing(")  # refused even with no rows to filter yet
        assert panel.filter_edit.toolTip().startswith("Invalid regular expression")
        panel.filter_edit.setText("ing$")
    expected = VocabTableModel()
    expected.set_bpe_model(botchan_model)
    expected.set_filter("ing$", regex=True)
    expected.sort(COL_COUNT, DESC)
    assert panel.table_model.visible_ids().tolist() == expected.visible_ids().tolist() != []
    assert panel.count_label.text().startswith(f"{expected.rowCount():,} of ")


def test_a_newer_model_supersedes_one_still_loading(qtbot, panel, botchan_model, gpt2_model,
                                                    monkeypatch):
    monkeypatch.setattr(vocab_panel, "INLINE_WORK", 0)  # both load in the background
    ready = []
    panel.ready.connect(lambda: ready.append(panel.table_model.total_count()))
    panel.set_model(botchan_model)
    panel.set_model(gpt2_model)
    qtbot.waitUntil(lambda: bool(ready), timeout=60_000)
    qtbot.waitUntil(lambda: not panel._jobs.busy, timeout=60_000)
    assert ready == [gpt2_model.vocab_size]  # botchan's table never arrived
    assert panel.table_model.bpe_model() is gpt2_model


def test_a_small_model_or_none_replaces_one_still_loading(qtbot, panel, botchan_model,
                                                          toy_model):
    ready = []
    panel.ready.connect(lambda: ready.append(panel.table_model.total_count()))
    panel.set_model(botchan_model)
    panel.set_model(toy_model)  # loads at once
    assert ready == [22] and not panel.is_loading()
    panel.set_model(botchan_model)
    panel.set_model(None)
    assert ready == [22, 0] and panel.count_label.text() == "0 of 0 tokens"
    qtbot.waitUntil(lambda: not panel._jobs.busy, timeout=60_000)
    qtbot.wait(50)
    assert ready == [22, 0] and panel.table_model.bpe_model() is None


def test_callers_that_cannot_wait_get_the_model_loaded(qtbot, panel, botchan_model, tmp_path):
    panel.set_model(botchan_model)
    assert panel.is_loading()
    token = botchan_model.piece_ids["the</w>"]
    with qtbot.waitSignal(panel.ready, timeout=1000):  # emitted while loading here
        assert panel.select_token(token)
    assert not panel.is_loading() and panel.current_token() == token
    assert panel.words_view.rows()[0][0] == "the"
    panel.set_model(botchan_model)
    path = tmp_path / "vocab.csv"
    panel.export_table_csv(str(path))
    assert len(path.read_text(encoding="utf-8").splitlines()) == botchan_model.vocab_size + 1


def test_zipf_draws_few_points_evenly_on_its_log_axis(qtbot, panel, botchan_model,
                                                       monkeypatch):
    from bpe_desktop.ui.vocabulary import plots as vocab_plots

    monkeypatch.setattr(vocab_plots, "ZIPF_POINTS", 50)
    show(qtbot, panel, botchan_model)
    ranks, freq = panel.plots.plot_data("zipf")  # the data: every rank
    assert len(ranks) > 500
    x, y = panel.plots.widgets["zipf"].getPlotItem().listDataItems()[0].getOriginalDataset()
    assert len(x) <= 50 and x[0] == 1 and x[-1] == ranks[-1]  # the head is drawn too
    assert np.array_equal(y, freq[np.asarray(x, dtype=np.int64) - 1])
    # Evenly spaced on the log axis: consecutive ranks at the head, then equal steps.
    step = np.log10(ranks[-1]) / 49
    consecutive = np.diff(x) == 1
    assert np.all(consecutive | (np.diff(np.log10(x)) < 1.5 * step))


def test_final_frequencies_and_intermediate_filter(panel):
    """The Final column fills in once the words are segmented; the Intermediate box
    keeps the merged tokens the final segmentation hardly uses."""
    from bpe_desktop.views.vocab_table import COL_FINAL
    from bpe_desktop.ui.vocabulary.table_model import RawRole

    model = panel.table_model.bpe_model()
    final = model.final_counts
    shown = {panel.table_model.token_id(r): panel.table_model.data(
        panel.table_model.index(r, COL_FINAL), RawRole)
        for r in range(panel.table_model.rowCount())}
    assert shown == {i: int(final[i]) for i in shown}
    panel.intermediate_check.setChecked(True)
    kept = {model.pieces[panel.table_model.token_id(r)]
            for r in range(panel.table_model.rowCount())}
    assert kept == {"es", "est", "lo", "ne", "new"}
    assert panel.count_label.text() == "5 of 22 tokens"
