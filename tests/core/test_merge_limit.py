"""TrainConfig.merge_limit (the most merges a run can learn, known before it reads its
corpus) and the completion a progress snapshot reports."""

from __future__ import annotations

import pytest

from bpe_desktop.core import Corpus, Progress, SpecialToken, TrainConfig, train
from bpe_desktop.paths import resource_path


@pytest.mark.parametrize("options, limit", [
    ({}, None),                                           # no limit: merge while pairs repeat
    ({"merges": 10}, 10),
    ({"vocab_size": 100}, 98),                # the default <unk>, at least one character
    ({"vocab_size": 100, "merges": 10}, 10),
    ({"vocab_size": 100, "merges": 500}, 98),
    ({"vocab_size": 100, "special_tokens": (SpecialToken("<unk>", 0, "unk"),
                                            SpecialToken("<s>", 1, "bos"))}, 97),
    ({"vocab_size": 1, "special_tokens": (SpecialToken("<unk>", 0, "unk"),)}, 0),
])
def test_merge_limit_by_hand(options, limit):
    assert TrainConfig(**options).merge_limit == limit


@pytest.mark.parametrize("vocab_size, limit", [(32_000, 31_744), (257, 1), (200, 0)])
def test_byte_level_counts_all_256_bytes(vocab_size, limit):
    config = TrainConfig.preset("gpt2", vocab_size=vocab_size)
    assert config.special_tokens == () and config.merge_limit == limit


@pytest.mark.parametrize("preset", ["sennrich", "subword-nmt", "gpt2", "sentencepiece"])
@pytest.mark.parametrize("options", [{"vocab_size": 3000}, {"vocab_size": 300},
                                     {"merges": 400}, {"vocab_size": 2000, "merges": 100}])
def test_no_run_learns_more_merges_than_the_limit(preset, options):
    """The engine's own target and the merges it learns stay within the limit (equal to it
    at byte level, where the alphabet is known before reading)."""
    config = TrainConfig.preset(preset, **options)
    corpus = Corpus.from_files([str(resource_path("examples", "botchan.txt"))])
    targets = []
    result = train(corpus, config, on_progress=lambda p: targets.append(p.merges_target))
    learned = len(result.model.merges)
    assert all(t <= config.merge_limit for t in targets if t is not None)
    assert 0 < learned <= config.merge_limit
    # reached when the alphabet is known (bytes) or the number of merges is the limit
    if config.byte_level or config.merge_limit == options.get("merges"):
        assert learned == config.merge_limit


def _progress(stage: str, **fields) -> Progress:
    base = {"bytes_done": 0, "bytes_total": 0, "words": 0, "merges_done": 0,
            "merges_target": None, "pair": None, "count": None, "elapsed": 0.0}
    return Progress(stage=stage, **{**base, **fields})


def test_fraction_of_each_stage():
    assert _progress("reading", bytes_done=25, bytes_total=100).fraction == 0.25
    assert _progress("reading").fraction is None  # size not known yet
    assert _progress("merging", merges_done=30, merges_target=120).fraction == 0.25
    assert _progress("merging", merges_done=30).fraction is None
    # the last snapshot: complete, whatever its byte counts (a busy bar would animate)
    assert _progress("done", merges_done=7, merges_target=7).fraction == 1.0
    assert _progress("done").fraction == 1.0
