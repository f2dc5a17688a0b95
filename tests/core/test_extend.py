"""Extending a model: ids kept, new characters first, existing tokens never made again,
stop rules, bad settings and cancellation."""

from __future__ import annotations

import pytest

from bpe_desktop.core import Corpus, SpecialToken, TrainConfig, train
from bpe_desktop.core.errors import ConfigError, CorpusError, TrainingCancelled
from bpe_desktop.core.extend import extend
from bpe_desktop.core.model import BPEModel, Merge
from bpe_desktop.core.training import CancelToken

UNK = SpecialToken("<unk>", 0, "unk")
CONFIG = TrainConfig(pretokenizer="whitespace", boundary="none", min_frequency=1,
                     special_tokens=(UNK,))


def _source() -> BPEModel:
    return train(Corpus.from_texts(["ab ab ab abc bc"]), CONFIG.replace(merges=2)).model


def test_new_characters_come_first_with_their_counts_at_the_next_free_ids():
    source = _source()
    result = extend(source, Corpus.from_texts(["жж abж жa"]), merges=1)
    assert result.new_characters == (("ж", 4),)
    model = result.model
    assert model.pieces[:source.vocab_size] == source.pieces
    assert model.piece_to_id("ж") == source.vocab_size
    assert result.new_ids == tuple(range(source.vocab_size, model.vocab_size))
    assert {i for i, p in enumerate(model.pieces) if p not in source.piece_ids} == set(
        result.new_ids)


def test_kept_unknown_characters_stay_unknown_and_are_never_merged():
    source = _source()
    result = extend(source, Corpus.from_texts(["жж жж жж ab ab"]), merges=3, unknown="keep")
    assert result.new_characters == () and result.unknown_characters == (("ж", 6),)
    assert all("ж" not in m.result for m in result.model.merges)
    assert result.model.tokenizer().encode("жж")[0] == UNK.id


def test_a_pair_whose_result_already_is_a_token_is_never_merged():
    # b+c ranks before a+b, so 'abc' encodes as a|bc although 'abc' exists (ab+c)
    source = BPEModel(CONFIG.replace(merges=3), ("a", "b", "c", "x", "y"),
                      (Merge("b", "c"), Merge("a", "b"), Merge("ab", "c")))
    assert source.tokenizer().encode_as_pieces("abc") == ["a", "bc"]
    result = extend(source, Corpus.from_texts(["abc abc abc xy"]), merges=2,
                    min_frequency=1)
    assert result.model.merges[3:] == (Merge("x", "y", 1),)
    assert result.model.tokenizer().encode_as_pieces("abc") == ["a", "bc"]


def test_vocabulary_size_is_reached_exactly():
    source = _source()
    result = extend(source, Corpus.from_texts(["жabж жabж cab cab"]), vocab_size=source.vocab_size + 3)
    assert result.model.vocab_size == source.vocab_size + 3


def test_training_words_encode_to_their_training_segmentation():
    source = _source()
    text = "abcab bcab cabcab ababab bcbc"
    result = extend(source, Corpus.from_texts([text]), merges=6)
    tok = result.model.tokenizer()
    words = {w for w in text.split()}
    # re-encoding each word with all merges equals replaying the new merges on the
    # source's segmentation, rank by rank
    for word in words:
        pieces = source.tokenizer().encode_as_pieces(word)
        for m in result.model.merges[len(source.merges):]:
            out, i = [], 0
            while i < len(pieces):
                if i + 1 < len(pieces) and (pieces[i], pieces[i + 1]) == (m.left, m.right):
                    out.append(m.result)
                    i += 2
                else:
                    out.append(pieces[i])
                    i += 1
            pieces = out
        assert tok.encode_as_pieces(word) == pieces, word


@pytest.mark.parametrize("options, message", [
    ({}, "either a number of new merges or a vocabulary size"),
    ({"merges": 2, "vocab_size": 40}, "either a number of new merges"),
    ({"merges": 0}, "at least 1"),
    ({"vocab_size": 3}, "larger than the source's"),
    ({"merges": 1, "unknown": "letters"}, "choose add, keep, bytes"),
    ({"merges": 1, "unknown": "bytes"}, "the source has no byte fallback"),
    ({"merges": 1, "min_frequency": 0}, "minimum pair count"),
])
def test_bad_settings_are_refused(options, message):
    with pytest.raises(ConfigError, match=message):
        extend(_source(), Corpus.from_texts(["ab"]), **options)


def test_a_corpus_without_words_is_refused():
    with pytest.raises(CorpusError):
        extend(_source(), Corpus.from_texts(["   \n  "]), merges=1)


def test_cancelling_raises_and_returns_nothing():
    cancel = CancelToken()
    cancel.cancel()
    with pytest.raises(TrainingCancelled):
        extend(_source(), Corpus.from_texts(["ab cd ef"]), merges=2, cancel=cancel)
