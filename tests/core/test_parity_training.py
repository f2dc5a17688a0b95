"""Parity-aware training: the engine equals the reference trainer's parity rule
(``tests/reference_bpe.train_parity``) merge for merge, language choice for language
choice, and the development set's token counts it reports are the real ones."""

from __future__ import annotations

from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st

from bpe_desktop.core import BOUNDARIES, TIE_BREAKS, TrainConfig
from bpe_desktop.core.options import OPTION_VALUES
from bpe_desktop.core.multilingual import LanguageReport, train_parity_tables
from tests import reference_bpe as ref
from tests.core.test_properties import SPECIAL_SETS

#: Each language its own letters, sharing some: shared pairs, ties and unknown dev letters.
LANGUAGE_ALPHABETS = ["abc", "bcd", "aéж"]
CODES = ("xx", "yy", "zz")


@st.composite
def multilingual(draw):
    n = draw(st.integers(2, 3))
    tables, dev = [], []
    for alphabet in LANGUAGE_ALPHABETS[:n]:
        words = draw(st.lists(st.text(alphabet=alphabet, min_size=1, max_size=7),
                              min_size=1, max_size=5, unique=True))
        counts = draw(st.lists(st.integers(1, 5), min_size=len(words), max_size=len(words)))
        tables.append(list(zip(words, counts)))
        dev_words = draw(st.lists(st.text(alphabet=alphabet + "q", min_size=1, max_size=6),
                                  min_size=1, max_size=3, unique=True))
        dev_counts = draw(st.lists(st.integers(1, 3), min_size=len(dev_words),
                                   max_size=len(dev_words)))
        dev.append(list(zip(dev_words, dev_counts)))
    stop = draw(st.sampled_from(["merges", "vocab_size", "none"]))
    specials = SPECIAL_SETS[draw(st.sampled_from(list(SPECIAL_SETS)))]
    config = TrainConfig(
        lang=tuple(f"{code}=tables" for code in CODES[:n]),
        pretokenizer="whitespace",
        boundary=draw(st.sampled_from(BOUNDARIES)),
        ties=draw(st.sampled_from(TIE_BREAKS)),
        min_frequency=draw(st.sampled_from([1, 2])),
        merges=draw(st.integers(0, 20)) if stop == "merges" else None,
        vocab_size=draw(st.integers(max(1, len(specials)), 35)) if stop == "vocab_size"
        else None,
        special_tokens=specials,
        parity_measure=draw(st.sampled_from(OPTION_VALUES["parity_measure"])),
        parity_window=draw(st.sampled_from([0, 0, 1, 2, 3])),
    )
    return tables, dev, config


def train_engine(tables, dev, config):
    codes = CODES[: len(tables)]
    totals = tuple(sum(c for _, c in t) for t in tables)
    report = LanguageReport(codes, codes, totals, totals)
    return train_parity_tables(tables, dev, config, report)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(multilingual())
def test_engine_follows_the_reference_parity_rule(case):
    tables, dev, config = case
    note(repr(config))
    expected, chosen = ref.train_parity(
        tables, dev, boundary=config.boundary, ties=config.ties,
        min_frequency=config.min_frequency, merges=config.merges,
        vocab_size=config.vocab_size, specials=[t.piece for t in config.special_tokens],
        measure=config.parity_measure, window=config.parity_window)
    result = train_engine(tables, dev, config)
    got = [(m.left, m.right, m.count) for m in result.model.merges]
    assert got == expected.merges
    assert list(result.languages.chosen) == chosen
    assert [(w, c, list(p)) for w, c, p in
            ((s.word, s.count, s.pieces) for s in result.word_segmentations())] \
        == expected.words


def test_the_worst_compressed_language_chooses_each_merge():
    # Language x repeats "ab", language y "cd"; y's development text is longer per
    # character, so y chooses first (cd), then both are at 2 tokens per 2 characters
    # ... worked by hand: dev x "ab" = 3 symbols (a b </w>) / 2 chars, dev y "cdcd" =
    # 5 / 4. x is worse (1.5 > 1.25): x picks (a, b); then x = 2/2 = 1.0 < y 1.25: y
    # picks (c, d); y = 3/4; x 1.0 is worse: x picks (ab, </w>).
    tables = [[("ab", 10)], [("cdcd", 3)]]
    dev = [[("ab", 1)], [("cdcd", 1)]]
    result = train_engine(tables, dev, TrainConfig(merges=3,
                                                   parity_measure="tokens-per-character"))
    assert [(m.left, m.right) for m in result.model.merges] == \
        [("a", "b"), ("c", "d"), ("ab", "</w>")]
    assert result.languages.chosen == (0, 1, 0)
    # counts over both languages: (c, d) occurs twice in cdcd, 3 times
    assert [m.count for m in result.model.merges] == [10, 6, 10]
    assert result.languages.dev_tokens_before == (3, 5)
    assert result.languages.dev_tokens_after == (1, 3)
    assert result.languages.dev_chars == (2, 4)
