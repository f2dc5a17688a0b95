"""What a training reports while it runs, and the typed result it hands back: one
``Progress`` class (the engine's own report) for every run and every consumer, and a
``TrainOutput`` read as attributes."""

from __future__ import annotations

import hashlib
import os

import pytest

from bpe_desktop.core import (
    ConfigError,
    Corpus,
    Progress,
    SpecialToken,
    TrainConfig,
    _native,
    train,
)
from bpe_desktop.core.counting import engine_count
from bpe_desktop.core.extend import extend
from bpe_desktop.core.options import OPTION_VALUES
from tests.shared_data import corpus_path

TEXT = "low lower lowest newer wider new newest low low " * 40


def _reports(corpus: Corpus, config: TrainConfig) -> tuple[list, object]:
    reports: list = []
    result = train(corpus, config, on_progress=reports.append)
    return reports, result


def test_a_file_training_reports_progress_of_one_class_stage_by_stage():
    path = corpus_path("tinyshakespeare.txt")
    reports, result = _reports(Corpus.from_files([path]), TrainConfig(vocab_size=400))
    assert reports and all(type(r) is Progress for r in reports)
    order = [OPTION_VALUES["stage"].index(r.stage) for r in reports]
    assert order == sorted(order)  # stages in order, none revisited
    assert reports[0].stage == "reading" and reports[-1].stage == "done"
    size = os.path.getsize(path)
    reading = [r for r in reports if r.stage in ("reading", "counting")]
    assert all(r.bytes_done <= r.bytes_total in (0, size) for r in reading)
    assert [r.bytes_done for r in reading] == sorted(r.bytes_done for r in reading)
    assert [r.words for r in reading] == sorted(r.words for r in reading)
    assert reports[-1].words == result.distinct_words
    merging = [r for r in reports if r.stage in ("merging", "done")]
    assert [r.merges_done for r in merging] == sorted(r.merges_done for r in merging)
    assert [r.elapsed for r in reports] == sorted(r.elapsed for r in reports)
    last = reports[-1]
    assert last.merges_done == len(result.model.merges) and last.fraction == 1.0
    # every merge's count arrives once, in order, across the reports
    assert [c for r in merging for c in r.new_counts] == \
        [m.count for m in result.model.merges]
    assert last.pair == (result.model.merges[-1].left, result.model.merges[-1].right)
    assert last.count == result.model.merges[-1].count
    for r in reports:
        assert type(r.stage) is str and type(r.elapsed) is float
        assert all(type(getattr(r, f)) is int for f in
                   ("bytes_done", "bytes_total", "words", "merges_done"))
        assert type(r.new_counts) is tuple and r.language_tokens == () and r.languages == ()
        assert r.merges_target is None or type(r.merges_target) is int
        assert r.pair is None or (type(r.pair) is tuple and len(r.pair) == 2)
        assert r.tokens_per_line() == {}


def test_a_report_is_frozen_compares_by_value_and_states_its_fraction():
    p = Progress("merging", merges_done=50, merges_target=200, pair=("l", "o"), count=7,
                 elapsed=3.0, new_counts=[9, 8, 7])
    assert (p.stage, p.bytes_done, p.words, p.merges_done) == ("merging", 0, 0, 50)
    assert p.new_counts == (9, 8, 7) and p.pair == ("l", "o")
    assert p.fraction == 0.25  # 50 of 200 merges
    assert p == Progress("merging", 0, 0, 0, 50, 200, ("l", "o"), 7, 3.0, (9, 8, 7))
    assert p != Progress("merging", merges_done=51, merges_target=200)
    with pytest.raises(AttributeError):
        p.merges_done = 3  # type: ignore[misc]
    # reading: bytes of the total; merging without a target, or nothing known: no fraction
    assert Progress("reading", bytes_done=30, bytes_total=120).fraction == 0.25
    assert Progress("reading", bytes_done=130, bytes_total=120).fraction == 1.0
    assert Progress("merging", merges_done=5).fraction is None
    assert Progress("counting").fraction is None
    assert Progress("done").fraction == 1.0
    assert "merges_done=50" in repr(p)


def test_a_report_names_a_known_stage():
    with pytest.raises(ConfigError, match="stage must be one of reading, counting, merging, "
                                          "done"):
        Progress("thinking")
    with pytest.raises(ConfigError, match="as long as each other"):
        Progress("merging", languages=["en"], language_lines=[])


def test_tokens_per_line_divides_each_languages_tokens_by_its_lines():
    p = Progress("merging", language_tokens=(30, 7), languages=("en", "fi"),
                 language_lines=(10, 0))
    assert p.tokens_per_line() == {"en": 3.0, "fi": 7.0}  # no lines: divided by one


def test_parity_training_reports_name_each_language_with_its_lines(tmp_path):
    from bpe_desktop.core.multilingual import train_multilingual

    paths = {}
    for code, text in (("en", "the walking talker walked " * 30),
                       ("ru", "жаба жужжит жаба жаба " * 30)):
        paths[code] = tmp_path / f"{code}.txt"
        paths[code].write_text(text, encoding="utf-8")
    dev = {"en": "walked the talk\nthe walker\nwalk\n", "ru": "жаба\nжук\nжужжит\n"}
    for code, text in dev.items():
        (tmp_path / f"dev.{code}").write_text(text, encoding="utf-8")
    config = TrainConfig(lang=tuple(f"{c}={p}" for c, p in paths.items()),
                         parity_dev=tuple(f"{c}={tmp_path / f'dev.{c}'}" for c in dev),
                         merges=15)
    reports = []
    result = train_multilingual(config, on_progress=reports.append)
    parity = [r for r in reports if r.language_tokens]
    assert parity and all(type(r) is Progress for r in reports)
    assert all(r.languages == ("en", "ru") and r.language_lines == (3, 3) for r in parity)
    last = parity[-1]
    assert last.tokens_per_line() == {"en": last.language_tokens[0] / 3,
                                      "ru": last.language_tokens[1] / 3}
    assert last.language_tokens == result.languages.dev_tokens_after
    assert len(result.languages.chosen) == len(result.model.merges)


def test_counting_and_extending_report_the_same_class():
    counted = []
    engine_count(Corpus.from_texts([TEXT]), TrainConfig(),
                 on_progress=counted.append)
    assert counted and counted[-1].bytes_total == len(TEXT)
    source = train(Corpus.from_texts([TEXT]), TrainConfig(merges=5)).model
    extended = []
    extend(source, Corpus.from_texts(["brand brandnew brandnewer " * 20]), merges=4,
           on_progress=extended.append)
    assert extended and all(type(r) is Progress for r in extended)
    assert extended[-1].stage == "done" and extended[-1].merges_done == 4


def test_the_engine_hands_its_training_result_over_typed(tmp_path):
    path = tmp_path / "corpus.txt"
    path.write_text(TEXT + "naïve ☃\n", encoding="utf-8")
    config = TrainConfig(merges=12, special_tokens=(SpecialToken("<unk>", 0, "unk"),),
                         character_coverage=0.99).with_byte_tokens()
    output = _native.engine().train(Corpus.from_files([path]), config)
    assert type(output).__name__ == "TrainOutput" and output.parity is None
    assert output.files == [(str(path), path.stat().st_size,
                             hashlib.sha256(path.read_bytes()).hexdigest())]
    assert output.total_words == len((TEXT + "naïve ☃").split())
    assert output.characters == len((TEXT + "naïve ☃").replace(" ", ""))
    assert 0 < output.unknown_characters < output.characters  # coverage left some out
    assert output.count_seconds >= 0 and output.merge_seconds >= 0
    trained = output.trained
    tokens = trained.tokens()
    assert len(tokens) == trained.alphabet_len + len(set(tokens[trained.alphabet_len:]))
    merges = trained.merges()
    assert len(merges) == 12
    assert [tokens[left] + tokens[right] for left, right, _ in merges][:1] == \
        [tokens[trained.alphabet_len]]
    assert len(trained.words) == len(set((TEXT + "naïve ☃").split()))
    assert trained.words.top(2) == [("low", 120), ("lower", 40)]
