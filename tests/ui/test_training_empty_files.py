"""The Training panel skips empty corpus files with a line in its log, as the command
line does, and refuses a corpus of empty files only."""

from __future__ import annotations

import pytest

from bpe_desktop.core import TrainConfig


@pytest.fixture
def panel(training_panel):
    return training_panel


def test_an_empty_file_is_skipped_and_logged(panel, qtbot, tmp_path, errors):
    text, empty = tmp_path / "a.txt", tmp_path / "empty.txt"
    text.write_text("low lower lowest newer newest\n" * 5, encoding="utf-8")
    empty.write_bytes(b"")
    panel.corpus.add_paths([str(text), str(empty)])
    panel.options.set_config(TrainConfig(merges=3))
    with qtbot.waitSignal(panel.trained, timeout=30_000) as blocker:
        assert panel.start()
    model = blocker.args[0].model
    assert [f.path for f in model.corpus.files] == [str(text)]
    assert f"Skipped 1 empty file: {empty}" in panel.log_view.toPlainText()
    assert errors == []


def test_only_empty_files_are_refused_before_starting(panel, tmp_path, errors):
    empty = tmp_path / "empty.txt"
    empty.write_bytes(b"")
    panel.corpus.add_paths([str(empty)])
    assert panel.start() is False
    assert errors == [("Empty corpus", f"{empty} is empty")]
