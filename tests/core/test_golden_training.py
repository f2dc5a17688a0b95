"""Golden tests of training beyond the seeds' examples: counts (overlapping runs, beyond 32
bits), tie-breaking, word-boundary markers, the alphabet, character coverage, special
tokens, and a merge whose result already exists.

Like test_seeds_golden.py, every training case runs on the engine and on the reference.
"""

from __future__ import annotations

import pytest

from bpe_desktop.core import Corpus, SpecialToken, TrainConfig, train
from tests import reference_bpe as ref
from tests.core.golden import IMPLS, SEED000_WORDS, run

# -- counts ----------------------------------------------------------------------------------



def assert_encoding_reproduces_training(result) -> None:
    """Encoding each training word gives its segmentation at the end of training."""
    tok = result.model.tokenizer()
    for seg in result.word_segmentations():
        assert tuple(tok.encode_as_pieces(seg.word)) == seg.pieces

@pytest.mark.parametrize("impl", IMPLS)
def test_overlapping_runs_count_every_position_and_merge_left_to_right(impl):
    # a a a a a holds (a, a) four times; merging gives aa aa a.
    merges, vocab, _ = run(impl, [("aaaaa", 1)], boundary="none", min_frequency=1, merges=1)
    assert merges == [("a", "a", 4)]
    assert vocab == {"aa aa a": 1}
    merges, vocab, _ = run(impl, [("aaaaa", 1)], boundary="none", min_frequency=1)
    assert merges == [("a", "a", 4), ("aa", "aa", 1), ("aaaa", "a", 1)]
    assert vocab == {"aaaaa": 1}
    # window counts beat non-overlapping ones: (a,a) 40 > (b,c) 25 (algorithms.md §4.1)
    merges, _, _ = run(impl, [("aaaaa", 10), ("bc", 25)], boundary="none", merges=1)
    assert merges == [("a", "a", 40)]


@pytest.mark.parametrize("impl", IMPLS)
def test_counts_beyond_32_bits(impl):
    big = 3 * 10**9
    merges, vocab, _ = run(impl, [("aaaa", big), ("ab", 2**40)], boundary="none",
                           min_frequency=1)
    assert merges == [("a", "b", 2**40), ("a", "a", 3 * big), ("aa", "aa", big)]
    assert vocab == {"aaaa": big, "ab": 2**40}
    # 2**33 + 2**33 occurrences of (a, b): a sum that overflows 32 bits
    merges, _, _ = run(impl, [("ab", 2**33), ("abc", 2**33)], boundary="none")
    assert merges == [("a", "b", 2**34), ("ab", "c", 2**33)]


@pytest.mark.parametrize("impl", IMPLS)
def test_largest_allowed_count(impl):
    # Corpus.from_word_counts accepts counts up to 2**64-1.
    merges, vocab, _ = run(impl, [("ab", 2**64 - 1)], boundary="none")
    assert merges == [("a", "b", 2**64 - 1)]
    assert vocab == {"ab": 2**64 - 1}


# -- ties -------------------------------------------------------------------------------------

TIE_CASES = [
    # words, {ties: expected merges}
    (
        [("ba", 1), ("xy", 1)],
        {"first-seen": [("b", "a", 1), ("x", "y", 1)],
         "lexicographic": [("x", "y", 1), ("b", "a", 1)],
         "codepoint": [("b", "a", 1), ("x", "y", 1)]},
    ),
    (
        [("xy", 1), ("ba", 1)],
        {"first-seen": [("x", "y", 1), ("b", "a", 1)],
         "lexicographic": [("x", "y", 1), ("b", "a", 1)],
         "codepoint": [("b", "a", 1), ("x", "y", 1)]},
    ),
    (
        # equal left symbols: the right one decides
        [("ab", 2), ("ac", 2)],
        {"first-seen": [("a", "b", 2), ("a", "c", 2)],
         "lexicographic": [("a", "c", 2), ("a", "b", 2)],
         "codepoint": [("a", "b", 2), ("a", "c", 2)]},
    ),
    (
        # zz is created before aa, so codepoint ids order (zz, c) before (aa, c) although
        # 'aa' < 'zz' as strings. Alphabet ids: a=0 c=1 z=2; then zz=3, aa=4.
        [("aac", 1), ("zzc", 1), ("zz", 5), ("aa", 4)],
        {"first-seen": [("z", "z", 6), ("a", "a", 5), ("aa", "c", 1), ("zz", "c", 1)],
         "lexicographic": [("z", "z", 6), ("a", "a", 5), ("zz", "c", 1), ("aa", "c", 1)],
         "codepoint": [("z", "z", 6), ("a", "a", 5), ("zz", "c", 1), ("aa", "c", 1)]},
    ),
    (
        # first-seen is by earliest occurrence, not by where the count came from:
        # (c,d) occurs first (word 0), (a,b) gets most of its count later.
        [("cd", 1), ("ab", 1), ("cdab", 1)],
        {"first-seen": [("c", "d", 2), ("a", "b", 2), ("cd", "ab", 1)],
         "lexicographic": [("c", "d", 2), ("a", "b", 2), ("cd", "ab", 1)],
         "codepoint": [("a", "b", 2), ("c", "d", 2), ("cd", "ab", 1)]},
    ),
    (
        # within a word, position decides: (d,c) before (c,b) before (b,a)
        [("dcba", 1)],
        {"first-seen": [("d", "c", 1), ("dc", "b", 1), ("dcb", "a", 1)],
         "lexicographic": [("d", "c", 1), ("dc", "b", 1), ("dcb", "a", 1)],
         "codepoint": [("b", "a", 1), ("c", "ba", 1), ("d", "cba", 1)]},
    ),
    (
        # non-ASCII: code-point order (é U+E9 < ж U+436 < ｚ U+FF5A < 😀 U+1F600), not
        # UTF-16 order, which would put 😀 (surrogate D83D) before ｚ
        [("😀ж", 1), ("ｚé", 1)],
        {"first-seen": [("😀", "ж", 1), ("ｚ", "é", 1)],
         "lexicographic": [("😀", "ж", 1), ("ｚ", "é", 1)],
         "codepoint": [("ｚ", "é", 1), ("😀", "ж", 1)]},
    ),
]


@pytest.mark.parametrize("impl", IMPLS)
@pytest.mark.parametrize("ties", ["first-seen", "lexicographic", "codepoint"])
@pytest.mark.parametrize("case", range(len(TIE_CASES)))
def test_tie_breaks(impl, ties, case):
    words, expected = TIE_CASES[case]
    merges, _, _ = run(impl, words, boundary="none", min_frequency=1, ties=ties)
    assert merges == expected[ties]


@pytest.mark.parametrize("impl", IMPLS)
def test_seed000_lexicographic_and_codepoint(impl):
    # First merge of seed 000 under each rule: (e,s), (s,t), (t,</w>) all have 9.
    first = {t: run(impl, SEED000_WORDS, merges=1, ties=t)[0] for t in
             ("first-seen", "lexicographic", "codepoint")}
    assert first["first-seen"] == [("e", "s", 9)]
    assert first["lexicographic"] == [("t", "</w>", 9)]
    # ids: </w>=0 a d e h i l n o p r s t w -> (e, s) = (3, 11) beats (s, t) and (t, </w>)
    assert first["codepoint"] == [("e", "s", 9)]


# -- boundary markers -------------------------------------------------------------------------


@pytest.mark.parametrize("impl", IMPLS)
def test_eow_suffix_subword_nmt_style(impl):
    merges, vocab, alphabet = run(impl, SEED000_WORDS, boundary="eow-suffix", merges=4)
    assert alphabet == ["a", "d", "e", "h", "i", "l", "n", "o", "p", "r</w>", "s", "t</w>",
                        "w", "w</w>"]
    assert merges == [("e", "s", 9), ("es", "t</w>", 9), ("l", "o", 7), ("n", "e", 6)]
    assert vocab == {"lo w</w>": 5, "lo w e r</w>": 2, "ne w est</w>": 6,
                     "w i d est</w>": 3, "h a p p i e r</w>": 2}


@pytest.mark.parametrize("impl", IMPLS)
def test_bow_prefix_and_none(impl):
    merges, vocab, alphabet = run(impl, [("ab", 3), ("b", 2)], boundary="bow-prefix",
                                  min_frequency=1)
    assert alphabet == ["a", "b", "\u2581"]
    assert merges == [("\u2581", "a", 3), ("\u2581a", "b", 3), ("\u2581", "b", 2)]
    assert vocab == {"\u2581ab": 3, "\u2581b": 2}
    merges, vocab, alphabet = run(impl, [("ab", 3), ("b", 2)], boundary="none",
                                  min_frequency=1)
    assert alphabet == ["a", "b"]
    assert merges == [("a", "b", 3)]
    assert vocab == {"ab": 3, "b": 2}


# -- alphabet, coverage, specials --------------------------------------------------------------


@pytest.mark.parametrize("impl", IMPLS)
def test_initial_alphabet_adds_symbols_and_ids(impl):
    merges, _, alphabet = run(impl, [("ba", 1), ("xy", 1)], boundary="none",
                              min_frequency=1, initial_alphabet="zc")
    assert alphabet == ["a", "b", "c", "x", "y", "z"]
    # 1 special + 6 symbols: vocab_size 8 leaves room for one merge
    merges, _, _ = run(impl, [("ba", 1), ("xy", 1)], boundary="none", min_frequency=1,
                       initial_alphabet="zc", vocab_size=8)
    assert merges == [("b", "a", 1)]


@pytest.mark.parametrize("impl", IMPLS)
def test_character_coverage_replaces_rare_characters(impl):
    # a: 10+6=16, b: 10, c: 2+1=3, x: 1 of 30. Coverage 0.8: a is 16/30, a+b 26/30 >= 0.8.
    words = [("ab", 10), ("acaa", 2), ("cx", 1)]
    merges, vocab, alphabet = run(impl, words, character_coverage=0.8, min_frequency=1)
    assert alphabet == ["</w>", "a", "b"]
    # <unk> never pairs: (a, <unk>), (<unk>, a), (<unk>, <unk>), (<unk>, </w>) not counted
    assert merges == [("a", "b", 10), ("ab", "</w>", 10), ("a", "a", 2), ("aa", "</w>", 2)]
    assert vocab == {"ab</w>": 10, "a <unk> aa</w>": 2, "<unk> <unk> </w>": 1}
    # equal frequencies: the smaller code point is kept first
    words = [("ab", 4), ("cx", 2)]
    _, vocab, alphabet = run(impl, words, character_coverage=0.75, min_frequency=1)
    # a 4, b 4, c 2, x 2 of 12: a+b = 8/12 < 0.75, then c (not x): 10/12 >= 0.75
    assert alphabet == ["</w>", "a", "b", "c"]
    assert vocab == {"ab</w>": 4, "c <unk> </w>": 2}


@pytest.mark.parametrize("impl", IMPLS)
def test_character_coverage_exact_share(impl):
    # a 55, b 35, c 10 of 100: a alone covers exactly 55/100, which meets a coverage of 0.55,
    # and a + b exactly 90/100, which meets 0.9. (The share must be compared as a quotient,
    # 55 / 100 >= 0.55: the product 0.55 * 100 is 55.00000000000001 in binary floating
    # point, so "55 >= 0.55 * 100" is false.)
    words = [("a" * 55, 1), ("b" * 35, 1), ("c" * 10, 1)]
    _, vocab, alphabet = run(impl, words, character_coverage=0.55, merges=0)
    assert alphabet == ["</w>", "a"]
    assert vocab["<unk> " * 35 + "</w>"] == 1
    _, _, alphabet = run(impl, words, character_coverage=0.56, merges=0)
    assert alphabet == ["</w>", "a", "b"]
    _, _, alphabet = run(impl, words, character_coverage=0.9, merges=0)
    assert alphabet == ["</w>", "a", "b"]
    _, _, alphabet = run(impl, words, character_coverage=0.91, merges=0)
    assert alphabet == ["</w>", "a", "b", "c"]
    # the same with 7 of 10 and 0.7 (where both forms happen to agree)
    words = [("aaaaaaa", 1), ("bb", 1), ("c", 1)]
    _, vocab, alphabet = run(impl, words, character_coverage=0.7, merges=0)
    assert alphabet == ["</w>", "a"]
    assert vocab == {"a a a a a a a </w>": 1, "<unk> <unk> </w>": 1, "<unk> </w>": 1}


@pytest.mark.parametrize("impl", IMPLS)
def test_character_coverage_eow_suffix_and_initial_alphabet(impl):
    # eow-suffix: coverage counts plain characters; an unknown last character is <unk>
    words = [("aab", 4), ("ax", 1)]  # a 9, b 4, x 1 of 14; 0.9 keeps a, b (13/14)
    merges, vocab, alphabet = run(impl, words, boundary="eow-suffix",
                                  character_coverage=0.9, min_frequency=1)
    assert alphabet == ["a", "b</w>"]
    assert merges == [("a", "a", 4), ("aa", "b</w>", 4)]
    assert vocab == {"aab</w>": 4, "a <unk>": 1}
    # 0.6: a alone (9/14); the unknown last character b takes no marker
    merges, vocab, alphabet = run(impl, words, boundary="eow-suffix",
                                  character_coverage=0.6, min_frequency=1)
    assert alphabet == ["a"]
    assert merges == [("a", "a", 4)]
    assert vocab == {"aa <unk>": 4, "a <unk>": 1}
    # initial_alphabet characters are in the vocabulary, so they are never replaced
    # (else 'ax' would train as 'a <unk>' but encode as 'a x</w>')
    merges, vocab, alphabet = run(impl, words, boundary="eow-suffix",
                                  character_coverage=0.6, initial_alphabet="x",
                                  min_frequency=1)
    assert alphabet == ["a", "x", "x</w>"]
    assert merges == [("a", "a", 4), ("a", "x</w>", 1)]
    assert vocab == {"aa <unk>": 4, "ax</w>": 1}
    # the same with eow-symbol, where 'x' is plainly a token of the model
    merges, vocab, alphabet = run(impl, words, character_coverage=0.6, initial_alphabet="x",
                                  min_frequency=1)
    assert alphabet == ["</w>", "a", "x"]
    assert merges == [("a", "a", 4), ("a", "x", 1), ("ax", "</w>", 1)]
    assert vocab == {"aa <unk> </w>": 4, "ax</w>": 1}
    if impl == "engine":
        config = TrainConfig(character_coverage=0.6, initial_alphabet="x", min_frequency=1)
        result = train(Corpus.from_word_counts(words), config)
        assert_encoding_reproduces_training(result)


@pytest.mark.parametrize("impl", IMPLS)
def test_character_coverage_never_replaces_the_bow_marker_character(impl):
    # '▁' in the text is the marker's own string: it is in the vocabulary whatever its
    # frequency (a 4 of 5 meets 0.8 alone), so it must not train as <unk> and encode as '▁'.
    words = [("aa", 1), ("aa\u2581", 1)]
    _, vocab, alphabet = run(impl, words, boundary="bow-prefix", character_coverage=0.8,
                             merges=0)
    assert alphabet == ["a", "\u2581"]
    assert vocab == {"\u2581 a a": 1, "\u2581 a a \u2581": 1}
    if impl == "engine":
        config = TrainConfig(boundary="bow-prefix", character_coverage=0.8, merges=0)
        result = train(Corpus.from_word_counts(words), config)
        assert_encoding_reproduces_training(result)


@pytest.mark.parametrize("impl", IMPLS)
def test_pairs_spelling_a_special_token_are_never_merged(impl):
    specials = (SpecialToken("<unk>", 0, "unk"), SpecialToken("ab", 1))
    merges, vocab, _ = run(impl, [("abab", 5), ("bc", 1)], boundary="none", min_frequency=1,
                           special_tokens=specials)
    assert merges == [("b", "a", 5), ("a", "ba", 5), ("aba", "b", 5), ("b", "c", 1)]
    assert vocab == {"abab": 5, "bc": 1}
    # and when only such pairs are left, training stops
    merges, _, _ = run(impl, [("ab", 5)], boundary="none", min_frequency=1,
                       special_tokens=specials)
    assert merges == []


# -- a merge whose result already exists -------------------------------------------------------


@pytest.mark.parametrize("impl", IMPLS)
def test_duplicate_result_reuses_token_and_reencodes_words(impl):
    # '</w>' spelled with characters: merging '</w' + '>' gives the marker's own string.
    words = [("</w>", 1), ("w</w>", 1), ("w", 3)]
    merges, vocab, alphabet = run(impl, words, min_frequency=1)
    assert alphabet == ["/", "<", "</w>", ">", "w"]
    assert merges == [
        ("w", "</w>", 3), ("<", "/", 2), ("</", "w", 2),
        ("</w", ">", 2),  # result '</w>' exists: reused; words 0 and 1 re-encoded, and
        # in word 1 'w </w> </w>' the learned (w, </w>) (rank 0) is merged again
        ("</w>", "</w>", 1), ("w</w>", "</w>", 1),
    ]
    assert vocab == {"</w></w>": 1, "w</w></w>": 1, "w</w>": 3}
    if impl == "engine":
        result = train(Corpus.from_word_counts(words), TrainConfig(min_frequency=1))
        model = result.model
        # the reused token has one id; the vocabulary holds each string once
        assert len(model.pieces) == len(set(model.pieces)) == 1 + 5 + 6 - 1
        assert_encoding_reproduces_training(result)


def test_reference_reencode_differs_from_plain_replay():
    # Guard for the reference itself: in the case above, replaying the merges left to right
    # without re-encoding would leave word 1 as 'w </w></w>' instead.
    res = ref.train([("</w>", 1), ("w</w>", 1), ("w", 3)], min_frequency=1, merges=4)
    assert res.seed_vocabulary() == {"</w> </w>": 1, "w</w> </w>": 1, "w</w>": 3}
    plain = ref.initial_symbols("w</w>", "eow-symbol")
    for left, right, _ in res.merges:
        plain = ref.merge_pair(plain, (left, right))
    assert plain == ["w", "</w>", "</w>"]
