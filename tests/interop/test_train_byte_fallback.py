"""Training with byte fallback: the 256 byte tokens are reserved (as sentencepiece does), a
character the vocabulary lacks is encoded as its UTF-8 bytes' tokens and decoded back, and
the sentencepiece and Hugging Face exports give the same ids and text in their libraries."""

from __future__ import annotations

import pytest
import sentencepiece as spm
from tokenizers import Tokenizer

from bpe_desktop.core import Corpus, SpecialToken, TrainConfig, train
from bpe_desktop.core.config import BYTE_PIECES
from bpe_desktop.core.formats import export_model

TEXT = "low lower lowest newer wider " * 40
#: Characters the training text lacks (Ω is two bytes, 🙂 four), and a byte token's
#: spelling typed as text, which must stay text; the last lines end in unseen words, whose
#: bytes (with those of a glued </w>) run into one another.
UNSEEN = ["lower Ωx newer", "wider 🙂 low", "typed <0x41> text", "low Ω 🙂", "Ωx Ω"]


@pytest.fixture(scope="module")
def model():
    config = TrainConfig(merges=12, byte_fallback=True).replace(
        special_tokens=(SpecialToken("<unk>", 0, "unk"), SpecialToken("<s>", 1, "bos")))
    return train(Corpus.from_texts([TEXT]), config).model


def test_the_byte_tokens_follow_the_special_tokens_and_count_in_the_vocabulary(model):
    specials = {t.piece: t.id for t in model.config.special_tokens}
    assert [specials[p] for p in BYTE_PIECES] == list(range(2, 258))
    assert model.vocab_size == 2 + 256 + len(model.alphabet) + 12
    plain = train(Corpus.from_texts([TEXT]), TrainConfig(merges=12)).model
    assert model.merges == plain.merges  # reserving them changes no merge


def test_a_vocabulary_size_includes_the_byte_tokens():
    sized = train(Corpus.from_texts([TEXT]), TrainConfig(vocab_size=280, byte_fallback=True))
    assert sized.model.vocab_size == 280


def test_an_unseen_character_is_its_bytes_and_decodes_back(model):
    tok = model.tokenizer()
    ids = tok.encode("Ω")
    # Ω is U+03A9, UTF-8 CE A9: bytes 0xCE, 0xA9 are tokens 2 + 0xCE and 2 + 0xA9.
    assert ids[:2] == [2 + 0xCE, 2 + 0xA9]
    for line in UNSEEN:
        assert tok.decode(tok.encode(line)) == line
    assert model.piece_ids.get("<unk>", 0) not in tok.encode("lower Ω 🙂")


def test_without_byte_fallback_nothing_is_reserved():
    plain = train(Corpus.from_texts([TEXT]), TrainConfig(merges=12)).model
    assert not set(BYTE_PIECES) & {t.piece for t in plain.config.special_tokens}
    assert plain.tokenizer().encode_as_pieces("Ω") == ["<unk>", "</w>"]


@pytest.mark.parametrize("preset", ["sentencepiece", "subword-nmt"])
def test_the_exports_give_the_same_ids_and_text_in_their_libraries(tmp_path, preset):
    config = TrainConfig.preset(preset).replace(merges=12, byte_fallback=True)
    model = train(Corpus.from_texts([TEXT]), config).model
    tok = model.tokenizer()
    if preset == "sentencepiece":
        export_model(model, "sentencepiece", tmp_path / "m.model")
        sp = spm.SentencePieceProcessor(model_file=str(tmp_path / "m.model"))
        for line in UNSEEN:
            assert sp.encode(line) == tok.encode(line), line
            assert sp.decode(sp.encode(line)) == line
    export_model(model, "hf", tmp_path / "tokenizer.json")
    hf = Tokenizer.from_file(str(tmp_path / "tokenizer.json"))
    for line in UNSEEN:
        assert hf.encode(line).ids == tok.encode(line), line
        assert hf.decode(hf.encode(line).ids) == tok.decode(tok.encode(line)) == line
    assert hf.decode([]) == ""
