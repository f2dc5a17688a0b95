"""Plain BPE against parity-aware BPE: each language's token cost on a parallel set
(hand-computed), the plain counterpart's options, and training it from the corpora (text
or word-count tables) a parity-aware model names."""

from __future__ import annotations

import dataclasses

import pytest

from bpe_desktop.core import TrainConfig, load_model, save_model
from bpe_desktop.core.comparison.parity_pair import (
    compare_on_parallel,
    gini,
    language_costs,
    languages_are_tables,
    model_dev_set,
    plain_config,
    train_plain_counterpart,
)
from bpe_desktop.core.counting import count_words
from bpe_desktop.core.errors import ConfigError, CorpusError
from bpe_desktop.core.multilingual import train_multilingual
from bpe_desktop.core.parity_dev import DevSet
from tests.cli.support import handmade_model
from tests.shared_data import DATA_DIR, corpus_path, latin1_copies

# The handmade model merges l+o, lo+w, e+r: "low" is low </w> (2 tokens), "lower" is
# low er </w> (3); "ole" and "r" contain no merged pair: o l e </w> (4), r </w> (2).
DEV = DevSet({"en": ("low", "lower"), "de": ("ole ole", "r")},
             {"en": "en.txt", "de": "de.txt"})
UD = {"en": corpus_path("ud_english.txt"), "de": corpus_path("ud_german.txt")}
UDHR = {"en": DATA_DIR / "udhr" / "eng.txt", "de": DATA_DIR / "udhr" / "deu.txt"}


def test_costs_per_line_max_min_and_gini_by_hand():
    merged, bare = handmade_model(), handmade_model().truncated(0)
    costs = language_costs([("merged", merged), ("bare", bare)], DEV)
    assert costs.codes == ("en", "de") and costs.units == 2 and costs.unit == "line"
    # merged: en 2 + 3 = 5, de 4 + 4 + 2 = 10; bare (l o w </w> ...): en 4 + 6, de 10.
    assert costs.tokens == ((5, 10), (10, 10))
    assert costs.costs(0) == [2.5, 5.0] and costs.costs(1) == [5.0, 5.0]
    assert costs.max_min(0) == 2.0 and costs.max_min(1) == 1.0
    # Gini of (2.5, 5): |2.5 - 5| twice over 2 * 2^2 * 3.75 = 5 / 30.
    assert costs.gini(0) == pytest.approx(1 / 6) and costs.gini(1) == 0.0
    assert costs.total(0) == 15 and costs.total(1) == 20
    assert costs.rows()[-3:] == [("max/min", "2.000", "1.000"),
                                 ("Gini", "0.1667", "0.0000"),
                                 ("total tokens", "15", "20")]


def test_whole_documents_cost_their_tokens():
    documents = DevSet(DEV.texts, DEV.files, documents=True)
    costs = language_costs([("merged", handmade_model())], documents)
    assert costs.unit == "document" and costs.costs(0) == [5.0, 10.0]
    assert costs.to_json()["tokenizers"][0]["max_min"] == 2.0


def test_gini_of_equal_and_unequal_values():
    assert gini([3, 3, 3]) == 0.0
    assert gini([0, 0, 4]) == pytest.approx(2 / 3)  # 16 / (2 * 9 * 4/3)


def test_the_comparison_runs_on_every_line_of_the_parallel_set():
    result = compare_on_parallel([("merged", handmade_model()),
                                  ("bare", handmade_model().truncated(0))], DEV)
    assert result.alignment.line_tokens[0] == [2, 3, 8, 2]
    assert result.to_json()["languages"]["tokenizers"][1]["tokens"] == {"en": 10, "de": 10}


def test_a_model_without_a_development_set_has_no_plain_counterpart():
    with pytest.raises(ConfigError) as caught:
        plain_config(handmade_model())
    assert "not trained parity-aware" in str(caught.value)


@pytest.fixture(scope="module")
def parity_model():
    config = TrainConfig(vocab_size=600, temperature=2.0,
                         lang=tuple(f"{c}={p}" for c, p in UD.items()),
                         parity_dev=tuple(f"{c}={p}" for c, p in UDHR.items()),
                         parity_dev_documents=True, parity_window=10)
    return train_multilingual(config).model


def test_the_plain_counterpart_trains_the_same_languages_and_size(parity_model):
    config = plain_config(parity_model)
    assert config.parity_dev == () and config.parity_window == 0
    assert not config.parity_dev_documents
    assert config.lang == parity_model.config.lang and config.temperature == 2.0
    assert config.vocab_size == parity_model.vocab_size and config.merges is None
    plain = train_plain_counterpart(parity_model)
    assert plain.vocab_size == parity_model.vocab_size
    assert plain.merges == train_multilingual(config).model.merges
    assert model_dev_set(parity_model).documents
    assert model_dev_set(parity_model).codes == ("en", "de")


def test_the_development_folder_is_read_again_as_the_training_read_it(parity_model):
    """Named by the training's codes, in the training's order (the folder lists deu
    before eng), without the folder's other languages."""
    model = dataclasses.replace(parity_model, config=parity_model.config.replace(
        parity_dev=(str(DATA_DIR / "udhr"),)))
    assert model_dev_set(model).codes == ("en", "de")


def test_the_plain_counterpart_of_a_model_trained_from_tables(parity_model, tmp_path):
    lang = []
    for code, path in UD.items():
        count_words([path], language=code).save(tmp_path / f"{code}.tsv")
        lang.append(f"{code}={tmp_path / f'{code}.tsv'}")
    config = parity_model.config.replace(lang=tuple(lang), merges=None, vocab_size=600)
    from_tables = train_multilingual(config, word_counts=True).model
    assert languages_are_tables(from_tables.config)
    assert not languages_are_tables(parity_model.config)
    assert train_plain_counterpart(from_tables).merges == \
        train_plain_counterpart(parity_model).merges


def test_the_plain_counterpart_reads_invalid_utf8_as_the_parity_aware_run_did(tmp_path):
    lang = tuple(f"{c}={p}" for c, p in latin1_copies(UD, tmp_path, line=5).items())
    config = TrainConfig(vocab_size=300, lang=lang, parity_dev_documents=True,
                         parity_dev=tuple(f"{c}={p}" for c, p in UDHR.items()))
    parity = train_multilingual(config, errors="replace").model
    save_model(parity, tmp_path / "parity.json")
    opened = load_model(tmp_path / "parity.json")
    plain = train_plain_counterpart(opened)  # as its file records: corpus.encoding_errors
    assert plain.merges == train_multilingual(plain_config(parity), errors="replace"
                                              ).model.merges
    assert "\ufffd" in plain.alphabet
    with pytest.raises(CorpusError, match=r"en.txt is not valid UTF-8.*line 6"):
        train_plain_counterpart(opened, errors="strict")
