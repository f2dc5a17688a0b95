"""The Vocabulary tab's final frequencies: the trainer's counts when the model has them,
else counted over the kept training words; none for a model with neither. Seed 000's toy
words, worked out by hand."""

from __future__ import annotations

from bpe_desktop.core import BPEModel, Corpus, Merge, TrainConfig, train
from bpe_desktop.views.vocab_loading import load_table, load_words
from bpe_desktop.views.vocab_plot_data import compute_plot
from bpe_desktop.views.vocab_table import TokenUsage, build_columns, make_filter_spec

SEED_WORDS = (("low", 5), ("lower", 2), ("newest", 6), ("widest", 3))
NO_SORT = (-1, False)


def _final(model: BPEModel) -> dict[str, int] | None:
    final = load_words(load_table(model, make_filter_spec(), NO_SORT)).final
    return None if final is None else {model.pieces[i]: int(n) for i, n in enumerate(final) if n}


def test_a_trained_model_shows_the_trainers_counts():
    model = train(Corpus.from_word_counts(SEED_WORDS), TrainConfig(merges=10)).model
    # the words end as low</w> (5), low e r </w> (2), newest</w> (6), wi d est</w> (3)
    assert _final(model) == {"low</w>": 5, "low": 2, "e": 2, "r": 2, "</w>": 2,
                             "newest</w>": 6, "wi": 3, "d": 3, "est</w>": 3}


def test_a_truncated_model_counts_its_kept_words_with_its_own_merges():
    model = train(Corpus.from_word_counts(SEED_WORDS), TrainConfig(merges=10)).model
    cut = model.truncated(4)  # e s, es t, est </w>, l o
    assert cut.final_counts is None
    # n e w est</w> (6), lo w </w> (5), w i d est</w> (3), lo w e r </w> (2)
    assert _final(cut) == {"n": 6, "e": 8, "w": 16, "est</w>": 9, "lo": 7, "</w>": 7,
                           "i": 3, "d": 3, "r": 2}


def test_a_model_without_counts_or_words_has_no_final_frequencies():
    model = BPEModel(TrainConfig(), ("a", "</w>"), (Merge("a", "</w>"),))
    assert _final(model) is None


def test_the_zipf_plot_draws_the_final_column():
    # keep_words=1: the model keeps only "newest", but the trainer's final counts cover
    # all four words: newest</w> 6, low</w> 5, wi 3, d 3, est</w> 3, low 2, e 2, r 2, </w> 2
    model = train(Corpus.from_word_counts(SEED_WORDS),
                  TrainConfig(merges=10, keep_words=1)).model
    loaded = load_words(load_table(model, make_filter_spec(), NO_SORT))
    ranks, frequencies, note = loaded.plots["zipf"]
    assert frequencies.tolist() == [6, 5, 3, 3, 3, 2, 2, 2, 2]
    assert ranks.tolist() == list(range(1, 10)) and note == ""
    assert sorted(loaded.final[loaded.final > 0].tolist(), reverse=True) == \
        frequencies.tolist()
    # computed on its own (when the plot is first shown), the same
    _, again, _ = compute_plot("zipf", model, build_columns(model), lambda: TokenUsage(model))
    assert again.tolist() == frequencies.tolist()
