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
