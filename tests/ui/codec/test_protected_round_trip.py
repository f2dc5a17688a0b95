"""The panel's round-trip check judges the ids it shows: what decoding them gives (the
Decode box, ``bpe-desktop decode``), also next to a protected string, whose ids do not
say whether a space stood after it."""

from __future__ import annotations

import pytest

from bpe_desktop.core import Corpus, TrainConfig, train
from bpe_desktop.ui.codec.panel import CodecPanel


@pytest.fixture(scope="module")
def protected_model():
    texts = ["see e.g. the list of New Yorkers in New York"] * 3
    return train(Corpus.from_texts(texts),
                 TrainConfig(merges=30, protected=("e.g.", "New York"))).model


@pytest.mark.parametrize("text", ["in New Yorkers see", "see e.g.the list",
                                  "see e.g. the list", "New York"])
def test_the_verdict_is_what_decoding_the_shown_ids_gives(qtbot, errors, protected_model,
                                                          text):
    panel = CodecPanel()
    qtbot.addWidget(panel)
    panel.set_model(protected_model)
    panel.set_text(text)
    tok = protected_model.tokenizer()
    assert panel.ids == tok.encode(text)
    decoded = tok.decode(panel.ids)
    assert panel.round_trip.exact == (decoded == text), panel.round_trip.message
    if decoded != text:
        assert "protected string" in panel.round_trip_label.text()
    assert errors == []
