"""Extending a model equals the reference trainer continuing from the source's segmentation.

A source model is trained on one random table, then extended on another (whose alphabet
may hold characters the source lacks): the new merges (pair and count) must be the
reference's, every source token keeps its id, new characters come first, and every word
of the new table encodes with the extended model to its reference segmentation.
"""

from __future__ import annotations

from hypothesis import given, note, settings
from hypothesis import strategies as st

from bpe_desktop.core import BOUNDARIES, TIE_BREAKS, Corpus, SpecialToken, TrainConfig, train
from bpe_desktop.core.extend import extend
from bpe_desktop.core.formats._common import BYTE_PIECES
from bpe_desktop.core.model import BPEModel
from bpe_desktop.core.new_ids import parse_new_ids
from tests import reference_bpe as ref
from tests.core.test_properties import SETTINGS, word_tables

UNK = SpecialToken("<unk>", 0, "unk")
#: The extension table may use characters the source never saw (c, ж, 字).
EXTENSION_ALPHABETS = ["ab", "abc", "abж", "aé字", "жaé"]


def _source_segmentation(model, word: str) -> list[str]:
    """The word's initial symbols, merged with the source's merges in rank order."""
    ranks: dict = {}
    for rank, m in enumerate(model.merges):
        ranks.setdefault((m.left, m.right), rank)
    return ref.encode_word(ref.initial_symbols(word, model.config.boundary), ranks)


@settings(max_examples=150, **SETTINGS)
@given(source_words=word_tables(alphabets=["ab", "abc", "aé"]),
       new_words=word_tables(alphabets=EXTENSION_ALPHABETS),
       boundary=st.sampled_from(BOUNDARIES), ties=st.sampled_from(TIE_BREAKS),
       source_merges=st.integers(0, 6), new_merges=st.integers(1, 12),
       min_frequency=st.sampled_from([1, 2]))
def test_extension_equals_reference(source_words, new_words, boundary, ties, source_merges,
                                    new_merges, min_frequency):
    config = TrainConfig(pretokenizer="whitespace", boundary=boundary, ties=ties,
                         min_frequency=1, merges=source_merges, special_tokens=(UNK,))
    source = train(Corpus.from_word_counts(source_words), config).model
    note(f"source merges={source.merges!r}")
    result = extend(source, Corpus.from_word_counts(new_words), merges=new_merges,
                    min_frequency=min_frequency)
    model = result.model

    # the reference: the source's tokens in id order, then the new symbols
    pieces = [p for p in source.pieces if p != UNK.piece]
    segments = [_source_segmentation(source, w) for w, _ in new_words]
    new_symbols = sorted({s for seg in segments for s in seg} - set(pieces))
    expected = ref.train(new_words, boundary=boundary, ties=ties,
                         min_frequency=min_frequency, merges=new_merges,
                         specials=(UNK.piece,), start=(pieces + new_symbols, segments))
    note(f"reference merges={expected.merges!r}")
    assert [c for c, _ in result.new_characters] == new_symbols
    assert [(m.left, m.right, m.count) for m in model.merges[len(source.merges):]] \
        == expected.merges
    assert model.merges[:len(source.merges)] == source.merges
    assert model.pieces[:source.vocab_size] == source.pieces
    assert list(model.pieces[source.vocab_size:]) == expected.tokens[len(pieces):]
    tok = model.tokenizer()
    for word, _, final in expected.words:
        assert tok.encode_as_pieces(word) == final, word


@settings(max_examples=60, **SETTINGS)
@given(source_words=word_tables(alphabets=["ab", "abc"]),
       new_words=word_tables(alphabets=EXTENSION_ALPHABETS),
       boundary=st.sampled_from(BOUNDARIES), source_merges=st.integers(0, 4),
       new_merges=st.integers(1, 8), gap=st.integers(0, 5),
       skipped=st.sets(st.integers(0, 30), max_size=6), open_ended=st.booleans())
def test_named_ids_renumber_the_same_extension(source_words, new_words, boundary,
                                               source_merges, new_merges, gap, skipped,
                                               open_ended):
    """New tokens in named ids: the same extension as with the next free ids, each new
    token at the next named id in order, the ids left free below reserved."""
    config = TrainConfig(pretokenizer="whitespace", boundary=boundary, min_frequency=1,
                         merges=source_merges, special_tokens=(UNK,))
    source = train(Corpus.from_word_counts(source_words), config).model
    corpus = Corpus.from_word_counts(new_words)
    plain = extend(source, corpus, merges=new_merges).model
    first = source.vocab_size + gap
    listed = [first + k for k in range(40) if k not in skipped]
    spec = f"{first}-" if open_ended else ",".join(map(str, listed))
    named = extend(source, corpus, merges=new_merges, new_ids=parse_new_ids(spec))
    model = named.model
    count = plain.vocab_size - source.vocab_size
    targets = list(range(first, first + count)) if open_ended else listed[:count]
    assert list(named.new_ids) == targets
    assert model.merges == plain.merges
    assert [model.id_to_piece(i) for i in range(source.vocab_size)] == list(source.pieces)
    assert [model.id_to_piece(i) for i in targets] == list(plain.pieces[source.vocab_size:])
    reserved = sorted(t.id for t in model.config.special_tokens if t.id >= source.vocab_size)
    assert reserved == sorted(set(range(source.vocab_size, max(targets, default=0) + 1))
                              - set(targets))
    tok, plain_tok = model.tokenizer(), plain.tokenizer()
    for word, _ in new_words:
        assert tok.encode_as_pieces(word) == plain_tok.encode_as_pieces(word)


@settings(max_examples=80, **SETTINGS)
@given(source_words=word_tables(alphabets=["ab", "abc"]),
       new_words=word_tables(alphabets=EXTENSION_ALPHABETS),
       boundary=st.sampled_from(BOUNDARIES), ties=st.sampled_from(TIE_BREAKS),
       source_merges=st.integers(0, 4), new_merges=st.integers(1, 10))
def test_bytes_for_unknown_characters_equal_reference(source_words, new_words, boundary,
                                                      ties, source_merges, new_merges):
    """A byte-fallback source extended with unknown characters as bytes: each such
    character starts as its UTF-8 byte tokens, which no new merge joins; otherwise the
    reference's continued training."""
    config = TrainConfig(pretokenizer="whitespace", boundary=boundary, ties=ties,
                         min_frequency=1, merges=source_merges, special_tokens=(UNK,))
    trained = train(Corpus.from_word_counts(source_words), config).model
    source = BPEModel(config.replace(byte_fallback=True), trained.alphabet + BYTE_PIECES,
                      trained.merges)
    result = extend(source, Corpus.from_word_counts(new_words), merges=new_merges,
                    min_frequency=1, unknown="bytes")
    model = result.model

    known = set(source.alphabet)
    ranks: dict = {}
    for rank, m in enumerate(source.merges):
        ranks.setdefault((m.left, m.right), rank)
    segments = []
    for word, _ in new_words:
        symbols = []
        for s in ref.initial_symbols(word, boundary):
            symbols += [s] if s in known else [BYTE_PIECES[b] for b in s.encode("utf-8")]
        segments.append(ref.encode_word(symbols, ranks))
    pieces = [p for p in source.pieces if p != UNK.piece]
    expected = ref.train(new_words, boundary=boundary, ties=ties, min_frequency=1,
                         merges=new_merges, specials=(UNK.piece,), start=(pieces, segments),
                         never_merged=frozenset(BYTE_PIECES))
    note(f"reference merges={expected.merges!r}")
    assert result.new_characters == ()
    assert [(m.left, m.right, m.count) for m in model.merges[len(source.merges):]] \
        == expected.merges
    assert model.pieces[:source.vocab_size] == source.pieces
    tok = model.tokenizer()
    for word, _, final in expected.words:
        assert tok.encode_as_pieces(word) == final, word
