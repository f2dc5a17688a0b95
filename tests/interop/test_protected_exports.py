"""Protected strings survive export: Hugging Face tokenizers (added tokens) and
sentencepiece (user-defined pieces, for models that read text as it does) give our ids on
text containing them (between, around and inside words); formats that cannot carry them
refuse, naming the reason."""

from __future__ import annotations

import pytest
import sentencepiece as spm
from hypothesis import given, settings
from hypothesis import strategies as st
from tokenizers import Tokenizer as HfTokenizer

from bpe_desktop.core import Corpus, TrainConfig, train
from bpe_desktop.core.errors import ConfigError, ExportError
from bpe_desktop.core.formats import export_model, export_problem

PROTECTED = ("New York", "C++", "e.g.", "York")
TEXT = ("I moved to New York, e.g. for work; New Yorkers write C++ and C# daily. "
        "Old York is not New-York.\n") * 20
PROBES = ["New York", "xNew Yorky", "in New York today", "C++C++", "e.g.New York",
          "Yorkshire and New  York", "NEW YORK new york", "a C++ b", TEXT[:200]]

CONFIGS = {
    "whitespace": TrainConfig(vocab_size=120, boundary="eow-suffix", protected=PROTECTED),
    "lowercase": TrainConfig(vocab_size=120, boundary="eow-suffix", lowercase=True,
                             protected=PROTECTED),
    "gpt2": TrainConfig.preset("gpt2", vocab_size=300, protected=PROTECTED),
}


@pytest.mark.parametrize("name", list(CONFIGS))
def test_hf_export_gives_our_ids_on_text_with_protected_strings(name, tmp_path):
    model = train(Corpus.from_texts([TEXT]), CONFIGS[name]).model
    path = tmp_path / "tokenizer.json"
    export_model(model, "hf", path)
    hf = HfTokenizer.from_file(str(path))
    ours = model.tokenizer()
    for probe in PROBES:
        assert hf.encode(probe).ids == ours.encode(probe), probe
    ny = model.piece_to_id("New York")
    assert ours.encode("in New York today").count(ny) == 1


SP_PROTECTED = ("NewYork", "C++", "e.g.", "York")
SP_TEXT = TEXT.replace("New York", "NewYork")
SP_PROBES = ["NewYork", "xNewYorky", "in NewYork today", "C++C++", "  e.g.NewYork  x",
             "NewYorkers", " York", "Yorkshire and NewYork", "a  C++ b  ", "", "   ",
             "e.g.", "día C++ ü", SP_TEXT[:300].replace("\n", " ")]


@pytest.mark.parametrize("vocab", [60, 120, 200])
def test_sentencepiece_export_gives_our_ids_on_text_with_protected_strings(vocab, tmp_path):
    config = TrainConfig.preset("sentencepiece", vocab_size=vocab, protected=SP_PROTECTED)
    model = train(Corpus.from_texts([SP_TEXT]), config).model
    path = tmp_path / "m.model"
    export_model(model, "sentencepiece", path)
    sp = spm.SentencePieceProcessor(model_file=str(path))
    ours = model.tokenizer()
    for probe in SP_PROBES:
        assert sp.encode(probe) == ours.encode(probe), probe
    # by hand: sentencepiece's ▁ before the text is a token of its own before a protected
    # string, and the text after one has no ▁
    assert ours.encode_as_pieces("NewYork")[:2] == ["▁", "NewYork"]
    assert ours.encode_words("C++C++") == [("▁", [model.piece_to_id("▁")]),
                                           ("C++", [model.piece_to_id("C++")]),
                                           ("C++", [model.piece_to_id("C++")])]


def test_sentencepiece_models_refuse_whitespace_in_protected_strings():
    with pytest.raises(ConfigError, match="contains whitespace"):
        TrainConfig.preset("sentencepiece", protected=("New York",))


@pytest.mark.parametrize("fmt", ["hf", "subword-nmt", "tiktoken"])
def test_formats_without_a_place_for_protected_strings_refuse(fmt, tmp_path):
    config = TrainConfig.preset("sentencepiece", vocab_size=120, protected=SP_PROTECTED)
    model = train(Corpus.from_texts([SP_TEXT]), config).model
    why = export_problem(model, fmt)
    assert why is not None and "protected strings" in why
    with pytest.raises(ExportError, match="protected strings"):
        export_model(model, fmt, tmp_path / "out")
    assert not list(tmp_path.iterdir())


def test_sentencepiece_refuses_a_model_that_reads_words_otherwise(tmp_path):
    model = train(Corpus.from_texts([TEXT]), CONFIGS["whitespace"]).model
    with pytest.raises(ExportError, match="protected strings"):
        export_model(model, "sentencepiece", tmp_path / "m.model")


_SP_MODEL = {}


def sp_pair(tmp_path_factory):
    """One sentencepiece-style model with protected strings, and its exported library."""
    if not _SP_MODEL:
        config = TrainConfig.preset("sentencepiece", vocab_size=40,
                                    protected=("ab", "b+", "cab+"))
        corpus = ["ab cab+ ca b+b aab c ab+ bca", "cc ab ab+ab b+c a a b"] * 3
        model = train(Corpus.from_texts(corpus), config).model
        path = tmp_path_factory.mktemp("sp") / "m.model"
        export_model(model, "sentencepiece", path)
        _SP_MODEL["pair"] = (model.tokenizer(), spm.SentencePieceProcessor(model_file=str(path)))
    return _SP_MODEL["pair"]


@settings(max_examples=300, deadline=None)
@given(text=st.text(alphabet="ab c+x", max_size=30))
def test_sentencepiece_gives_our_ids_on_any_text(tmp_path_factory, text):
    ours, sp = sp_pair(tmp_path_factory)
    assert sp.encode(text) == ours.encode(text)


_HF_MODEL = {}


def hf_pair(tmp_path_factory):
    """One whitespace model with protected strings (one with a space), and its HF file."""
    if not _HF_MODEL:
        config = TrainConfig(vocab_size=40, boundary="eow-suffix",
                             protected=("ab", "b+", "a b", "cab+"))
        corpus = ["ab cab+ ca b+b aab c ab+ bca", "cc ab ab+ab b+c a a b"] * 3
        model = train(Corpus.from_texts(corpus), config).model
        path = tmp_path_factory.mktemp("hf") / "tokenizer.json"
        export_model(model, "hf", path)
        _HF_MODEL["pair"] = (model.tokenizer(), HfTokenizer.from_file(str(path)))
    return _HF_MODEL["pair"]


@settings(max_examples=300, deadline=None)
@given(text=st.text(alphabet="ab c+x\n", max_size=30))
def test_hf_gives_our_ids_on_any_text(tmp_path_factory, text):
    ours, hf = hf_pair(tmp_path_factory)
    assert hf.encode(text).ids == ours.encode(text)


@pytest.mark.parametrize("fmt", ["hf", "sentencepiece"])
def test_imported_exports_keep_their_protected_strings(fmt, tmp_path):
    from bpe_desktop.core.formats import import_model

    if fmt == "hf":
        config, text, strings = CONFIGS["whitespace"], TEXT, PROTECTED
    else:
        config = TrainConfig.preset("sentencepiece", vocab_size=120, protected=SP_PROTECTED)
        text, strings = SP_TEXT, SP_PROTECTED
    model = train(Corpus.from_texts([text]), config).model
    path = tmp_path / ("tokenizer.json" if fmt == "hf" else "m.model")
    export_model(model, fmt, path)
    back = import_model(fmt, path)
    assert back.config.protected == strings
    probes = PROBES if fmt == "hf" else SP_PROBES
    for probe in probes:
        assert back.tokenizer().encode(probe) == model.tokenizer().encode(probe), probe


#: How refusals name the formats they point to.
SUGGESTED = {"Hugging Face tokenizer.json": "hf", "sentencepiece model": "sentencepiece"}


@pytest.mark.parametrize("config", [
    TrainConfig.preset("sentencepiece", vocab_size=120, normalize="nfkc",
                       protected=("York", "C++")),
    TrainConfig.preset("sentencepiece", vocab_size=120, lowercase=True, protected=("York",)),
    TrainConfig.preset("sentencepiece", vocab_size=120, protected=("York",)),
    TrainConfig(vocab_size=120, boundary="eow-suffix", normalize="nfkc", protected=PROTECTED),
], ids=["sentencepiece-nfkc", "sentencepiece-lowercase", "sentencepiece", "eow-suffix-nfkc"])
def test_a_refusal_never_points_to_a_format_that_refuses_too(config):
    """As an imported sentencepiece model with user-defined symbols and nmt_nfkc is: the
    sentencepiece and Hugging Face refusals must not send the user to each other."""
    model = train(Corpus.from_texts([TEXT]), config).model
    for fmt in ("hf", "gpt2", "subword-nmt", "sentencepiece", "tiktoken", "fastbpe",
                "youtokentome"):
        why = export_problem(model, fmt)
        if why is None:
            continue
        for sentence in why.split("export as ")[1:]:
            named = [f for label, f in SUGGESTED.items() if sentence.startswith(label)
                     or sentence.startswith("a " + label)]
            assert named, (fmt, why)
            assert export_problem(model, named[0]) is None, (fmt, why)


@pytest.mark.parametrize("byte_level", [True, False])
def test_tokens_added_to_a_peer_tokenizer_are_found_in_the_text_as_it_finds_them(
        byte_level, tmp_path):
    """``tokenizer.add_tokens()`` lists a new token in added_tokens only (not in the
    model's vocabulary), or one the merges make too in both; imported, it is a protected
    string, as our exports write one, and saved and opened again it stays one."""
    from tokenizers import decoders, models, pre_tokenizers, trainers

    from bpe_desktop.core import load_model, save_model
    from bpe_desktop.core.formats import import_model
    from tests.shared_data import corpus_path

    hindi = corpus_path("ud_hindi").read_text(encoding="utf-8").splitlines()[:200]
    hf = HfTokenizer(models.BPE(unk_token=None if byte_level else "[UNK]"))
    if byte_level:
        hf.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
        hf.decoder = decoders.ByteLevel()
        alphabet = pre_tokenizers.ByteLevel.alphabet()
    else:
        hf.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
        alphabet = []
    hf.train_from_iterator(hindi, trainers.BpeTrainer(
        vocab_size=600, initial_alphabet=alphabet, special_tokens=[] if byte_level
        else ["[UNK]"], show_progress=False))
    # ने is also a token of the trained vocabulary (a character-level one spells it as it
    # is): HF still finds it in the text first
    assert byte_level or "ने" in hf.get_vocab()
    added = ["ज़्ञ", "ने", "👨\u200d👩\u200d👧"] + ([" New York"] if byte_level else [])
    hf.add_tokens(added)
    hf.add_special_tokens(["<|im_start|>"])
    path = tmp_path / "tokenizer.json"
    hf.save(str(path))

    save_model(import_model("hf", path), tmp_path / "m.json")
    model = load_model(tmp_path / "m.json")
    assert sorted(model.config.protected) == sorted(added)
    assert [t.piece for t in model.config.special_tokens if t.role != "unk"] == \
        ["<|im_start|>"]
    assert "matches it in the text" not in model.description
    probes = hindi[-20:] + ["ज़्ञत्रिय 👨\u200d👩\u200d👧 in New York", "अज़्ञरज़्ञ", "उसने नेता"]
    ours = model.tokenizer()
    for probe in probes:
        ids = hf.encode(probe, add_special_tokens=False).ids
        assert list(ours.encode(probe)) == ids, probe
        if byte_level:  # without a word marker HF's decode puts spaces between tokens
            assert ours.decode(ids) == hf.decode(ids, skip_special_tokens=False), probe
    assert list(ours.encode("अज़्ञरज़्ञ")).count(model.piece_to_id("ज़्ञ")) == 2
