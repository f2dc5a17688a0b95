"""Where boundaries come from: gold files, a pre-segmented corpus, Morfessor; every
preset and word-count tables; bad input is a clear error and loses nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from bpe_desktop.core import (
    ConfigError,
    Corpus,
    CorpusError,
    SpecialToken,
    TrainConfig,
    TrainingCancelled,
    train,
)
from bpe_desktop.core.constraints import gold_segmentations, write_segmentation
from bpe_desktop.core.evaluation import read_gold
from bpe_desktop.core.model_file import dumps, loads
from bpe_desktop.core.morfessor_source import kept_whole, morfessor_words, train_morfessor

DATA = Path(__file__).resolve().parents[1] / "data"
SIGMORPHON_ENG = DATA / "morph" / "eng.word.dev.tsv"

WORDS = {"unhappiness": 6, "undo": 5, "redo": 7, "nhap": 4, "happiness": 3}
GOLD = "unhappiness\tun happi ness\nundo\tun do\nredo\tre do\n"


def pieces(result) -> dict[str, tuple[str, ...]]:
    return {s.word.lstrip("Ġ").lstrip(): s.pieces for s in result.word_segmentations()}


def joins_across(result, word: str, cuts: set[int]) -> bool:
    """Whether the word's training pieces join across one of its cuts (char offsets)."""
    at, ends = 0, set()
    for piece in pieces(result)[word][:-1]:
        at += len(piece.replace("</w>", "").replace("\u2581", "").replace("Ġ", ""))
        ends.add(at)
    return not cuts <= ends


@pytest.fixture
def gold(tmp_path) -> str:
    path = tmp_path / "gold.tsv"
    path.write_text(GOLD, encoding="utf-8")
    return str(path)


@pytest.mark.parametrize("preset", ["sennrich", "subword-nmt", "gpt2", "sentencepiece"])
def test_gold_boundaries_hold_with_every_preset(preset, gold, tmp_path):
    config = TrainConfig.preset(preset, merges=40, gold_boundaries=(gold,))
    result = train(Corpus.from_word_counts(WORDS), config)
    assert not joins_across(result, "unhappiness", {2, 7})
    assert not joins_across(result, "redo", {2})
    plain = train(Corpus.from_word_counts(WORDS), TrainConfig.preset(preset, merges=40))
    assert joins_across(plain, "unhappiness", {2, 7})  # the boundaries changed something
    assert result.model.constraints.method.startswith("gold boundaries (gold.tsv)")
    assert result.model.constraints.segmented_words == 3
    assert loads(dumps(result.model)).constraints == result.model.constraints


def test_only_words_the_gold_cuts_count_as_given_boundaries(tmp_path):
    """A gold word of one morph (SIGMORPHON lists many) gives no boundary."""
    path = tmp_path / "gold.tsv"
    path.write_text(GOLD + "happiness\thappiness\n", encoding="utf-8")
    result = train(Corpus.from_word_counts(WORDS), TrainConfig(merges=10,
                                                               gold_boundaries=(str(path),)))
    assert result.model.constraints.segmented_words == 3


def test_gold_boundaries_apply_to_running_text_and_gpt2_leading_spaces(gold):
    text = ["unhappiness undo redo " * 3 + "nhap " * 5]
    for preset in ("gpt2", "sennrich"):
        result = train(Corpus.from_texts(text),
                       TrainConfig.preset(preset, merges=30, gold_boundaries=(gold,)))
        assert not joins_across(result, "unhappiness", {2, 7}), preset


def test_word_count_files_take_boundaries_too(gold, tmp_path):
    table = tmp_path / "words.tsv"
    table.write_text("".join(f"{w}\t{c}\n" for w, c in WORDS.items()), encoding="utf-8")
    corpus = Corpus.from_files([table], word_counts=True)
    result = train(corpus, TrainConfig(merges=40, gold_boundaries=(gold,)))
    assert not joins_across(result, "unhappiness", {2, 7})


def test_sigmorphon_gold_uses_only_entries_that_spell_their_word():
    segmentations = gold_segmentations([SIGMORPHON_ENG])
    gold = read_gold(SIGMORPHON_ENG)
    assert len(segmentations) == len(gold.words) and gold.not_surface > 0
    assert all("".join(m) == w.word for m, w in zip(segmentations, gold.words))


def test_lowercased_corpus_matches_gold_words_lowercased(tmp_path):
    path = tmp_path / "g.tsv"
    path.write_text("Undo\tUn do\n", encoding="utf-8")
    result = train(Corpus.from_word_counts({"UNDO": 5, "nd": 9}),
                   TrainConfig(merges=10, lowercase=True, gold_boundaries=(str(path),)))
    assert not joins_across(result, "undo", {2})


SPELLED_GOLD = "unhappiness\tun happi ness\nundo\tun do\nr\u00e9do\tr\u00e9 do\nhappy\thappy\n"
#: unhappiness as the gold spells it, Undo capitalized, rédo in NFD (e + combining acute),
#: happy without a gold boundary, nhap not in the gold.
SPELLED_TEXT = "unhappiness Undo re\u0301do nhap happy\n" * 3


@pytest.mark.parametrize("preset", ["sennrich", "sentencepiece"])
@pytest.mark.parametrize("options,cut,nfc,lower", [
    ({}, 1, 1, 1),
    ({"normalize": "nfc"}, 2, 0, 1),
    ({"lowercase": True}, 2, 1, 0),
    ({"normalize": "nfc", "lowercase": True}, 3, 0, 0),
])
def test_the_words_the_gold_cuts_are_counted_as_the_engine_matches_them(
        tmp_path, preset, options, cut, nfc, lower):
    gold = tmp_path / "gold.tsv"
    gold.write_text(SPELLED_GOLD, encoding="utf-8")
    config = TrainConfig.preset(preset, merges=20, gold_boundaries=(str(gold),), **options)
    result = train(Corpus.from_texts([SPELLED_TEXT]), config)
    match, = result.gold_matches
    assert (match.cut, match.more_with_nfc, match.more_with_lowercase) == (cut, nfc, lower)
    assert match.distinct == result.distinct_words
    words = pieces(result)
    for word, at in (("unhappiness", {2, 7}), ("undo", {2}), ("r\u00e9do", {2})):
        if word in words:  # the engine cut what is counted as cut
            assert not joins_across(result, word, at)
    assert ("Unicode form" in (match.warning() or "")) == bool(nfc)


def test_gpt2_words_match_the_gold_without_their_leading_space(tmp_path):
    gold = tmp_path / "gold.tsv"
    gold.write_text(SPELLED_GOLD, encoding="utf-8")
    config = TrainConfig.preset("gpt2", merges=20, gold_boundaries=(str(gold),))
    match = train(Corpus.from_texts([SPELLED_TEXT]), config).gold_matches[0]
    assert (match.cut, match.more_with_lowercase) == (1, 1)  # unhappiness; Undo


def test_a_gold_file_that_cuts_no_corpus_word_is_a_warning(tmp_path):
    gold = tmp_path / "gold.tsv"
    gold.write_text("kutya\tkuty a\n", encoding="utf-8")
    result = train(Corpus.from_texts([SPELLED_TEXT]),
                   TrainConfig(merges=20, gold_boundaries=(str(gold),)))
    match, = result.gold_matches
    assert (match.cut, match.more_with_nfc, match.more_with_lowercase) == (0, 0, 0)
    assert "no word of the corpus is in the gold files" in match.warning()
    plain = train(Corpus.from_texts([SPELLED_TEXT]), TrainConfig(merges=20))
    assert plain.gold_matches == ()


@pytest.mark.parametrize("option,extra,files", [
    ("knockout", {}, "knockout gold files"),
    ("morfessor_annotations", {"morfessor": True}, "annotation files"),
])
def test_knockout_gold_and_annotations_are_counted_and_warned_of_as_gold_boundaries(
        tmp_path, option, extra, files):
    """Every word they list counts (happy, in one morph, too); rédo is in NFD in the
    corpus, Undo capitalized."""
    gold = tmp_path / "gold.tsv"
    gold.write_text(SPELLED_GOLD, encoding="utf-8")
    boundaries = tmp_path / "boundaries.tsv"
    boundaries.write_text("nhap\tn hap\n", encoding="utf-8")
    config = TrainConfig(merges=20, gold_boundaries=(str(boundaries),),
                         **{option: (str(gold),)}, **extra)
    result = train(Corpus.from_texts([SPELLED_TEXT]), config)
    by_option = {m.option: m for m in result.gold_matches}
    assert list(by_option) == ["gold_boundaries", option]  # the options' order
    match = by_option[option]
    assert (match.cut, match.distinct, match.more_with_nfc, match.more_with_lowercase) == \
        (2, 5, 1, 1)
    assert match.summary() == ("{} match 2 of the corpus's 5 distinct words (more would "
                               "match: 1 with NFC normalization, 1 with lower-casing)").format(
        "Knockout gold files" if option == "knockout" else "Morfessor annotations")
    assert match.warning() == (f"1 corpus word is in the {files} in another Unicode form "
                               "(NFC against NFD) and not matched; train with NFC "
                               "normalization (--normalize nfc) to match it")
    nfc = train(Corpus.from_texts([SPELLED_TEXT]), config.replace(normalize="nfc"))
    assert nfc.gold_matches[1].cut == 3 and nfc.gold_matches[1].warning() is None
    gold.write_text("kutya\tkuty a\n", encoding="utf-8")
    none = train(Corpus.from_texts([SPELLED_TEXT]), config).gold_matches[1]
    assert none.warning().startswith(f"no word of the corpus is in the {files}: ")


@pytest.mark.parametrize("separator,preset", [("@@", "sennrich"), ("-", "subword-nmt"),
                                              ("@@", "gpt2"), ("·", "sentencepiece")])
def test_a_pre_segmented_corpus_loses_its_separator(separator, preset):
    text = [f"un{separator}happi{separator}ness un{separator}do re{separator}do nhap nhap"] * 3
    result = train(Corpus.from_texts(text),
                   TrainConfig.preset(preset, merges=60, separator=separator))
    tokens = set(result.model.pieces)
    assert not any(separator in t for t in tokens)
    plain = train(Corpus.from_texts([t.replace(separator, "") for t in text]),
                  TrainConfig.preset(preset, merges=60))
    assert any("unhappi" in t for t in plain.model.pieces)
    assert not any("unh" in t or "ihappi" in t or "ppin" in t for t in tokens)


@pytest.mark.parametrize("changes,words", [
    ({"separator": "a b"}, "whitespace"),
    ({"separator": "-", "pretokenizer": "letters"}, "letters"),
    ({"morfessor_annotations": ("g.tsv",)}, "needs morfessor"),
    ({"separator": "<", "special_tokens": (SpecialToken("<unk>", 0),)}, "special token"),
    ({"gold_boundaries": "g.tsv"}, "list of file names"),
])
def test_bad_constraint_options_are_config_errors(changes, words):
    with pytest.raises(ConfigError, match=words):
        TrainConfig(**changes)


def test_a_missing_gold_file_is_an_error_naming_it(tmp_path):
    missing = tmp_path / "nope.tsv"
    with pytest.raises(CorpusError, match="nope.tsv"):
        train(Corpus.from_word_counts(WORDS), TrainConfig(gold_boundaries=(str(missing),)))


def test_a_malformed_gold_line_names_file_and_line(tmp_path):
    bad = tmp_path / "bad.tsv"
    bad.write_text("undo\tun do\nredo\n", encoding="utf-8")
    with pytest.raises(CorpusError, match=r"bad.tsv.*line 2|line 2.*bad.tsv"):
        train(Corpus.from_word_counts(WORDS), TrainConfig(gold_boundaries=(str(bad),)))


def test_a_saved_segmentation_must_spell_its_words(tmp_path):
    with pytest.raises(CorpusError, match="do not spell"):
        write_segmentation(tmp_path / "s.tsv", [("undo", ("un", "du"))])
    assert not (tmp_path / "s.tsv").exists()


# -- Morfessor ------------------------------------------------------------------------------

#: Morfessor's boundaries on every word, the most frequent ones too.
CUT_EVERY_WORD = {"morfessor_keep_frequent": 0, "morfessor_keep_share": 0.0}
MORF_WORDS = {w: c for w, c in (
    ("walk", 30), ("walked", 20), ("walking", 25), ("walks", 15), ("talk", 30),
    ("talked", 20), ("talking", 25), ("talks", 15), ("jump", 20), ("jumped", 12),
    ("jumping", 14), ("jumps", 9), ("play", 22), ("played", 14), ("playing", 18),
    ("plays", 10), ("2024", 5), ("x-ray", 3))}


def test_morfessor_words_are_letters_without_the_leading_space():
    words = morfessor_words([(" walked", 3), ("walked", 2), ("2024", 9), ("x-ray", 1)])
    assert words == [("walked", 5)]


def test_morfessor_takes_words_whose_letters_carry_combining_marks():
    """Text in NFD (e + combining acute, as some editors save it) is letters too."""
    words = morfessor_words([("re\u0301do", 2), ("\u0301x", 1), ("caf\u00e9", 1)])
    assert words == [("re\u0301do", 2), ("caf\u00e9", 1)]


def test_morfessor_on_nfd_text_cuts_its_words_and_never_before_a_combining_mark():
    import unicodedata

    text = (DATA / "udhr" / "fra.txt").read_text(encoding="utf-8")
    nfd = unicodedata.normalize("NFD", text)
    config = TrainConfig(merges=50, morfessor=True, morfessor_keep_share=0)
    segmented = {}
    for name, corpus in (("nfc", text), ("nfd", nfd)):
        segmentation = train(Corpus.from_texts([corpus]), config).segmentation
        segmented[name] = segmentation
        assert all(unicodedata.category(m[0])[0] != "M" for ms in segmentation.values()
                   for m in ms), name
    accented = [w for w in segmented["nfd"] if w != unicodedata.normalize("NFC", w)]
    assert len(accented) > 100
    assert len(segmented["nfd"]) == len(segmented["nfc"])


def test_morfessor_is_deterministic_and_finds_suffixes():
    words = morfessor_words(MORF_WORDS.items())
    first = train_morfessor(words)
    assert first == train_morfessor(words)
    assert set(first) == {w for w, _ in words}
    assert sum(len(m) > 1 for m in first.values()) >= 6
    assert all("".join(m) == w for w, m in first.items())


def test_words_beyond_the_training_cap_are_segmented_by_the_trained_model(monkeypatch):
    """Morfessor trains on the most frequent words only; the rarer ones are not left
    whole (a merge learned from an uncut word crosses every boundary it meets) but cut by
    the trained model, which leaves the trained words' segmentations unchanged."""
    from bpe_desktop.core import morfessor_source

    monkeypatch.setattr(morfessor_source, "MAX_WORDS", 12)
    words = morfessor_words(MORF_WORDS.items())
    segmentation = train_morfessor(words)
    assert set(segmentation) == {w for w, _ in words}  # all 16, not only the 12 trained
    assert segmentation["jumps"] == ("jump", "s")
    assert segmentation["played"] == ("play", "ed")
    assert all("".join(m) == w for w, m in segmentation.items())
    assert train_morfessor(words[:12]) == {w: segmentation[w] for w, _ in words[:12]}


def test_morfessor_reports_segmenting_and_cancels_there_too(monkeypatch):
    from bpe_desktop.core import CancelToken, morfessor_source

    monkeypatch.setattr(morfessor_source, "MAX_WORDS", 12)
    cancel = CancelToken()
    seen = []

    def on_progress(p):
        seen.append(p)
        if p.stage == "segmenting":
            cancel.cancel()

    with pytest.raises(TrainingCancelled):
        train_morfessor(morfessor_words(MORF_WORDS.items()), on_progress=on_progress,
                        cancel=cancel)
    assert seen[0].stage == "epoch 1" and seen[0].words_total == 12
    assert seen[-1].stage == "segmenting" and seen[-1].words_total == 16


def test_morfessor_progress_and_cancel_keep_nothing():
    from bpe_desktop.core import CancelToken

    cancel = CancelToken()
    seen = []

    def on_progress(p):
        seen.append(p)
        cancel.cancel()

    with pytest.raises(TrainingCancelled):
        train(Corpus.from_word_counts(MORF_WORDS), TrainConfig(morfessor=True),
              on_segmenter=on_progress, cancel=cancel)
    assert seen and seen[0].words_total == 16


def test_morfessor_constrained_training_and_saved_segmentation_reuse(tmp_path):
    config = TrainConfig(merges=30, morfessor=True, **CUT_EVERY_WORD)
    result = train(Corpus.from_word_counts(MORF_WORDS), config)
    assert result.timings["segmenter"] > 0
    assert result.model.constraints.method == "Morfessor boundaries"
    segmented = {w: m for w, m in result.segmentation.items() if len(m) > 1}
    assert segmented
    for word, morphs in segmented.items():
        cuts = {sum(map(len, morphs[:i])) for i in range(1, len(morphs))}
        assert not joins_across(result, word, cuts), (word, morphs)
    saved = tmp_path / "morfessor.tsv"
    write_segmentation(saved, sorted(result.segmentation.items()))
    again = train(Corpus.from_word_counts(MORF_WORDS),
                  TrainConfig(merges=30, gold_boundaries=(str(saved),)))
    assert again.model.merges == result.model.merges


def test_semi_supervised_morfessor_follows_its_annotations(tmp_path):
    ann = tmp_path / "ann.tsv"
    ann.write_text("walking\twalk ing\njumped\tjump ed\nplays\tplay s\n", encoding="utf-8")
    result = train(Corpus.from_word_counts(MORF_WORDS),
                   TrainConfig(merges=30, morfessor=True, morfessor_annotations=(str(ann),),
                               **CUT_EVERY_WORD))
    assert result.segmentation["walking"] == ("walk", "ing")
    assert "semi-supervised with ann.tsv" in result.model.constraints.method


@pytest.mark.parametrize("options,spelled", [
    ({"normalize": "nfc"}, "walking\twal king\njumpe\u0301d\tju mpe\u0301d\n"),
    ({"lowercase": True}, "Walking\tWal king\nJUMPÉD\tJU MPÉD\n"),
])
def test_morfessor_annotations_are_spelled_as_the_model_spells_the_corpus(
        tmp_path, options, spelled):
    """Annotations in NFD or capitalized guide Morfessor as the same annotations spelled
    as the corpus: normalized and lower-cased as the model's words. (Cuts Morfessor would
    not find itself, to tell the annotations followed.)"""
    words = [(w.replace("jumped", "jump\u00e9d"), c) for w, c in MORF_WORDS.items()]
    segmentations = []
    for name, text in (("plain.tsv", "walking\twal king\njump\u00e9d\tju mp\u00e9d\n"),
                       ("spelled.tsv", spelled)):
        ann = tmp_path / name
        ann.write_text(text, encoding="utf-8")
        config = TrainConfig(merges=30, morfessor=True, morfessor_annotations=(str(ann),),
                             **CUT_EVERY_WORD, **options)
        segmentations.append(train(Corpus.from_word_counts(dict(words)), config).segmentation)
    assert segmentations[0]["jump\u00e9d"] == ("ju", "mp\u00e9d")
    assert segmentations[1] == segmentations[0]


@pytest.mark.parametrize("keep", [
    {"morfessor_keep_frequent": 4, "morfessor_keep_share": 0},
    # walk and talk (30), walking and talking (25) make up 110 of the 299 running words
    # of letters: 36.8 %, the share of these four and no fewer
    {"morfessor_keep_frequent": 0, "morfessor_keep_share": 0.35},
    {"morfessor_keep_frequent": 0, "morfessor_keep_share": 110 / 299},
    {"morfessor_keep_frequent": 4, "morfessor_keep_share": 0.2},  # the count keeps more
    {"morfessor_keep_frequent": 2, "morfessor_keep_share": 0.35},  # the share keeps more
])
def test_the_most_frequent_words_are_left_whole(keep):
    cut_all = train(Corpus.from_word_counts(MORF_WORDS),
                    TrainConfig(merges=30, morfessor=True, **CUT_EVERY_WORD))
    kept = train(Corpus.from_word_counts(MORF_WORDS),
                 TrainConfig(merges=30, morfessor=True, **keep))
    frequent = {"walk", "talk", "walking", "talking"}
    assert any(len(cut_all.segmentation[w]) > 1 for w in frequent)
    for word, morphs in kept.segmentation.items():
        assert morphs == ((word,) if word in frequent else cut_all.segmentation[word])


def test_the_words_left_whole_by_share_of_running_words():
    words = morfessor_words(MORF_WORDS.items())  # 299 running words of letters
    assert kept_whole(words, 0, 0.0) == 0
    assert kept_whole(words, 0, 60 / 299) == 2  # walk, talk: 60 exactly
    assert kept_whole(words, 0, 61 / 299) == 3
    assert kept_whole(words, 0, 1.0) == len(words)
    assert kept_whole(words, 40, 0.0) == len(words)  # never more than there are
    assert kept_whole([], 0, 0.65) == 0


def test_by_default_the_words_of_65_percent_of_the_running_words_are_left_whole():
    # 0.65 × 299 = 194.35: walk, talk, walking, talking, play, walked, talked, jump
    # make up 192, playing (18) brings the sum to 210 — nine words.
    words = morfessor_words(MORF_WORDS.items())
    default = TrainConfig(morfessor=True)
    assert kept_whole(words, default.morfessor_keep_frequent,
                      default.morfessor_keep_share) == 9


def test_a_share_outside_0_to_1_is_refused():
    with pytest.raises(ConfigError, match="morfessor_keep_share must be a share from 0 to 1"):
        TrainConfig(morfessor=True, morfessor_keep_share=1.5)
