"""Steps the main-window tests share (the fixtures are in window_fixtures.py)."""

from __future__ import annotations

import threading


def train_toy(window, qtbot):
    """Train the seeds' toy example through the window; returns the new model."""
    window.training.load_example(window.training.example("toy"))
    with qtbot.waitSignal(window.document.model_changed, timeout=30_000):
        assert window.train()
    return window.document.model


def table_rows(window) -> int:
    return window.vocab.table_model.rowCount()


def evaluate_typed_text(window, qtbot) -> None:
    """Evaluate the open model on a typed text, through the Evaluate panel."""
    panel = window.evaluate
    panel.pasted_edit.setPlainText("lowest newer widest")
    with qtbot.waitSignal(panel.evaluated, timeout=20_000):
        panel.start()


def compare_on_typed_text(window, qtbot) -> None:
    """Compare the open model with its first 3 merges on a typed text (Compare panel)."""
    panel = window.compare
    panel.add_current()
    panel.add_model("smaller", window.document.model.truncated(3))
    panel.set_text("lowest newer widest")
    with qtbot.waitSignal(panel.compared, timeout=20_000):
        panel.start()


def held_back(monkeypatch, module, name: str) -> threading.Event:
    """``module.name`` waits until the event returned is set: a long job, still running
    while the test goes on."""
    go_on = threading.Event()
    real = getattr(module, name)

    def waiting(*args, **kwargs):
        go_on.wait(10)
        return real(*args, **kwargs)

    monkeypatch.setattr(module, name, waiting)
    return go_on


def assert_fails_without_a_corpus_question(panel, qtbot, monkeypatch, errors,
                                           message: str) -> None:
    """Start the Training panel's run and see it fail with ``message``: an option file
    (gold, development text) that is not UTF-8 is not read with replacement characters as
    the corpus can be, so the panel must not offer that; the model stays."""
    from bpe_desktop.ui.common import dialogs

    asked = []
    monkeypatch.setattr(dialogs, "ask_action", lambda *args: asked.append(args) or True)
    with qtbot.waitSignal(panel.failed, timeout=60_000) as blocker:
        assert panel.start()
    assert asked == []
    assert blocker.args[0].message == message
    assert errors == [("Training failed", message)]
    assert "unchanged" in panel.stage_label.text()
