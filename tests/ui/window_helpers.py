"""Steps the main-window tests share (the fixtures are in window_fixtures.py)."""

from __future__ import annotations


def train_toy(window, qtbot):
    """Train the seeds' toy example through the window; returns the new model."""
    window.training.load_example(window.training.example("toy"))
    with qtbot.waitSignal(window.document.model_changed, timeout=30_000):
        assert window.train()
    return window.document.model


def table_rows(window) -> int:
    return window.vocab.table_model.rowCount()
