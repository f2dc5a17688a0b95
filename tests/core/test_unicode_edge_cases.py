"""Unicode edge cases train, encode and decode correctly under every preset and boundary.

Combining marks, NFD text, ZWJ emoji sequences, right-to-left scripts with bidi
controls, astral-plane characters and mixed scripts. For each configuration:

* every training word re-encodes to exactly its final training segmentation;
* the pieces of a training word spell the word (with its boundary marker) exactly;
* ``decode(encode(text))`` gives the text back as the configuration defines it: exactly
  (after normalization) for byte-level models; the pre-tokenizer's words joined by one
  space with a boundary marker, or by nothing without one;
* characters are whole code points: astral characters are one symbol, never surrogates.
"""

from __future__ import annotations

import unicodedata

import pytest

from bpe_desktop.core import BOUNDARIES, Corpus, TrainConfig, _native, train
from tests.shared_data import gpt2_chars

SAMPLES = {
    "combining": "e\u0301te\u0301 cafe\u0301 nai\u0308ve a\u0328\u0301 Z\u0351\u0310a\u0335lg\u036fo",
    "nfd": unicodedata.normalize("NFD", "Ångström déjà vu Ελληνικά 한국어 Việt Nam"),
    "zwj_emoji": "👨\u200d👩\u200d👧\u200d👦 👩🏽\u200d💻 🏳\ufe0f\u200d🌈 ❤\ufe0f 🇯🇵 🧑🏿\u200d🤝\u200d🧑🏻",
    "rtl": "مرحبا بالعالم \u200fשָׁלוֹם עוֹלָם\u200f \u202bعربي english\u202c سلام",
    "astral": "𝔘𝔫𝔦𝔠𝔬𝔡𝔢 𐍈𐌰𐌹 😀😃 𠜎𠜱 𝟘𝟙𝟚 🂡",
    "mixed": "Tokyo東京 Москва2024 मराठी-हिन्दी ภาษาไทย 😀abc\u00a0end Ωmega",
}
TEXT = "\n".join(SAMPLES.values())
#: Repeated so that pairs occur more than once and merges build multi-character tokens.
CORPUS = [TEXT] * 3 + [" ".join(SAMPLES.values())] * 2

PRESETS = ["sennrich", "subword-nmt", "gpt2", "sentencepiece"]
MARKERS = {"eow-symbol": ("", "</w>"), "eow-suffix": ("", "</w>"), "bow-prefix": ("\u2581", ""),
           "none": ("", "")}


def configs():
    for preset in PRESETS:
        yield pytest.param(TrainConfig.preset(preset, merges=400, min_frequency=1), id=preset)
    for pretokenizer in ("whitespace", "letters"):
        for boundary in BOUNDARIES:
            yield pytest.param(
                TrainConfig(pretokenizer=pretokenizer, boundary=boundary, merges=400,
                            min_frequency=1),
                id=f"{pretokenizer}-{boundary}",
            )
    for normalize in ("nfc", "nfkc"):
        yield pytest.param(TrainConfig(normalize=normalize, merges=400, min_frequency=1),
                           id=normalize)
        yield pytest.param(TrainConfig.preset("gpt2", normalize=normalize, merges=400),
                           id=f"gpt2-{normalize}")
    yield pytest.param(TrainConfig(lowercase=True, normalize="nfc", merges=400,
                                   min_frequency=1), id="nfc-lowercase")


def normalized(text: str, config: TrainConfig) -> str:
    if config.normalize != "none":
        text = unicodedata.normalize(config.normalize.upper(), text)
    return text.lower() if config.lowercase else text


def expected_decoding(text: str, config: TrainConfig) -> str:
    """What decode(encode(text)) must give under ``config``."""
    text = normalized(text, config)
    if config.byte_level:
        return text
    words = _native.engine().pretokenize(text, config.pretokenizer)
    return ("" if config.boundary == "none" else " ").join(words)


def training_words(result, config):
    """The training words as text (byte-level ones are stored in GPT-2 characters)."""
    segs = result.word_segmentations()
    if not config.byte_level:
        return [(s.word, s) for s in segs]
    back = {c: b for b, c in enumerate(gpt2_chars())}
    return [(bytes(back[c] for c in s.word).decode("utf-8"), s) for s in segs]


@pytest.fixture(scope="module", params=list(configs()))
def trained(request):
    config = request.param
    return config, train(Corpus.from_texts(CORPUS), config)


def test_merges_were_learned(trained):
    config, result = trained
    assert len(result.model.merges) > 50


def test_training_words_reencode_to_their_segmentation(trained):
    config, result = trained
    tok = result.model.tokenizer()
    pieces = result.model.pieces
    mismatches = []
    for word, seg in training_words(result, config):
        encoded = tok.encode_words(word)
        got = tuple(pieces[i] for i in encoded[0][1]) if len(encoded) == 1 else None
        if got != seg.pieces:
            mismatches.append((word, seg.pieces, got))
    assert mismatches == []


def test_pieces_spell_each_training_word(trained):
    config, result = trained
    before, after = MARKERS[config.boundary]
    for _, seg in training_words(result, config):
        assert "".join(seg.pieces) == before + seg.word + after, seg


@pytest.mark.parametrize("name", list(SAMPLES))
def test_decode_of_encode(trained, name):
    config, result = trained
    tok = result.model.tokenizer()
    text = SAMPLES[name]
    ids = tok.encode(text)
    assert tok.unknown_count(ids) == 0
    assert tok.decode(ids) == expected_decoding(text, config)


def test_astral_characters_are_single_symbols(trained):
    config, result = trained
    alphabet = set(result.model.alphabet)
    assert not any(0xD800 <= ord(c) <= 0xDFFF for piece in result.model.pieces for c in piece)
    if config.byte_level:
        assert len(alphabet) == 256
        return
    for char in normalized("𝔘😀𠜎𐍈", config):  # NFKC folds 𝔘 to U
        if config.boundary == "eow-suffix":
            assert char in alphabet or char + "</w>" in alphabet
        else:
            assert char in alphabet


def test_nfd_input_encodes_like_nfc_when_normalizing():
    config = TrainConfig(normalize="nfc", merges=300, min_frequency=1)
    tok = train(Corpus.from_texts(CORPUS), config).model.tokenizer()
    nfd = SAMPLES["nfd"]
    nfc = unicodedata.normalize("NFC", nfd)
    assert nfd != nfc
    assert tok.encode(nfd) == tok.encode(nfc)
    assert tok.decode(tok.encode(nfd)) == nfc


def test_without_normalization_nfd_and_nfc_stay_distinct():
    config = TrainConfig(merges=300, min_frequency=1)
    result = train(Corpus.from_texts(CORPUS), config)
    assert "\u0301" in result.model.alphabet  # the combining acute stays a character
    tok = result.model.tokenizer()
    nfd = SAMPLES["nfd"]
    assert tok.decode(tok.encode(nfd)) == " ".join(nfd.split())


def test_zwj_sequence_is_one_word_and_round_trips():
    family = "👨\u200d👩\u200d👧\u200d👦"
    result = train(Corpus.from_texts([family + " x"] * 5), TrainConfig(min_frequency=1))
    segs = {s.word: s.pieces for s in result.word_segmentations()}
    assert segs[family] == (family + "</w>",)  # merged into one token, ZWJs included
    tok = result.model.tokenizer()
    assert tok.encode_as_pieces(family) == [family + "</w>"]
    assert tok.decode(tok.encode(family + " " + family)) == family + " " + family


def test_rtl_text_keeps_logical_order_and_bidi_controls():
    text = "\u202bשלום\u202c مرحبا"
    config = TrainConfig.preset("gpt2", merges=50)
    tok = train(Corpus.from_texts([text] * 4), config).model.tokenizer()
    assert tok.decode(tok.encode(text)) == text
    pieces = "".join(tok.encode_as_pieces(text))
    back = {c: b for b, c in enumerate(gpt2_chars())}
    assert bytes(back[c] for c in pieces).decode() == text  # logical order, controls kept
