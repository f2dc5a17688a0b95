"""Fixtures shared by the Encode / Decode panel's tests, and their helpers."""

from __future__ import annotations

import pytest

from bpe_desktop.core import Corpus, TrainConfig, train
from bpe_desktop.ui.codec.panel import CodecPanel


@pytest.fixture
def panel(qtbot, toy_model, errors):
    widget = CodecPanel()
    qtbot.addWidget(widget)
    widget.set_model(toy_model)
    return widget


@pytest.fixture(scope="module")
def byte_model():
    texts = ["naïve 日本語 hello world", "a naïve café, 日本語の本", "hello <b>&amp; world\n"] * 3
    return train(Corpus.from_texts(texts), TrainConfig.preset("gpt2", vocab_size=300)).model


def shown_pieces(panel: CodecPanel) -> list[str]:
    return [item.piece for item in panel.piece_view.items]


def stat(panel: CodecPanel, key: str) -> str:
    return panel.stat_labels[key].text()
