"""The Evaluate and Compare panels show a warning line above their results when a model
they measured only approximates the tokenizer it was imported from (its notes), and none
for a model without notes."""

from __future__ import annotations

import pytest

from bpe_desktop.core import BPEModel, Corpus, TrainConfig, train
from bpe_desktop.ui.compare import ComparePanel
from bpe_desktop.ui.evaluate import EvaluatePanel
from tests.approximate_import import NOTE, approximate_model, write_tokenizer_json

TEXT = "low lowab 12\nab xyz low"
WARNING = ("⚠ The figures describe an approximation of the imported tokenizer, not the "
           f"tokenizer itself: {NOTE}")


@pytest.fixture(scope="module")
def plain() -> BPEModel:
    return train(Corpus.from_word_counts({"low": 5, "lowab": 2, "ab": 3}),
                 TrainConfig(merges=4)).model


def _run(qtbot, finished, button):
    """Click a panel's run button and wait for its results (the job runs in a QThread)."""
    with qtbot.waitSignal(finished, timeout=60_000):
        button.click()


def test_evaluate_warns_above_the_results_of_an_approximate_import(qtbot, tmp_path, plain):
    panel = EvaluatePanel()
    qtbot.addWidget(panel)
    label = panel.approximation_warning
    assert label.isHidden() and label.text() == ""
    panel.set_model(approximate_model(tmp_path))
    panel.pasted_edit.setPlainText(TEXT)
    _run(qtbot, panel.evaluated, panel.evaluate_button)
    assert panel.report.approximations == (NOTE,)
    assert not label.isHidden() and label.text() == WARNING
    # beside every tab's figures, not inside one tab
    assert not panel.results.isAncestorOf(label)
    assert label.parentWidget() is panel.results.parentWidget()
    # another model clears it at once, and its own results bring none
    panel.set_model(plain)
    assert label.isHidden() and label.text() == ""
    _run(qtbot, panel.evaluated, panel.evaluate_button)
    assert panel.report.approximations == ()
    assert label.isHidden() and label.text() == ""


def test_compare_names_the_approximate_import_among_the_tokenizers(qtbot, tmp_path, plain):
    panel = ComparePanel()
    qtbot.addWidget(panel)
    label = panel.approximation_warning
    assert panel.add_model("plain", plain)
    assert panel.add_file(str(write_tokenizer_json(tmp_path)), "hf")  # read by the job
    panel.set_text(TEXT)
    _run(qtbot, panel.compared, panel.compare_button)
    assert not label.isHidden()
    assert label.text() == ("⚠ tokenizer.json: its figures describe an approximation of "
                            f"the imported tokenizer, not the tokenizer itself: {NOTE}")
    assert not panel.results.isAncestorOf(label)
    # the same comparison without the import: no line
    panel.remove_source(1)
    assert panel.add_model("short", plain.truncated(2))
    _run(qtbot, panel.compared, panel.compare_button)
    assert label.isHidden() and label.text() == ""
