"""Evaluate's "Compare with unconstrained": enabled for constrained models only, trains
the counterpart in a worker and shows both models' measures and the changed words."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from bpe_desktop.core import Corpus, TrainConfig, train
from bpe_desktop.core.comparison.unconstrained import unconstrained_config
from bpe_desktop.core.evaluation import read_gold
from bpe_desktop.ui.evaluate import EvaluatePanel, unconstrained

DATA = Path(__file__).resolve().parents[1] / "data"
GOLD = DATA / "morph" / "eng.word.dev.tsv"


@pytest.fixture(scope="module")
def corpus_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("corpus") / "text.txt"
    words = " ".join(w.word for w in read_gold(GOLD).words)
    shakespeare = (DATA / "tinyshakespeare.txt").read_text(encoding="utf-8")[:100_000]
    path.write_text(shakespeare + (words + "\n") * 3, encoding="utf-8")
    return path


@pytest.fixture
def panel(qtbot):
    p = EvaluatePanel()
    qtbot.addWidget(p)
    yield p
    p.shutdown()


def test_the_button_is_for_constrained_models(panel, corpus_file):
    button = panel.unconstrained_button
    assert not button.isEnabled()
    panel.set_model(train(Corpus.from_files([str(corpus_file)]),
                          TrainConfig(vocab_size=600)).model)
    assert not button.isEnabled()
    panel.set_model(train(Corpus.from_files([str(corpus_file)]),
                          TrainConfig(vocab_size=600, gold_boundaries=(str(GOLD),))).model)
    assert button.isEnabled()


def test_one_click_shows_both_models_and_the_changed_words(panel, qtbot, corpus_file):
    model = train(Corpus.from_files([str(corpus_file)]),
                  TrainConfig(vocab_size=600, gold_boundaries=(str(GOLD),))).model
    panel.set_model(model)
    panel.gold_files.add_paths([str(GOLD)])
    panel.pasted_edit.setPlainText("the king is dead, long live the king")
    with qtbot.waitSignal(panel.unconstrained_button.compared, timeout=60_000) as blocker:
        panel.unconstrained_button.click()
        assert not panel.unconstrained_button.isEnabled()  # running
    gain = blocker.args[0]
    dialog = panel.unconstrained_button.dialog
    qtbot.addWidget(dialog)
    assert gain.unconstrained_model.vocab_size == model.vocab_size
    assert gain.unconstrained_model.config == unconstrained_config(model)
    measures = [dialog.measures.item(r, 0).text() for r in range(dialog.measures.rowCount())]
    assert "eng.word.dev.tsv: boundary F1" in measures
    assert "texts: tokens per word (fertility)" in measures
    assert dialog.words.rowCount() == len(gain.changed) > 0
    first = gain.changed[0]
    assert dialog.words.item(0, 0).text() == first.word
    assert dialog.words.item(0, 1).text() == " ".join(first.constrained)
    assert "cut differently" in panel.status_label.text()
    assert panel.unconstrained_button.isEnabled()


def test_each_comparison_replaces_the_last_window_and_a_closed_one_is_freed(
        panel, qtbot, corpus_file, monkeypatch):
    from shiboken6 import isValid

    model = train(Corpus.from_files([str(corpus_file)]),
                  TrainConfig(vocab_size=600, gold_boundaries=(str(GOLD),))).model
    panel.set_model(model)
    panel.gold_files.add_paths([str(GOLD)])
    button = panel.unconstrained_button
    with qtbot.waitSignal(button.compared, timeout=60_000) as blocker:
        button.click()
    first = button.dialog
    gain = blocker.args[0]
    monkeypatch.setattr(unconstrained, "compare_with_unconstrained",
                        lambda *args, **kwargs: gain)  # the same result, without training
    for _ in range(2):
        with qtbot.waitSignal(button.compared, timeout=60_000):
            button.click()
    latest = button.dialog
    qtbot.waitUntil(lambda: len(panel.findChildren(unconstrained.GainDialog)) == 1)
    assert not isValid(first) and latest.isVisible()
    latest.close()
    qtbot.waitUntil(lambda: not isValid(latest))
    assert button.dialog is None and panel.findChildren(unconstrained.GainDialog) == []


def test_cancel_stops_the_comparison_and_shows_nothing(panel, qtbot, corpus_file,
                                                       monkeypatch):
    real = unconstrained.compare_with_unconstrained

    def after_the_user_cancels(model, request, *, cancel, progress):
        deadline = time.monotonic() + 10  # (in the worker's thread: no Qt event loop)
        while not cancel.cancelled and time.monotonic() < deadline:
            time.sleep(0.01)
        return real(model, request, cancel=cancel, progress=progress)

    monkeypatch.setattr(unconstrained, "compare_with_unconstrained", after_the_user_cancels)
    panel.set_model(train(Corpus.from_files([str(corpus_file)]),
                          TrainConfig(vocab_size=600, gold_boundaries=(str(GOLD),))).model)
    panel.gold_files.add_paths([str(GOLD)])
    assert not panel.cancel_button.isEnabled()
    compared = []
    panel.unconstrained_button.compared.connect(compared.append)
    with qtbot.waitSignal(panel.unconstrained_button.runner.stopped, timeout=30_000):
        panel.unconstrained_button.click()
        assert panel.cancel_button.isEnabled()
        qtbot.mouseClick(panel.cancel_button, Qt.MouseButton.LeftButton)
    assert compared == [] and panel.unconstrained_button.dialog is None
    assert panel.status_label.text() == "Comparison cancelled."
    assert not panel.cancel_button.isEnabled() and panel.unconstrained_button.isEnabled()


def test_the_comparison_shows_the_hand_computed_scores_through_the_character_map(
        panel, qtbot, tmp_path, capsys):
    """A tiny held-out gold spelled with I for i, mapped back in the panel. The
    unconstrained model cuts talk|ing, un|kind, happ|y and leaves walks whole: 2 hits of 3
    predicted and 3 gold boundaries (P = R = F1 = 2/3; MorphScore: (1 + 1 + 0) / 3). The
    constrained model keeps all four whole: P = R = F1 = MorphScore = 0. The command
    line's evaluate of both models gives the same numbers."""
    from bpe_desktop.cli import main
    from bpe_desktop.core.model_file import save_model

    text = tmp_path / "tiny.txt"
    text.write_text("unhappy happy unhappiness walked walking walks talked talking talks "
                    "unkind kindness kind\nunhappy walked talking kindness unkind walks\n",
                    encoding="utf-8")
    supervision = tmp_path / "train.tsv"
    supervision.write_text("unhappy\tun happy\nwalked\twalk ed\nkindness\tkind ness\n",
                           encoding="utf-8")
    held = tmp_path / "held.tsv"
    held.write_text("talkIng\ttalk Ing\nunkInd\tun kInd\nwalks\twalk s\nhappy\thappy\n",
                    encoding="utf-8")
    model = train(Corpus.from_files([str(text)]),
                  TrainConfig(vocab_size=40, gold_boundaries=(str(supervision),))).model
    panel.set_model(model)
    panel.gold_files.add_paths([str(held)])
    panel.character_map.set_mapping({"I": "i"}, remember=False)
    with qtbot.waitSignal(panel.unconstrained_button.compared, timeout=60_000) as blocker:
        panel.unconstrained_button.click()
    gain = blocker.args[0]
    dialog = panel.unconstrained_button.dialog
    qtbot.addWidget(dialog)
    shown = {dialog.measures.item(r, 0).text(): (dialog.measures.item(r, 1).text(),
                                                 dialog.measures.item(r, 2).text())
             for r in range(dialog.measures.rowCount())}
    for measure in ("boundary precision", "boundary recall", "boundary F1", "MorphScore"):
        assert shown[f"held.tsv: {measure}"] == ("0.000", "0.667"), measure
    assert {c.word: c.unconstrained for c in gain.changed} == {
        "talking": ("talk", "ing</w>"), "unkind": ("un", "kind</w>"), "happy": ("happ", "y</w>")}

    for which, scored in ((model, "0.0000"), (gain.unconstrained_model, "0.6667")):
        path = tmp_path / "m.json"
        save_model(which, path)
        assert main(["evaluate", "-m", str(path), "--gold", str(held), "--char-map", "I=i",
                     "--json"]) == 0
        result = json.loads(capsys.readouterr().out)["morphology"]["held.tsv"]
        assert f"{result['f1']:.4f}" == f"{result['precision']:.4f}" == scored


def test_a_corpus_changed_since_training_is_named_and_nothing_is_compared(
        panel, qtbot, tmp_path, errors):
    text = tmp_path / "text.txt"
    text.write_text("unhappy undo redo walked walking\n" * 5, encoding="utf-8")
    gold = tmp_path / "gold.tsv"
    gold.write_text("unhappy\tun happy\nundo\tun do\n", encoding="utf-8")
    panel.set_model(train(Corpus.from_files([str(text)]),
                          TrainConfig(vocab_size=30, gold_boundaries=(str(gold),))).model)
    panel.gold_files.add_paths([str(gold)])
    text.write_text("something else entirely\n", encoding="utf-8")
    compared = []
    panel.unconstrained_button.compared.connect(compared.append)
    with qtbot.waitSignal(panel.unconstrained_button.runner.failed, timeout=60_000):
        panel.unconstrained_button.click()
    [(title, message)] = errors
    assert title == "Cannot compare with the unconstrained model"
    assert message.startswith(f"{text} has changed since the model was trained")
    assert compared == [] and panel.unconstrained_button.dialog is None
    assert panel.unconstrained_button.isEnabled()
