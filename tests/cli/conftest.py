"""Fixtures of the bpe-desktop command tests: a toy corpus, a handmade and a trained model file."""

from __future__ import annotations

from pathlib import Path

import pytest

from bpe_desktop.core.model_file import save_model
from tests.cli.support import CORPUS, handmade_model, run


@pytest.fixture
def corpus(tmp_path) -> Path:
    path = tmp_path / "corpus.txt"
    path.write_text(CORPUS, encoding="utf-8")
    return path



@pytest.fixture
def model_path(tmp_path) -> Path:
    path = tmp_path / "hand.json"
    save_model(handmade_model(), path)
    return path



@pytest.fixture
def trained(capsys, corpus, tmp_path) -> Path:
    out_path = tmp_path / "model.json"
    status, out, err = run(capsys, "train", corpus, "-o", out_path, "--merges", "15", "-q")
    assert status == 0, err
    assert out == "" and err == ""
    return out_path

