"""The Encode / Decode panel keeps a word's end where an unknown last character hid it."""

from __future__ import annotations

import pytest

from bpe_desktop.core import Corpus, TrainConfig, train
from bpe_desktop.views.encoding_view import _Collector, _decode, _walk_words
from bpe_desktop.ui.codec.panel import CodecPanel

FINNISH = "talossa on kissä ja"


@pytest.fixture(scope="module")
def snmt_model():
    texts = ["talossa on kissa ja koira", "kissa on talossa"] * 3  # no "ä"
    return train(Corpus.from_texts(texts), TrainConfig.preset("subword-nmt")).model


def test_piece_view_shows_the_hidden_word_end(qtbot, errors, snmt_model):
    panel = CodecPanel()
    qtbot.addWidget(panel)
    panel.set_model(snmt_model)
    panel.set_text(FINNISH)
    items = panel.piece_view.items
    unknown = [item for item in items if item.unknown]
    assert len(unknown) == 1 and unknown[0].piece == "<unk></w>"
    assert unknown[0].after == "word" and unknown[0].id == snmt_model.tokenizer().unk_id()
    assert [item.piece.endswith("</w>") for item in items].count(True) == 4
    assert panel.stats.words == 4 and panel.stats.unknowns == 1
    assert panel.ids == snmt_model.tokenizer().encode(FINNISH)
    assert errors == []


def test_round_trip_decodes_with_the_word_ends(snmt_model):
    tok = snmt_model.tokenizer()
    shown = _Collector(tok, 100)
    walk = _walk_words(tok, FINNISH, "merges", shown, lambda: None)
    ids = tok.encode_to_numpy(FINNISH)
    assert walk.word_ends == list(tok.encoding(FINNISH).word_ends)
    assert _decode(tok, ids, walk, lambda: None) == "talossa on kiss<unk> ja"
    assert tok.decode(ids) == "talossa on kiss<unk>ja"  # what ids alone give
