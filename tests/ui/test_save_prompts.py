"""The unsaved-model question says what is about to happen, not always "closing"."""

from __future__ import annotations

from PySide6.QtWidgets import QMessageBox

from bpe_desktop.ui.common import dialogs
from bpe_desktop.ui.window.main_window import MainWindow
from tests.ui.window_helpers import train_toy

pytest_plugins = ["tests.ui.window_fixtures"]


def test_the_question_completes_save_it_before(monkeypatch, qapp):
    asked = []

    def question(parent, title, text, *args, **kwargs):
        asked.append(text)
        return QMessageBox.StandardButton.Discard

    monkeypatch.setattr(QMessageBox, "question", question)
    answer = dialogs.ask_save_changes(None, "The model “Untitled”",
                                      MainWindow.BEFORE_TRAINING)
    assert answer == "discard"
    assert asked == [("The model “Untitled” has not been saved. Save it before training a "
                      "new one replaces it?")]


def test_f5_over_an_unsaved_model_asks_about_training(window, qtbot, ui):
    from PySide6.QtCore import Qt

    first = train_toy(window, qtbot)
    ui.save_answer = "cancel"
    qtbot.keyClick(window, Qt.Key.Key_F5)
    assert ui.save_reasons == [MainWindow.BEFORE_TRAINING]
    assert "training" in ui.save_reasons[0] and "closing" not in ui.save_reasons[0]
    assert window.document.model is first and not window.training.running


def test_open_new_import_and_close_each_say_their_own_reason(window, qtbot, ui, tmp_path):
    train_toy(window, qtbot)
    ui.save_answer = "cancel"
    window.open_action.trigger()
    window.new_action.trigger()
    window.interop.import_path("hf", str(tmp_path / "tokenizer.json"))
    assert window.close() is False
    assert ui.save_reasons == [MainWindow.BEFORE_OPENING, MainWindow.BEFORE_NEW,
                               MainWindow.BEFORE_IMPORTING, MainWindow.BEFORE_CLOSING]
    assert "opening another model" in ui.save_reasons[0]
    assert "imported model" in ui.save_reasons[2]
    assert ui.choosers == []  # cancelled: no file chooser opened
