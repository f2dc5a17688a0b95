"""Run ▸ <panel>: every button of every panel has a menu entry that does what a click
does, enabled exactly when its button is (bpe_desktop.ui.window.panel_menus)."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest
from PySide6.QtWidgets import QAbstractButton, QPushButton, QToolButton

from bpe_desktop.core import Corpus, TrainConfig, train

pytest_plugins = ["tests.ui.window_fixtures"]

DATA = Path(__file__).resolve().parents[1] / "data"
BOTCHAN = Path(__file__).resolve().parents[2] / "bpe_desktop/resources/examples/botchan.txt"


@pytest.fixture(scope="module")
def model():
    return train(Corpus.from_files([str(BOTCHAN)]), TrainConfig(vocab_size=400)).model


def _entries(window):
    return [(name, action, button) for name, menu in window.panel_menus.items()
            for action, button in menu.entries]


def _panel_buttons(window):
    """Each panel's buttons a user clicks: not Train and the panels' Cancel (Run ▸ Train,
    Run ▸ Cancel), nor the "…" tool buttons that belong to a Training option's field."""
    panels = {"training": window.training, "vocabulary": window.vocab,
              "codec": window.codec, "evaluate": window.evaluate,
              "compare": window.compare, "history": window.history}
    window_wide = {window.training.train_button, window.training.cancel_button,
                   window.evaluate.cancel_button, window.compare.cancel_button}
    for name, panel in panels.items():
        for button in panel.findChildren(QAbstractButton):
            if button in window_wide or type(button).__name__ in ("QCheckBox", "QRadioButton"):
                continue
            if isinstance(button, QToolButton) and button.menu() is None:
                continue  # a field's own "…" (Training options) or a tab bar's scroll arrow
            if isinstance(button, (QPushButton, QToolButton)):
                yield name, button


def test_every_button_of_every_panel_has_an_entry_in_its_panel_s_menu(window):
    entries = {(name, button) for name, _action, button in _entries(window)}
    missing = [(name, button.text()) for name, button in _panel_buttons(window)
               if (name, button) not in entries]
    assert not missing


def test_each_entry_clicks_its_button_in_its_panel(window, qtbot):
    """What a click does, whichever panel was in view; Examples lists the same examples."""
    for name, action, button in _entries(window):
        if action.menu() is not None:
            assert action.menu().actions() == button.menu().actions()
            assert len(action.menu().actions()) >= 2
            continue
        button.clicked.disconnect()  # (the real slots open dialogs and start jobs)
        clicks = []
        button.clicked.connect(lambda *_a, c=clicks: c.append(True))
        widget = button
        while widget is not None and widget is not window:  # (its group may be disabled)
            widget.setEnabled(True)
            widget = widget.parentWidget()
        button.setHidden(False)
        window.tabs.setCurrentWidget(window.history if name != "history" else window.vocab)
        assert action.isEnabled(), action.text()
        action.trigger()
        assert clicks == [True], action.text()
        assert window.tabs.currentWidget().isAncestorOf(button), action.text()


def test_an_entry_is_enabled_exactly_when_its_button_is_enabled_and_shown(window, model):
    window.document.set_imported(model)
    for _name, action, button in _entries(window):
        assert action.isEnabled() == (button.isEnabled() and not button.isHidden()), \
            action.text()
    evaluate = window.evaluate
    entry = {b: a for _n, a, b in _entries(window)}
    assert entry[evaluate.evaluate_button].isEnabled()
    window.document.new()  # no model: nothing to evaluate
    assert not evaluate.evaluate_button.isEnabled()
    assert not entry[evaluate.evaluate_button].isEnabled()
    plain = window.training.compare_plain_button
    assert plain.isHidden() and not entry[plain].isEnabled()  # before a parity-aware run
    plain.show()
    assert entry[plain].isEnabled()
    plain.hide()
    assert not entry[plain].isEnabled()


def test_the_menu_shows_the_buttons_shortcuts(window):
    texts = {b: a.text() for _n, a, b in _entries(window)}
    assert texts[window.evaluate.evaluate_button].endswith("\tCtrl+Return")
    assert texts[window.compare.compare_button].endswith("\tCtrl+Return")
    assert texts[window.history.delete_button].endswith("\tDel")
    assert texts[window.history.undo_button].endswith("\tCtrl+Z")


def test_run_evaluate_and_export_from_the_menu(window, qtbot, ui, model, tmp_path):
    """Evaluate ▸ Evaluate runs it; the exports write the table and the plot, as the
    buttons do."""
    window.document.set_imported(model)
    window.tabs.setCurrentWidget(window.history)
    evaluate = window.evaluate
    evaluate.text_files.add_paths([str(DATA / "udhr" / "eng.txt")])
    evaluate.parallel_files.add_paths([str(p) for p in sorted((DATA / "udhr").glob("*.txt"))])
    evaluate.sweep_check.setChecked(False)
    entry = {b: a for _n, a, b in _entries(window)}
    with qtbot.waitSignal(evaluate.evaluated, timeout=60_000):
        entry[evaluate.evaluate_button].trigger()
    assert window.tabs.currentWidget() is evaluate and evaluate.report is not None
    ui.save_path = str(tmp_path / "parity.csv")
    entry[evaluate.csv_buttons["parity"]].trigger()
    with open(ui.save_path, encoding="utf-8") as fh:
        rows = list(csv.reader(fh))
    assert len(rows) == 1 + len(evaluate.report.parity.rows)
    ui.save_path = str(tmp_path / "parity.png")
    entry[evaluate.plot_buttons["parity"]].trigger()
    assert Path(ui.save_path).read_bytes().startswith(b"\x89PNG")


def test_add_and_remove_corpus_files_from_the_menu(window, ui):
    training = window.training
    entry = {b: a for _n, a, b in _entries(window)}
    ui.open_paths = [str(BOTCHAN)]
    entry[training.add_files_button].trigger()
    assert training.corpus.paths() == [str(BOTCHAN)]
    training.corpus.topLevelItem(0).setSelected(True)
    entry[training.remove_button].trigger()
    assert training.corpus.paths() == []
