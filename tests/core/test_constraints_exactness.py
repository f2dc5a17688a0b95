"""Constrained training is as exact as plain training: boundaries inside words and
forbidden pairs against the reference trainer, merge for merge, for every boundary
marker, tie rule and stop rule; with no constraints nothing changes."""

from __future__ import annotations

from hypothesis import given, note, settings
from hypothesis import strategies as st

from bpe_desktop.core import Corpus, TrainConfig, train
from bpe_desktop.core.constraints import Constraints
from tests import reference_bpe as ref
from tests.core.test_properties import SETTINGS, configs, engine_merges, engine_words, \
    word_tables


@st.composite
def cut_words(draw):
    """A word table and, per word, a set of inner cut offsets (often none)."""
    words = draw(word_tables(max_words=6, max_len=8))
    cuts = []
    for word, _ in words:
        inner = list(range(1, len(word)))
        chosen = draw(st.lists(st.sampled_from(inner), unique=True)) if inner and \
            draw(st.booleans()) else []
        cuts.append(frozenset(chosen))
    return words, cuts


def segmentation(word: str, cuts: frozenset[int]) -> tuple[str, ...]:
    edges = [0, *sorted(cuts), len(word)]
    return tuple(word[a:b] for a, b in zip(edges, edges[1:]))


def check(words, cuts, config, forbidden=frozenset()):
    note(f"words={words!r} cuts={cuts!r} forbidden={forbidden!r}")
    expected = ref.train(
        words, boundary=config.boundary, ties=config.ties,
        min_frequency=config.min_frequency, merges=config.merges,
        vocab_size=config.vocab_size, character_coverage=config.character_coverage,
        initial_alphabet=config.initial_alphabet,
        specials=[t.piece for t in config.special_tokens], cuts=cuts, forbidden=forbidden)
    constraints = Constraints(
        segmentations=tuple(segmentation(w, c) for (w, _), c in zip(words, cuts) if c),
        forbidden=tuple(sorted(forbidden)))
    result = train(Corpus.from_word_counts(words), config, constraints=constraints)
    assert engine_merges(result) == expected.merges
    assert list(result.model.alphabet) == expected.alphabet
    assert engine_words(result) == expected.words
    for left, right, _ in expected.merges:
        assert (left, right) not in forbidden
    return result, expected


@settings(max_examples=300, **SETTINGS)
@given(data=cut_words(), config=configs())
def test_boundaries_equal_the_reference(data, config):
    words, cuts = data
    check(words, cuts, config)


@settings(max_examples=200, **SETTINGS)
@given(data=cut_words(), config=configs(coverages=(1.0,)),
       forbidden=st.sets(st.sampled_from([("a", "b"), ("b", "a"), ("a", "a"), ("ab", "a"),
                                          ("a", "b</w>"), ("\u2581", "a"), ("b", "</w>")]),
                         max_size=3))
def test_forbidden_pairs_and_boundaries_equal_the_reference(data, config, forbidden):
    words, cuts = data
    check(words, cuts, config, frozenset(forbidden))


@settings(max_examples=100, **SETTINGS)
@given(words=word_tables(), config=configs())
def test_no_boundaries_is_plain_training(words, config):
    plain = train(Corpus.from_word_counts(words), config)
    # segmentations that cut no corpus word, and an empty separator, change nothing
    unused = Constraints(segmentations=(("zz", "q"),))
    same = train(Corpus.from_word_counts(words), config, constraints=unused)
    assert engine_merges(same) == engine_merges(plain)
    assert engine_words(same) == engine_words(plain)
    assert same.model.final_counts == plain.model.final_counts


def test_each_segment_re_encodes_to_its_training_pieces_but_the_word_may_not():
    # 'n h' is learned from 'nhap', so encoding 'unhappy' (which does not know the gold
    # boundary un|happy) joins across it; training kept the boundary.
    words = [("nhap", 9), ("unhappy", 2)]
    config = TrainConfig(merges=6)
    result = train(Corpus.from_word_counts(words), config,
                   constraints=Constraints(segmentations=(("un", "happy"),)))
    trained = dict((s.word, s.pieces) for s in result.word_segmentations())
    tok = result.model.tokenizer()
    assert trained["unhappy"][:1] == ("un",) or trained["unhappy"][0] in ("u", "un")
    assert all("nh" not in p for p in trained["unhappy"])
    assert any("nh" in p for p in tok.encode_as_pieces("unhappy"))
    # the final counts are those of the training segmentations
    ids = result.model.piece_ids
    counts = result.model.final_counts
    for piece in trained["unhappy"]:
        assert counts[ids[piece]] >= 2
