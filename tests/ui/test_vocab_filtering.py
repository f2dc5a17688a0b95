"""The vocabulary table's filter computed in a worker thread: the model's
filter_job/apply_filter_result, and the panel's typing path."""

from __future__ import annotations

import numpy as np
import pytest

from bpe_desktop.core import BPEModel, Corpus, TrainConfig, train
from bpe_desktop.views.vocab_table import COL_COUNT, TokenUsage, make_filter_spec
from bpe_desktop.ui.vocabulary import filtering
from bpe_desktop.ui.vocabulary.panel import VocabPanel
from bpe_desktop.ui.vocabulary.table_model import VocabTableModel

from tests.ui.test_vocab_panel import DESC, show

TEXT = ("the cat sat on the mat. there, then, they went; the thing is\n"
        "lower newest widest low lowest ThE End\n") * 30


@pytest.fixture(scope="module")
def model() -> BPEModel:
    return train(Corpus.from_texts([TEXT]), TrainConfig.preset("gpt2", vocab_size=400)).model


@pytest.fixture
def panel(qtbot, model, monkeypatch) -> VocabPanel:
    """A panel that filters every table in the worker thread."""
    monkeypatch.setattr(filtering, "INLINE_FILTER_ROWS", 0)
    p = VocabPanel()
    qtbot.addWidget(p)
    p.resize(1200, 700)
    show(qtbot, p, model)
    return p


def expected_ids(model: BPEModel, **settings) -> list[int]:
    vm = VocabTableModel()
    vm.set_bpe_model(model)
    vm.set_filter(**settings)
    return vm.visible_ids().tolist()


def wait_filtered(qtbot, panel: VocabPanel) -> None:
    qtbot.waitUntil(lambda: not panel.is_filtering(), timeout=30_000)


# -- the model -------------------------------------------------------------------------------


@pytest.mark.parametrize("settings", [
    {"text": "the"}, {"text": "^␣th", "regex": True}, {"min_length": 3, "max_length": 4},
    {"text": "e", "case_sensitive": True, "min_length": 2}, {},
])
def test_a_filter_job_shows_what_set_filter_shows(model, settings):
    vm = VocabTableModel()
    vm.set_bpe_model(model)
    vm.sort(COL_COUNT, DESC)
    job = vm.filter_job(make_filter_spec(**settings))
    assert vm.apply_filter_result(job())
    assert vm.filter_error is None and vm.filter_spec() == make_filter_spec(**settings)
    expected = VocabTableModel()
    expected.set_bpe_model(model)
    expected.sort(COL_COUNT, DESC)
    expected.set_filter(**settings)
    assert vm.visible_ids().tolist() == expected.visible_ids().tolist()


def test_a_result_for_a_replaced_table_is_ignored(model, toy_model):
    vm = VocabTableModel()
    vm.set_bpe_model(model)
    result = vm.filter_job(make_filter_spec("the"))()
    vm.set_bpe_model(toy_model)
    before = vm.visible_ids().tolist()
    assert not vm.apply_filter_result(result)
    assert vm.visible_ids().tolist() == before and vm.filter_spec() == make_filter_spec()


def test_a_result_made_before_the_final_frequencies_arrived_is_ignored(model):
    vm = VocabTableModel()
    vm.set_bpe_model(model)
    result = vm.filter_job(make_filter_spec(intermediate=True))()
    vm.set_final(TokenUsage(model).frequencies())
    assert not vm.apply_filter_result(result)


def test_an_invalid_regex_result_keeps_the_filter(model):
    vm = VocabTableModel()
    vm.set_bpe_model(model)
    vm.set_filter("the")
    shown = vm.visible_ids().tolist()
    assert vm.apply_filter_result(vm.filter_job(make_filter_spec("the(", regex=True))())
    assert vm.filter_error.startswith("Invalid regular expression")
    assert vm.visible_ids().tolist() == shown and vm.filter_spec() == make_filter_spec("the")


def test_no_filter_job_without_a_table():
    with pytest.raises(ValueError):
        VocabTableModel().filter_job(make_filter_spec("a"))


# -- the panel -------------------------------------------------------------------------------


def test_small_tables_are_filtered_at_once(qtbot, toy_model):
    assert filtering.INLINE_FILTER_ROWS >= toy_model.vocab_size
    p = VocabPanel()
    qtbot.addWidget(p)
    p.set_model(toy_model)
    p.filter_edit.setText("est")
    assert not p.is_filtering() and p.count_label.text() == "3 of 22 tokens"


def test_typing_fast_ends_with_the_last_filter(qtbot, panel, model):
    seen = []
    panel.filtered.connect(lambda: seen.append(panel.filter_edit.text()))
    for text in ("t", "th", "the", "ther", "the"):  # no event processed in between
        panel.filter_edit.setText(text)
    assert panel.is_filtering()
    assert panel.table_model.rowCount() == model.vocab_size  # not filtered yet
    with qtbot.waitSignal(panel.filtered, timeout=30_000):
        pass
    wait_filtered(qtbot, panel)
    assert seen == ["the"]  # the superseded filters never arrived
    expected = expected_ids(model, text="the")
    assert panel.table_model.visible_ids().tolist() == expected != []
    assert panel.count_label.text() == f"{len(expected):,} of {model.vocab_size:,} tokens"


def test_every_setting_goes_through_the_worker(qtbot, panel, model):
    panel.regex_check.setChecked(True)
    panel.case_check.setChecked(True)
    panel.min_length.setValue(2)
    panel.max_length.setValue(5)
    panel.filter_edit.setText("^[a-z]")
    wait_filtered(qtbot, panel)
    assert panel.table_model.visible_ids().tolist() == expected_ids(
        model, text="^[a-z]", regex=True, case_sensitive=True, min_length=2, max_length=5)


def test_an_invalid_regex_reports_its_error(qtbot, panel, model):
    panel.regex_check.setChecked(True)
    panel.filter_edit.setText("^␣th")
    wait_filtered(qtbot, panel)
    shown = panel.table_model.visible_ids().tolist()
    with qtbot.waitSignal(panel.status_message, timeout=30_000) as message:
        panel.filter_edit.setText("^␣th(")
    assert message.args[0].startswith("Invalid regular expression")
    wait_filtered(qtbot, panel)
    assert "border" in panel.filter_edit.styleSheet()
    assert panel.filter_edit.toolTip().startswith("Invalid regular expression")
    assert not panel.error_label.isHidden()
    assert panel.table_model.visible_ids().tolist() == shown  # the filter stays
    panel.filter_edit.setText("^␣th(e)")
    wait_filtered(qtbot, panel)
    assert panel.filter_edit.styleSheet() == "" and panel.error_label.isHidden()
    assert panel.table_model.visible_ids().tolist() == expected_ids(
        model, text="^␣th(e)", regex=True)


def test_the_selection_is_kept_when_its_row_survives(qtbot, panel, model):
    token = model.piece_ids["Ġthe"]
    assert panel.select_token(token)
    panel.filter_edit.setText("th")
    wait_filtered(qtbot, panel)
    assert panel.table_model.token_id(panel.table.currentIndex().row()) == token
    panel.filter_edit.setText("lowest")  # filtered out: the details stay
    wait_filtered(qtbot, panel)
    assert not panel.table.currentIndex().isValid()
    assert panel.current_token() == token
    panel.filter_edit.setText("")
    wait_filtered(qtbot, panel)
    assert panel.table_model.token_id(panel.table.currentIndex().row()) == token


def test_a_filter_typed_before_a_model_change_applies_to_the_new_model(qtbot, panel, toy_model):
    panel.filter_edit.setText("est")
    assert panel.is_filtering()
    show(qtbot, panel, toy_model)
    wait_filtered(qtbot, panel)
    assert panel.table_model.bpe_model() is toy_model
    assert panel.table_model.visible_ids().tolist() == expected_ids(toy_model, text="est")
    assert panel.count_label.text() == "3 of 22 tokens"


def test_a_result_arriving_after_the_table_changed_is_computed_again(qtbot, panel, model):
    panel.intermediate_check.setChecked(True)
    wait_filtered(qtbot, panel)
    assert panel.is_filtering() is False
    panel.filter_edit.setText("e")  # submitted for the table as it is now...
    panel.table_model.set_final(np.zeros(model.vocab_size, dtype=np.int64))  # ...then changed
    wait_filtered(qtbot, panel)
    vm = VocabTableModel()
    vm.set_bpe_model(model)
    vm.set_final(np.zeros(model.vocab_size, dtype=np.int64))
    vm.set_filter("e", intermediate=True)
    assert panel.table_model.visible_ids().tolist() == vm.visible_ids().tolist() != []


def test_select_token_and_export_wait_for_a_pending_filter(qtbot, panel, model, tmp_path):
    panel.filter_edit.setText("lowest")
    assert panel.is_filtering()
    assert not panel.select_token(model.piece_ids["Ġthe"])  # the new filter decides
    assert not panel.is_filtering()
    assert panel.table_model.visible_ids().tolist() == expected_ids(model, text="lowest")
    panel.filter_edit.setText("then")
    panel.export_table_csv(str(tmp_path / "t.csv"))
    lines = (tmp_path / "t.csv").read_text(encoding="utf-8").splitlines()
    assert len(lines) == 1 + len(expected_ids(model, text="then"))


def test_final_frequencies_refilter_only_an_intermediate_filter(model, monkeypatch):
    vm = VocabTableModel()
    vm.set_bpe_model(model)
    vm.set_filter("the")
    shown = vm.visible_ids().tolist()
    computed = []
    compute = vm._compute_mask
    monkeypatch.setattr(vm, "_compute_mask", lambda *spec: computed.append(spec) or
                        compute(*spec))
    final = TokenUsage(model).frequencies()
    vm.set_final(final)
    assert computed == [] and vm.visible_ids().tolist() == shown
    vm.set_filter("the", intermediate=True)
    vm.set_final(final)
    assert computed[-1] == make_filter_spec("the", intermediate=True)
    expected = VocabTableModel()
    expected.set_bpe_model(model)
    expected.set_final(final)
    expected.set_filter("the", intermediate=True)
    assert vm.visible_ids().tolist() == expected.visible_ids().tolist()
