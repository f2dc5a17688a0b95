"""Recount: replaying a model's merges over a corpus gives every merge its count.

The count of merge r is the number of adjacent (left, right) positions, overlaps
included and weighted by word frequency, in the words as merges 0..r-1 leave them. On
the training corpus that is exactly what the trainer recorded; on hand-made merge lists
(redundant merges included) it equals a naive recomputation from scratch.
"""

from __future__ import annotations

import importlib
import random
import time

import pytest

from bpe_desktop.core import (
    BPEModel,
    CancelToken,
    Corpus,
    Merge,
    TrainConfig,
    TrainingCancelled,
    train,
)
from bpe_desktop.core.formats import export_model, import_model, recount
from tests.reference_bpe import encode_word, initial_symbols
from tests.shared_data import corpus_path

CONFIGS = {
    "seeds-default": TrainConfig(vocab_size=2500),
    "subword-nmt": TrainConfig.preset("subword-nmt", vocab_size=2500),
    "gpt2": TrainConfig.preset("gpt2", vocab_size=2500),
    "sentencepiece": TrainConfig.preset("sentencepiece", vocab_size=2500),
    "letters-coverage-nfkc": TrainConfig(pretokenizer="letters", boundary="eow-suffix",
                                         character_coverage=0.995, normalize="nfkc",
                                         lowercase=True, vocab_size=2500),
}


def without_counts(model: BPEModel) -> BPEModel:
    return BPEModel(model.config, model.alphabet,
                    tuple(Merge(m.left, m.right, None) for m in model.merges))


@pytest.mark.parametrize("name", CONFIGS)
def test_recount_on_the_training_corpus_gives_the_trained_counts(name):
    corpus = Corpus.from_files([corpus_path("botchan")])
    trained = train(corpus, CONFIGS[name]).model
    counted = recount(without_counts(trained), corpus)
    assert [m.count for m in counted.merges] == [m.count for m in trained.merges]
    assert counted.merges == trained.merges
    assert counted.corpus == trained.corpus and counted.words == trained.words
    assert counted.config == trained.config and counted.alphabet == trained.alphabet


def test_recount_of_an_imported_hf_tokenizer_matches_our_training(tmp_path):
    """HF's WhitespaceSplit merges equal ours (peer parity), so its recount equals our counts."""
    tokenizers = importlib.import_module("tokenizers")
    from tests.interop.conftest import normalized_text

    text = tmp_path / "botchan.txt"
    text.write_text(normalized_text(corpus_path("botchan")), encoding="utf-8")
    tok = tokenizers.Tokenizer(tokenizers.models.BPE())
    tok.pre_tokenizer = tokenizers.pre_tokenizers.WhitespaceSplit()
    tok.train([str(text)], tokenizers.trainers.BpeTrainer(
        vocab_size=3000, min_frequency=0, show_progress=False, special_tokens=[]))
    tok.save(str(tmp_path / "hf.json"))
    imported = import_model("hf", tmp_path / "hf.json")
    assert all(m.count is None for m in imported.merges)
    corpus = Corpus.from_files([text])
    ours = train(corpus, TrainConfig(pretokenizer="whitespace", boundary="none",
                                     ties="codepoint", min_frequency=1, vocab_size=3000,
                                     special_tokens=())).model
    counted = recount(imported, corpus)
    assert [(m.left, m.right, m.count) for m in counted.merges] == [
        (m.left, m.right, m.count) for m in ours.merges]
    # The counts survive a save (the model file stores them) and show in the vocab list.
    export_model(counted, "vocab", tmp_path / "vocab.tsv")
    rows = (tmp_path / "vocab.tsv").read_text(encoding="utf-8").splitlines()
    assert rows[-1].split("\t")[2] == str(counted.merges[-1].count)


def _naive_counts(model: BPEModel, words: list[tuple[str, int]]) -> list[int]:
    """From scratch for every merge: encode each word with the merges before it, count."""
    cfg = model.config
    alphabet = set(model.alphabet)
    counts = []
    for r, m in enumerate(model.merges):
        ranks = {(x.left, x.right): i for i, x in enumerate(model.merges[:r])}
        total = 0
        for word, freq in words:
            symbols = [s if s in alphabet else "<unk>"
                       for s in initial_symbols(word, cfg.boundary)]
            seq = encode_word(symbols, ranks)
            total += freq * sum(1 for a, b in zip(seq, seq[1:]) if (a, b) == (m.left, m.right))
        counts.append(total)
    return counts


def _random_merges(rng: random.Random, alphabet: tuple[str, ...]) -> tuple[Merge, ...]:
    """14 random merges over the tokens defined so far, at least one of them redundant."""
    while True:
        merges: list[Merge] = []
        tokens = list(alphabet)
        while len(merges) < 14:
            left, right = rng.choice(tokens), rng.choice(tokens)
            if any((m.left, m.right) == (left, right) for m in merges) or len(left + right) > 6:
                continue
            merges.append(Merge(left, right))
            if left + right not in tokens:
                tokens.append(left + right)
        if len(tokens) - len(alphabet) < len(merges):
            return tuple(merges)


@pytest.mark.parametrize("seed", range(6))
def test_recount_equals_naive_recomputation_with_redundant_merges(seed):
    rng = random.Random(seed)
    words = [("".join(rng.choice("abc") for _ in range(rng.randint(1, 9))), rng.randint(1, 5))
             for _ in range(40)]
    words = list(dict(words).items())
    boundary = ("none", "eow-symbol", "bow-prefix")[seed % 3]
    alphabet = {"none": ("a", "b", "c"), "eow-symbol": ("</w>", "a", "b", "c"),
                "bow-prefix": ("a", "b", "c", "\u2581")}[boundary]
    config = TrainConfig(boundary=boundary, merges=14, special_tokens=())
    model = BPEModel(config, alphabet, _random_merges(rng, alphabet))
    counted = recount(model, Corpus.from_word_counts(words))
    expected = _naive_counts(model, words)
    assert [m.count for m in counted.merges] == expected
    assert any(expected)


def test_redundant_merge_re_encodes_the_words_it_touches():
    """a+bc makes abc again (ab+c made it first); abc+a (an earlier rule) then applies."""
    merges = (Merge("b", "c"), Merge("a", "b"), Merge("ab", "c"), Merge("abc", "a"),
              Merge("a", "bc"), Merge("abca", "abca"))
    model = BPEModel(TrainConfig(boundary="none", special_tokens=()), ("a", "b", "c"), merges)
    words = [("abcabc", 1), ("abcab", 2), ("abcaabca", 5)]
    counted = recount(model, Corpus.from_word_counts(words))
    # abcaabca: a bc a a bc a -> (a, bc) twice -> abc a abc a -> re-encoded: abca abca.
    assert [m.count for m in counted.merges] == [14, 2, 0, 0, 14, 5]
    assert [m.count for m in counted.merges] == _naive_counts(model, words)


def test_progress_reports_and_cancel():
    corpus = Corpus.from_files([corpus_path("botchan")])
    model = without_counts(train(corpus, TrainConfig.preset("gpt2", vocab_size=3000)).model)
    reports = []
    counted = recount(model, corpus, progress=reports.append)
    stages = [r.stage for r in reports]
    assert stages[-1] == "done" and stages.count("done") == 1
    assert reports[-1].merges_done == reports[-1].merges_target == len(model.merges)
    merging = [r for r in reports if r.stage == "merging"]
    assert all(r.merges_target == len(model.merges) for r in merging)
    assert [r.merges_done for r in merging] == sorted(r.merges_done for r in merging)
    shown = [c for r in merging for c in r.new_counts]
    assert shown == [m.count for m in counted.merges][:len(shown)]
    cancel = CancelToken()
    cancel.cancel()
    with pytest.raises(TrainingCancelled):
        recount(model, corpus, cancel=cancel)


def test_recount_speed_on_a_megabyte_corpus():
    """ud_english (1.2 MB, 35k distinct words), 7,700 merges: seconds, not minutes."""
    corpus = Corpus.from_files([corpus_path("ud_english")])
    model = without_counts(train(corpus, TrainConfig.preset("subword-nmt",
                                                            vocab_size=8000)).model)
    started = time.perf_counter()
    counted = recount(model, corpus)
    seconds = time.perf_counter() - started
    assert all(m.count is not None and m.count >= 2 for m in counted.merges)
    assert seconds < 30, f"recount took {seconds:.1f} s"
