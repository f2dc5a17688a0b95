"""Fixtures shared by the Encode / Decode panel's tests."""

from __future__ import annotations

import pytest

from bpe_desktop.core import Corpus, TrainConfig, train
from bpe_desktop.ui.codec.panel import CodecPanel


@pytest.fixture
def panel(qtbot, toy_model, errors):
    """The panel with the seeds' toy model (10 merges)."""
    widget = CodecPanel()
    qtbot.addWidget(widget)
    widget.set_model(toy_model)
    return widget


@pytest.fixture(scope="module")
def byte_model():
    """A small byte-level (GPT-2 style) model over non-ASCII text and markup."""
    texts = ["naïve 日本語 hello world", "a naïve café, 日本語の本", "hello <b>&amp; world\n"] * 3
    return train(Corpus.from_texts(texts), TrainConfig.preset("gpt2", vocab_size=300)).model
