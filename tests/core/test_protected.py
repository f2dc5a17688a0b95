"""Protected strings: every occurrence is one token in training and in encoding, found
longest first and leftmost in the raw text; the rest is ordinary BPE on the text between."""

from __future__ import annotations

import gzip

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from bpe_desktop.core import Corpus, TrainConfig, train
from bpe_desktop.core.errors import ConfigError, CorpusError
from bpe_desktop.core.protected import Protector, read_protected
from tests.reference_bpe import train_with_config as reference_train


def naive_split(text: str, strings) -> list[tuple[str, bool]]:
    """The definition, written out: at each position the longest string starting there."""
    out, plain, i = [], "", 0
    while i < len(text):
        found = max((s for s in strings if text.startswith(s, i)), key=len, default=None)
        if found is None:
            plain += text[i]
            i += 1
            continue
        if plain:
            out.append((plain, False))
            plain = ""
        out.append((found, True))
        i += len(found)
    if plain:
        out.append((plain, False))
    return out


def words_between(corpus, protected) -> dict[str, int]:
    """The words of the text between occurrences, counted in first-seen order: what
    the reference trainer learns from."""
    counts: dict[str, int] = {}
    for text in corpus:
        for part, prot in naive_split(text, protected):
            for w in ([] if prot else part.split()):
                counts[w] = counts.get(w, 0) + 1
    return counts


def test_longest_first_then_leftmost_by_hand():
    p = Protector(["ab", "abc", "bcd"])
    assert p.split("xabcdab") == [("x", False), ("abc", True), ("d", False), ("ab", True)]


texts = st.text(alphabet="ab c", min_size=0, max_size=40)
strings = st.lists(st.text(alphabet="abc ", min_size=1, max_size=4).filter(str.strip),
                   min_size=1, max_size=3, unique=True)


@settings(max_examples=200, deadline=None)
@given(texts, strings)
def test_split_is_the_longest_leftmost_definition(text, protected):
    assert Protector(protected).split(text) == naive_split(text, protected)


@settings(max_examples=60, deadline=None)
@given(st.lists(texts, min_size=1, max_size=4), strings)
def test_training_is_plain_training_on_the_text_between_occurrences(corpus, protected):
    counts = words_between(corpus, protected)
    assume(counts)  # a corpus without words is an error, as in plain training
    config = TrainConfig(merges=8, special_tokens=(), protected=tuple(protected))
    model = train(Corpus.from_texts(corpus), config).model
    expected = reference_train(list(counts.items()), config.replace(protected=()))
    assert [(m.left, m.right, m.count) for m in model.merges] == expected.merges
    assert model.pieces[:len(protected)] == tuple(protected)
    tok = model.tokenizer()
    for text in corpus:
        ids = tok.encode(text)
        want = [i for part, prot in naive_split(text, protected)
                for i in ([model.piece_to_id(part)] if prot else tok.encode(part))]
        assert ids == want


def test_golden_training_and_encoding():
    config = TrainConfig(merges=3, min_frequency=1, protected=("New York",))
    model = train(Corpus.from_texts(["New York New Yorker Yorker"]), config).model
    # Both occurrences cut out: the words are "er" and "Yorker". By hand: (e, r) and
    # (r, </w>) occur twice, (e, r) first; then (er, </w>) twice; then every pair once,
    # (Y, o) seen first.
    assert [(m.left, m.right) for m in model.merges] == [("e", "r"), ("er", "</w>"), ("Y", "o")]
    assert model.pieces[:2] == ("<unk>", "New York")
    assert model.final_counts[1] == 2
    tok = model.tokenizer()
    assert tok.encode_as_pieces("New Yorker") == ["New York", "er</w>"]
    assert tok.encode_words("erNew York") == [("er", [tok.piece_to_id("er</w>")]),
                                              ("New York", [1])]


def test_protected_strings_the_corpus_never_holds_are_named():
    """A typo, a space too many or another case: the string takes a place in the
    vocabulary and is never a token; the run names it."""
    from bpe_desktop.core.protected import unfound_protected, unfound_warning

    corpus = Corpus.from_texts(["I love New York . C++ is fun , C++\n"] * 3)
    model = train(corpus, TrainConfig(merges=5, protected=(
        "New York", "new york", "C++ ", "C++", "Zebra"))).model
    assert unfound_protected(model) == ("new york", "Zebra")
    assert unfound_warning(unfound_protected(model)) == (
        "2 protected strings never occur in the corpus, so their tokens are never used: "
        "'new york', 'Zebra' (check spelling, case and spaces)")
    assert unfound_warning(("Zebra",)) == (
        "the protected string 'Zebra' never occurs in the corpus, so its token is never "
        "used (check spelling, case and spaces)")
    assert unfound_warning(()) is None
    assert unfound_protected(train(corpus, TrainConfig(merges=5)).model) == ()


def test_vocabulary_size_counts_the_protected_tokens():
    config = TrainConfig(vocab_size=12, protected=("xy", "zz"))
    model = train(Corpus.from_texts(["xy abab zz abcabc xyz"] * 3), config).model
    assert model.vocab_size <= 12 and "xy" in model.piece_ids


def test_bad_protected_strings_are_clear_errors(tmp_path):
    with pytest.raises(ConfigError, match="separator '@@' occurs in the protected string"):
        TrainConfig(separator="@@", protected=("a@@b",))
    with pytest.raises(ConfigError, match="also a special token"):
        TrainConfig(protected=("<unk>",))
    with pytest.raises(ConfigError, match="listed twice"):
        TrainConfig(protected=("ab", "ab"))
    bad = tmp_path / "p.txt"
    bad.write_bytes(b"ok\n\xff\n")
    with pytest.raises(CorpusError, match=r"p.txt line 2"):
        read_protected(bad)


def test_a_truncated_gzip_file_of_strings_is_named_with_where_it_ends(tmp_path):
    packed = gzip.compress(b"New York\nSan Francisco\n" * 500)
    cut = tmp_path / "p.txt.gz"
    cut.write_bytes(packed[:len(packed) // 2])
    with pytest.raises(CorpusError) as raised:
        read_protected(cut)
    assert str(raised.value) == (
        f"{cut}: the compressed data is truncated or corrupt (Compressed file ended before "
        f"the end-of-stream marker was reached) near byte offset {len(packed) // 2} of the "
        "compressed file")


def test_file_of_strings_one_a_line(tmp_path):
    path = tmp_path / "p.txt"
    path.write_text("\ufeffNew York\r\n\n  \nC++\nNew York\n", encoding="utf-8")
    assert read_protected(path) == ("New York", "C++")


def test_corpus_files_are_recorded_as_in_plain_training(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "c.txt").write_text("low lower ab lowest ab\n" * 3, encoding="utf-8")
    plain = train(Corpus.from_files(["c.txt"]), TrainConfig(merges=3)).model
    protected = train(Corpus.from_files(["c.txt"]),
                      TrainConfig(merges=3, protected=("ab",))).model
    assert protected.corpus.files == plain.corpus.files
    assert protected.final_counts[protected.piece_to_id("ab")] == 6


def test_a_corpus_file_that_is_not_utf8_names_file_and_line(tmp_path):
    bad = tmp_path / "c.txt"
    bad.write_bytes(b"ab ok\nfine \xff here\n")
    with pytest.raises(CorpusError, match=r"c.txt line 2") as caught:
        train(Corpus.from_files([bad]), TrainConfig(merges=3, protected=("ab",)))
    assert caught.value.reason == "not-utf8"
    replaced = train(Corpus.from_files([bad], errors="replace"),
                     TrainConfig(merges=3, protected=("ab",))).model
    assert "\ufffd" in replaced.alphabet


@settings(max_examples=40, deadline=None)
@given(st.lists(texts, min_size=1, max_size=4),
       st.lists(st.text(alphabet="abc", min_size=1, max_size=3), min_size=1, max_size=3,
                unique=True))
def test_sentencepiece_style_training_is_plain_training_between_occurrences(corpus, protected):
    counts = words_between(corpus, protected)
    assume(counts)
    config = TrainConfig.preset("sentencepiece", merges=8, protected=tuple(protected))
    model = train(Corpus.from_texts(corpus), config).model
    expected = reference_train(list(counts.items()), config.replace(protected=()))
    assert [(m.left, m.right, m.count) for m in model.merges] == expected.merges


def test_sentencepiece_style_text_encodes_alike_whole_or_line_by_line():
    config = TrainConfig.preset("sentencepiece", merges=10, protected=("ab",))
    model = train(Corpus.from_texts(["ab cab abc\nxab ab\n"] * 3), config).model
    tok = model.tokenizer()
    text = "cab\nab x\r\nabab  \n c"
    by_line = [i for line in text.splitlines() for i in tok.encode(line)]
    assert tok.encode(text) == by_line
    bow, ab = model.piece_to_id("▁"), model.piece_to_id("ab")
    assert tok.encode("ab")[:2] == [bow, ab] and tok.encode("abab") == [bow, ab, ab]


def test_model_files_keep_protected_strings_and_refuse_unknown_ones(tmp_path):
    import json

    from bpe_desktop.core import model_file
    from bpe_desktop.core.errors import ModelFileError

    model = train(Corpus.from_texts(["ab abc cab xy"] * 3),
                  TrainConfig(merges=4, protected=("ab", "xy"))).model
    path = tmp_path / "m.json"
    model_file.save_model(model, path)
    loaded = model_file.load_model(path)
    assert loaded.config.protected == ("ab", "xy") and loaded.pieces == model.pieces
    assert loaded.tokenizer().encode("xyab") == model.tokenizer().encode("xyab")
    data = json.loads(path.read_text(encoding="utf-8"))
    del data["config"]["protected"]  # a file from before protected strings
    path.write_text(json.dumps(data), encoding="utf-8")
    assert model_file.load_model(path).config.protected == ()
    data["config"]["protected"] = ["ab", "zz"]
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(ModelFileError, match=r"config.protected.*'zz' is not in the alphabet"):
        model_file.load_model(path)


def test_gzip_and_nul_bytes_in_corpus_files(tmp_path):
    import gzip

    text = "low lower ab lowest ab newer\n" * 5
    (tmp_path / "c.txt").write_text(text, encoding="utf-8")
    with gzip.open(tmp_path / "c.txt.gz", "wt", encoding="utf-8") as f:
        f.write(text)
    config = TrainConfig(merges=6, protected=("ab",))
    plain = train(Corpus.from_files([tmp_path / "c.txt"]), config).model
    packed = train(Corpus.from_files([tmp_path / "c.txt.gz"]), config).model
    assert packed.merges == plain.merges and packed.final_counts == plain.final_counts
    (tmp_path / "n.txt").write_bytes(b"ab low\nlow\x00er\n")
    with pytest.raises(CorpusError, match=r"n.txt line 2 \(byte 10\)") as caught:
        train(Corpus.from_files([tmp_path / "n.txt"]), config)
    assert caught.value.reason == "nul-byte"


@pytest.mark.parametrize("preset,decoded", [
    ("sennrich", "the United Nationsdeclared"),  # end-of-word marker: no word end after it
    ("subword-nmt", "the United Nationsdeclared"),
    ("gpt2", "the United Nations declared"),  # spaces are bytes of their own
])
def test_how_the_text_around_a_protected_string_decodes(preset, decoded):
    """As Help ▸ Training options states it (and Hugging Face decodes the same)."""
    text = "the United Nations declared the rights\n" * 3
    model = train(Corpus.from_texts([text]),
                  TrainConfig.preset(preset, merges=10, protected=("United Nations",))).model
    tok = model.tokenizer()
    assert tok.decode(tok.encode("the United Nations declared")) == decoded
