"""The trainer counts each token in the final segmentation of every training word; the
model file keeps the counts; models that no longer match them carry none."""

from __future__ import annotations

from collections import Counter

from bpe_desktop.core import Corpus, TrainConfig, model_file, train

SEED_WORDS = {"low": 5, "lower": 2, "newest": 6, "widest": 3}


def test_seed_vocabulary_by_hand():
    # Seed 000's toy words after ten merges: low</w> 5, low e r </w> 2, newest</w> 6,
    # wi d est</w> 3.
    result = train(Corpus.from_word_counts(SEED_WORDS), TrainConfig(merges=10))
    model = result.model
    expected = Counter()
    for seg in result.word_segmentations():
        for piece in seg.pieces:
            expected[piece] += seg.count
    assert {model.pieces[i]: c for i, c in enumerate(model.final_counts) if c} == dict(expected)
    assert dict(expected) == {"low</w>": 5, "low": 2, "e": 2, "r": 2, "</w>": 2,
                              "newest</w>": 6, "wi": 3, "d": 3, "est</w>": 3}


def test_counts_cover_words_the_model_does_not_keep(tmp_path):
    words = {f"w{i}x": 1 for i in range(50)} | {"wax": 9}
    result = train(Corpus.from_word_counts(words), TrainConfig(merges=3, keep_words=2))
    model = result.model
    assert len(model.words) == 2  # the file keeps two words, the counts cover all 51
    total = sum(model.final_counts)
    assert total == sum(len(s.pieces) * s.count for s in result.word_segmentations())
    path = tmp_path / "m.json"
    model_file.save_model(model, path)
    assert model_file.load_model(path).final_counts == model.final_counts


def test_a_truncated_model_has_no_trainer_counts():
    model = train(Corpus.from_word_counts(SEED_WORDS), TrainConfig(merges=10)).model
    assert model.truncated(4).final_counts is None  # they counted the longer model's tokens
