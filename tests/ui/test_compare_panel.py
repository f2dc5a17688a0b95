"""The Compare panel: tokenizers from memory, model files and imports; aligned words with
highlighting, hide-identical and hover; pair and metrics tables; the tokens-per-line
scatter; overlap lists and CSV. And the Encode/Decode panel's BPE-dropout samples."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QPushButton

from bpe_desktop.core import BPEModel, Corpus, TrainConfig, save_model, train
from bpe_desktop.core.comparison import compare
from bpe_desktop.core.comparison.alignment import AlignedWord
from bpe_desktop.core.formats import export_model
from bpe_desktop.ui.codec.panel import CodecPanel
from bpe_desktop.ui.compare import ComparePanel
from bpe_desktop.ui.compare.table_models import DIFFERENT_COLOR

pytest_plugins = ["tests.ui.window_fixtures"]

BOTCHAN = Path(__file__).resolve().parents[2] / "bpe_desktop/resources/examples/botchan.txt"
TEXT = "lowest newer\nwidest low lowest"


@pytest.fixture(scope="module")
def toy() -> BPEModel:
    return train(Corpus.from_word_counts({"low": 5, "lower": 2, "newest": 6, "widest": 3,
                                          "happier": 2}), TrainConfig(merges=10)).model


@pytest.fixture
def panel(qtbot, toy):
    p = ComparePanel()
    qtbot.addWidget(p)
    p.set_model(toy)
    return p


def _run(panel, qtbot):
    with qtbot.waitSignal(panel.compared, timeout=60_000):
        panel.compare_button.click()


def _filled(panel, qtbot, toy):
    assert panel.add_current()
    assert panel.add_model("short", toy.truncated(3))
    panel.set_text(TEXT)
    _run(panel, qtbot)
    return panel


def test_words_are_aligned_and_differences_highlighted(panel, qtbot, toy):
    _filled(panel, qtbot, toy)
    m = panel.words_model
    assert [m.headerData(c, Qt.Orientation.Horizontal) for c in range(4)] == [
        "line", "word", "current model", "short"]
    rows = [[m.data(m.index(r, c)) for c in range(4)] for r in range(m.rowCount())]
    assert rows == [
        ["1", "lowest", "low · est", "l · o · w · est"],
        ["1", "newer", "new · er", "n · e · w · e · r"],
        ["2", "widest", "w · i · d · est", "w · i · d · est"],
        ["2", "low", "low", "l · o · w"],
        ["2", "lowest", "low · est", "l · o · w · est"],
    ]
    background = lambda r, c: m.data(m.index(r, c), Qt.ItemDataRole.BackgroundRole)
    assert background(0, 3).color().name() == DIFFERENT_COLOR
    assert background(2, 3) is None  # "widest": cut alike
    assert background(0, 2) is None  # the first tokenizer is the reference


def test_hide_identical_keeps_only_words_cut_differently(panel, qtbot, toy):
    _filled(panel, qtbot, toy)
    panel.set_hide_identical(True)
    m = panel.words_model
    assert [m.data(m.index(r, 1)) for r in range(m.rowCount())] == [
        "lowest", "newer", "low", "lowest"]
    panel.set_hide_identical(False)
    assert m.rowCount() == 5


def test_hide_identical_judges_no_word_on_the_gui_thread(panel, qtbot, toy, monkeypatch):
    """A long text repeats its words: judging them when the box is ticked held the window
    for a fifth of a second at 180,000 words; they are judged by the comparing worker."""
    panel.add_current()
    panel.add_model("short", toy.truncated(3))
    panel.set_text("lowest newer widest low\n" * 2000)
    _run(panel, qtbot)
    judged = []
    real = AlignedWord.identical
    monkeypatch.setattr(AlignedWord, "identical",
                        lambda self, a, b: judged.append(self.word) or real(self, a, b))
    panel.set_hide_identical(True)
    assert judged == []
    alignment = panel.comparison.alignment
    cut_apart = {n for n, w in enumerate(alignment.words) if not real(w, 0, 1)}
    assert panel.words_model.rowCount() == sum(o.word in cut_apart
                                               for o in alignment.occurrences) == 6000
    m = panel.words_model
    assert [m.data(m.index(r, 1)) for r in range(3)] == ["lowest", "newer", "low"]


def test_hovering_a_cell_shows_each_tokens_id_and_rank(panel, qtbot, toy):
    _filled(panel, qtbot, toy)
    m = panel.words_model
    tip = m.data(m.index(1, 2), Qt.ItemDataRole.ToolTipRole)  # "newer" by the full model
    assert tip.splitlines() == [
        f"new   id {toy.piece_to_id('new')}, rank 6",
        f"er   id {toy.piece_to_id('er')}, rank 9",
        f"</w>   id {toy.piece_to_id('</w>')}, alphabet or special",
    ]


def test_summary_tables_and_scatter_are_the_cores(panel, qtbot, toy):
    _filled(panel, qtbot, toy)
    expected = compare([("current model", toy), ("short", toy.truncated(3))],
                       TEXT.splitlines())
    row = panel.pair_model.rows[0]
    assert row[0] == "current model → short"
    assert row[1:4] == pytest.approx([6 / 15, 1.0, 0.8 / 1.4])
    assert row[4] == pytest.approx(0.2)
    assert row[6:] == [12, 22, 15, 6, 0]
    assert panel.metrics_model.headers == ["measure", "current model", "short"]
    fertility = next(r for r in panel.metrics_model.rows if r[0].startswith("fertility"))
    assert fertility[1:] == [s.fertility for s in expected.stats]
    assert list(panel.scatter.x) == [5, 7] and list(panel.scatter.y) == [10, 12]


def test_lines_of_the_same_counts_are_one_spot_of_the_scatter(panel, qtbot, toy):
    """A long text's lines repeat their token counts: each (A, B) pair is drawn once,
    not once per line (a spot per line of a 1 MB text held the window for 60 ms)."""
    panel.add_current()
    panel.add_model("short", toy.truncated(3))
    panel.set_text("lowest newer\n" * 500 + "widest low lowest\n" * 300 + "low\n")
    _run(panel, qtbot)
    assert len(panel.scatter.x) == len(panel.scatter.y) == 801  # the lines' counts
    spots = {(s.pos().x(), s.pos().y()) for s in panel.scatter.points.points()}
    assert spots == set(zip(panel.scatter.x, panel.scatter.y))
    assert len(panel.scatter.points.points()) == len(spots) == 3


def test_overlap_lists_browse_and_export_csv(panel, qtbot, toy, tmp_path):
    _filled(panel, qtbot, toy)
    m = panel.overlap_model
    assert m.rowCount() == 15  # "in both" first
    panel.category_combo.setCurrentIndex(panel.category_combo.findData("only_a"))
    texts = sorted(m.data(m.index(r, 0)) for r in range(m.rowCount()))
    assert texts == sorted(["lo", "low", "ne", "new", "newest", "er"])
    low = next(r for r in range(m.rowCount()) if m.data(m.index(r, 0)) == "low")
    assert m.data(m.index(low, 1)) == "low low</w>"
    assert "6 only in current model" in panel.overlap_label.text()
    path = tmp_path / "only_a.csv"
    panel.export_overlap_csv(str(path))
    with open(path, encoding="utf-8", newline="") as fh:
        rows = list(csv.reader(fh))
    assert rows[0] == ["text", "in", "pieces_a", "pieces_b"]
    assert sorted(r[0] for r in rows[1:]) == texts and {r[1] for r in rows[1:]} == {"only_a"}


def test_files_and_imports_compare_with_a_text_file(panel, qtbot, tmp_path):
    model = train(Corpus.from_files([str(BOTCHAN)]),
                  TrainConfig.preset("subword-nmt", vocab_size=500)).model
    ours, hf = tmp_path / "m.json", tmp_path / "tokenizer.json"
    save_model(model, ours)
    export_model(model, "hf", hf)
    text = tmp_path / "text.txt"
    text.write_text("\n".join(BOTCHAN.read_text(encoding="utf-8").splitlines()[:200]),
                    encoding="utf-8")
    assert panel.add_file(str(ours)) and panel.add_file(str(hf), "hf")
    panel.set_text_file(str(text))
    _run(panel, qtbot)
    pair = panel.comparison.pairs[0]
    assert (pair.a, pair.b) == ("m.json", "tokenizer.json")
    assert pair.f1 == 1.0 and pair.identical_share == 1.0 and pair.words > 1000
    panel.set_hide_identical(True)
    assert panel.words_model.rowCount() == 0


def test_a_tokenizer_json_added_as_a_model_file_is_read_as_one(panel, qtbot, toy, tmp_path,
                                                                errors):
    """*Add model file…* lists every .json: a Hugging Face tokenizer.json chosen there was
    refused when comparing ("not a BPE Desktop model file")."""
    model = train(Corpus.from_word_counts({"low": 5, "lower": 2, "newest": 6, "widest": 3}),
                  TrainConfig.preset("subword-nmt", merges=10)).model
    hf = tmp_path / "tokenizer.json"
    export_model(model, "hf", hf)
    assert panel.add_model("ours", model) and panel.add_file(str(hf))
    panel.set_text(TEXT)
    _run(panel, qtbot)
    assert not errors
    assert panel.comparison.pairs[0].f1 == 1.0


def test_typed_text_is_read_as_a_file_is(panel, qtbot, toy, tmp_path):
    assert panel.add_current() and panel.add_model("short", toy.truncated(3))
    text = "lowest\x0cnewer\r\nwidest low lowest\n"  # a form feed is not a line break
    panel.set_text(text)
    _run(panel, qtbot)
    typed = panel.comparison.alignment
    # two lines: low est</w> new er </w> = 5 and w i d est</w> low</w> low est</w> = 7
    assert typed.line_tokens[0] == [5, 7]
    assert [o.line for o in typed.occurrences] == [1, 1, 2, 2, 2]
    path = tmp_path / "text.txt"
    path.write_bytes(text.encode("utf-8"))
    panel.set_text_file(str(path))
    _run(panel, qtbot)
    assert panel.comparison.alignment.line_tokens == typed.line_tokens


def test_at_most_four_and_at_least_two(panel, qtbot, toy):
    assert not panel.compare_button.isEnabled()
    panel.add_current()
    assert not panel.add_current_button.isEnabled()  # already in
    panel.start()
    assert "at least 2" in panel.status_label.text()
    for k in range(3):
        assert panel.add_model("cut", toy.truncated(k))
    assert [s.name for s in panel.sources] == ["current model", "cut", "cut (2)", "cut (3)"]
    assert not panel.add_model("fifth", toy)
    assert not panel.add_file_button.isEnabled() and not panel.import_button.isEnabled()
    panel.remove_source(1)
    assert panel.add_file_button.isEnabled() and len(panel.sources) == 3


def test_a_bad_file_is_reported_not_raised(panel, qtbot, errors, tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{ not json", encoding="utf-8")
    panel.add_current()
    panel.add_file(str(bad))
    panel.set_text("lowest")
    with qtbot.waitSignal(panel.runner.stopped, timeout=30_000):
        panel.start()
    assert errors and errors[0][0] == "Cannot compare" and "bad.json" in errors[0][1]
    assert "Comparison failed" in panel.status_label.text()


def test_the_current_model_is_a_snapshot_not_a_live_link(panel, qtbot, toy, tmp_path):
    # A as a file, B as "current model"; then another model is opened: B must stay B
    a = tmp_path / "a.json"
    save_model(toy.truncated(3), a)
    panel.add_file(str(a))
    panel.set_model(toy, "b.json")
    assert panel.add_current() and not panel.add_current_button.isEnabled()
    panel.set_model(toy.truncated(3), "other.json")
    assert [s.name for s in panel.sources] == ["a.json", "b"]
    assert panel.sources[1].model is toy
    panel.set_text(TEXT)
    _run(panel, qtbot)
    assert panel.pair_model.rows[0][0] == "a.json → b" and panel.comparison.pairs[0].f1 < 1.0
    # the newly opened model can be added beside the snapshot, under its own name
    assert panel.add_current_button.isEnabled() and panel.add_current()
    assert [s.name for s in panel.sources] == ["a.json", "b", "other"]
    panel.set_model(None)
    assert len(panel.sources) == 3


def test_the_window_names_the_snapshot_after_the_document(window, qtbot, toy, tmp_path):
    path = tmp_path / "botchan-800.json"
    save_model(toy, path)
    window.document.open(str(path))
    assert window.compare.add_current()
    window.document.set_imported(toy.truncated(2))
    assert window.compare.add_current()
    assert [s.name for s in window.compare.sources] == ["botchan-800", "Untitled"]



def test_one_word_is_counted_in_the_singular(panel, qtbot, toy):
    panel.add_current()
    panel.add_model("short", toy.truncated(3))
    panel.set_text("lowest")
    _run(panel, qtbot)
    assert panel.words_label.text() == "1 word, 1 distinct"
    assert panel.status_label.text() == "Compared 2 tokenizers on 1 word."


def test_esc_cancels_the_comparison_in_view(window, qtbot, monkeypatch, toy):
    from bpe_desktop.ui.compare import panel as compare_panel
    from tests.ui.window_helpers import held_back

    go_on = held_back(monkeypatch, compare_panel, "compare")
    window.tabs.setCurrentIndex(window.COMPARE)
    window.compare.add_model("full", toy)
    window.compare.add_model("short", toy.truncated(3))
    window.compare.set_text(TEXT)
    window.compare.compare_button.click()
    assert window.cancel_action.isEnabled()
    with qtbot.waitSignal(window.compare.runner.cancelled, timeout=20_000):
        qtbot.keyClick(window, Qt.Key.Key_Escape)
        go_on.set()
    assert window.compare.comparison is None
    assert window.compare.status_label.text() == "Comparison cancelled."
    assert window.compare.compare_button.isEnabled() and not window.cancel_action.isEnabled()

def test_main_window_has_the_panel_on_ctrl_5(window):
    index = window.tabs.indexOf(window.compare)
    assert window.tabs.tabText(index) == "C&ompare"
    shortcuts = {a.shortcut().toString(): a for a in window.actions()}
    shortcuts["Ctrl+5"].trigger()
    assert window.tabs.currentIndex() == index


def test_buttons_import_a_format_and_export_the_list(window, ui, qtbot, toy, tmp_path):
    window.document.set_imported(toy)
    panel = window.compare
    assert panel.add_current_button.isEnabled()
    panel.add_current_button.click()
    hf = tmp_path / "tokenizer.json"
    export_model(_suffix_model(), "hf", hf)
    panel.format_combo.setCurrentIndex(panel.format_combo.findData("hf"))
    ui.open_paths = [str(hf)]
    panel.import_button.click()
    assert [s.fmt for s in panel.sources] == ["model", "hf"]
    panel.set_text(TEXT)
    _run(panel, qtbot)
    ui.save_path = str(tmp_path / "list.csv")
    # (the suffix model has no piece of its own: its "only in B" list is empty, and an
    # empty list is not exported)
    panel.category_combo.setCurrentIndex(panel.category_combo.findData("only_b"))
    button = next(b for b in panel.findChildren(QPushButton) if b.text() == "Export CSV…"
                  and not panel.languages.isAncestorOf(b))  # the overlap tab's
    assert not button.isEnabled()
    panel.category_combo.setCurrentIndex(panel.category_combo.findData("only_a"))
    button.click()
    assert ui.suggested_names[-1] == "vocabulary-only_a.csv"
    with open(ui.save_path, encoding="utf-8", newline="") as fh:
        rows = list(csv.reader(fh))
    assert len(rows) == 1 + panel.comparison.overlaps[0].count("only_a") > 1


def _suffix_model() -> BPEModel:
    """A subword-nmt style model (hf can hold it): e+s, es+t</w>."""
    from bpe_desktop.core import Merge

    return BPEModel(TrainConfig.preset("subword-nmt"), ("e", "s", "t", "t</w>", "w", "l", "o"),
                    (Merge("e", "s"), Merge("es", "t</w>")))


# -- BPE-dropout samples in Encode / Decode ----------------------------------------------


@pytest.fixture
def codec(qtbot, toy):
    widget = CodecPanel()
    qtbot.addWidget(widget)
    widget.set_model(toy)
    assert not widget.dropout_box.isChecked()  # folded until asked for
    widget.dropout_box.setChecked(True)
    with qtbot.waitSignal(widget.dropout_box.sampled, timeout=10_000):
        widget.set_text("lowest newest widest lower")
    return widget


def test_dropout_opens_at_a_tenth_with_room_and_coloured_pieces(codec, qtbot, toy):
    from PySide6.QtGui import QColor, QTextCursor

    from bpe_desktop.ui.common import theme

    box = codec.dropout_box
    assert box.probability == 0.1  # at 0 every sample would be the same
    codec.resize(1200, 800)
    codec.show()
    qtbot.waitExposed(codec)
    assert box.view.height() >= 4 * box.view.fontMetrics().lineSpacing()
    first = box.samples[0][1][0]
    text = box.view.toPlainText()
    cursor = QTextCursor(box.view.document())
    cursor.setPosition(text.index(first, text.index("tokens:")) + 1)
    assert cursor.charFormat().background().color() == QColor(theme.piece_colors()[0])


def test_dropout_zero_shows_ordinary_encoding(codec, qtbot, toy):
    box = codec.dropout_box
    with qtbot.waitSignal(box.sampled):
        box.slider.setValue(0)  # p = 0
    assert box.probability == 0.0
    ordinary = toy.tokenizer().encode_as_pieces("lowest newest widest lower")
    assert box.samples == [(len(ordinary), ordinary)] * 5
    assert f"#1  {len(ordinary)} tokens:" in box.view.toPlainText()


def test_dropout_one_shows_single_symbols(codec, qtbot, toy):
    box = codec.dropout_box
    with qtbot.waitSignal(box.sampled):
        box.slider.setValue(box.slider.maximum())  # p = 1
    symbols = toy.truncated(0).tokenizer().encode_as_pieces("lowest newest widest lower")
    assert {tuple(p) for _, p in box.samples} == {tuple(symbols)}


def test_resample_draws_new_reproducible_samples(codec, qtbot, toy):
    box = codec.dropout_box
    with qtbot.waitSignal(box.sampled):
        box.slider.setValue(box.slider.maximum() // 2)  # p = 0.5
    with qtbot.waitSignal(box.sampled):
        box.count_spin.setValue(8)
    tok = toy.tokenizer()
    text = "lowest newest widest lower"
    expected = [tok.encode_as_pieces(text, dropout=0.5, seed=box.seed + k) for k in range(8)]
    assert [p for _, p in box.samples] == expected
    before = box.seed
    with qtbot.waitSignal(box.sampled):
        box.resample_button.click()
    assert box.seed != before
    for _, pieces in box.samples:
        assert tok.decode_pieces(pieces) == text
    box.setChecked(False)  # folded: nothing is sampled
    box.resample_button.click()
    assert box.samples == [] and not box.content.isVisible()


def test_dropout_box_exports_tokenizer_json_with_its_p(window, ui, qtbot, tmp_path):
    import json

    model = train(Corpus.from_files([str(BOTCHAN)]),
                  TrainConfig.preset("subword-nmt", merges=200)).model
    window.document.set_imported(model)
    box = window.codec.dropout_box
    box.setChecked(True)
    box.slider.setValue(round(0.3 * box.slider.maximum()))
    ui.save_path = str(tmp_path / "tokenizer.json")
    with qtbot.waitSignal(window.interop.done, timeout=60_000):
        box.export_button.click()
    written = json.loads(Path(ui.save_path).read_text(encoding="utf-8"))
    assert written["model"]["dropout"] == pytest.approx(0.3)
    assert ui.errors == []


def test_unfolded_dropout_fits_a_1024_by_700_window_with_a_usable_slider(window, qtbot, toy):
    window.document.set_imported(toy)
    window.tabs.setCurrentWidget(window.codec)
    box = window.codec.dropout_box
    box.setChecked(True)
    window.resize(1024, 700)
    qtbot.waitUntil(lambda: window.size().width() == 1024)
    qtbot.wait(50)  # the layouts settle
    assert window.height() == 700  # (it grew to 719 px, its bottom off a 700 px screen)
    assert box.slider.width() >= 150  # (squeezed to 15 px beside the buttons)
    assert box.view.height() >= 2 * box.view.fontMetrics().lineSpacing()
