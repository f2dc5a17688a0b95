"""A model read from its file or made by training is held by the engine: the model a user
gets behaves as the one the Python reader (or training's Python builder) makes (every
field, look-up, truncation, encoding, saving), yet holds no Python object per token until
a caller asks for a whole field."""

from __future__ import annotations

import gc
import json
import pickle
import re
import tracemalloc
from pathlib import Path

import pytest

from bpe_desktop.core import Corpus, TrainConfig, train
from bpe_desktop.core.config import PRESETS, SpecialToken
from bpe_desktop.core.errors import ConfigError, ModelFileError
from bpe_desktop.core.model import ENGINE_FIELDS, BPEModel, Merge
from bpe_desktop.core.model_file import dumps, loads, model_from_dict
from tests.core.model_file.helpers import small_model

DATA = Path(__file__).resolve().parents[1] / "data"
TEXT = ("the quick brown fox jumps over the lazy dog and the dog sleeps "
        "while the fox runs over the hills, quick and brown, again and again ") * 20


def both_ways(model: BPEModel) -> tuple[BPEModel, BPEModel]:
    """(read by the engine, read by the Python validator) from the model's file."""
    text = dumps(model)
    engine_read = loads(text.encode("utf-8"))
    python_read = model_from_dict(json.loads(text))
    assert engine_read.engine_model() is not None
    assert python_read.engine_model() is None
    return engine_read, python_read


def trained(**options) -> BPEModel:
    config = TrainConfig(merges=60, keep_words=100, **options)
    return train(Corpus.from_texts([TEXT]), config).model



def same_file(a: str, b: str) -> bool:
    """Two model files' texts equal but for the time each model was first written (two
    models made a second apart are written with different times)."""
    def timeless(text: str) -> str:
        return re.sub(r'^ "created": "[^"]*",$', "", text, count=1, flags=re.M)
    return timeless(a) == timeless(b)

MODELS = {
    "plain": lambda: trained(),
    "specials": lambda: trained(special_tokens=(
        SpecialToken("<unk>", 0, "unk"), SpecialToken("<s>", 3, "bos"),
        SpecialToken("</s>", 70, "eos"))),
    "byte-level": lambda: trained(pretokenizer="gpt2", boundary="none"),
    "redundant merge": lambda: small_model(
        alphabet=("a", "b", "ab"), merges=(Merge("a", "b", 3), Merge("ab", "b", None))),
    "explicit ids": lambda: small_model(
        config=TrainConfig(merges=1, special_tokens=(SpecialToken("<unk>", 1, "unk"),)),
        alphabet=("a", "b"), merges=(Merge("a", "b", 1),), ids=(3, 0, 2), words=()),
    "protected": lambda: trained(protected=("<br>",)),
}


@pytest.fixture(params=list(MODELS))
def pair(request) -> tuple[BPEModel, BPEModel]:
    return both_ways(MODELS[request.param]())


def test_every_field_equals_the_python_readers(pair):
    fast, slow = pair
    assert fast == slow
    for name in ("config", "alphabet", "merges", "words", "ids", "final_counts", "corpus",
                 "description", "constraints"):
        assert getattr(fast, name) == getattr(slow, name), name


def test_fields_taken_from_the_engine_a_slice_at_a_time_are_whole(pair, monkeypatch):
    from bpe_desktop.core import model as model_module

    monkeypatch.setattr(model_module, "_ENGINE_SLICE", 7)
    fast, slow = both_ways(pair[1])
    assert fast.merges == slow.merges and fast.words == slow.words
    assert fast.pieces == slow.pieces


def test_look_ups_equal_the_python_readers(pair):
    fast, slow = pair
    assert fast.vocab_size == slow.vocab_size
    for i in range(slow.vocab_size):
        piece = slow.id_to_piece(i)
        assert fast.id_to_piece(i) == piece
        assert fast.piece_to_id(piece) == i
    assert fast.piece_to_id("no such token") is None
    assert fast.pieces == slow.pieces
    assert [fast.vocab_size_at(k) for k in range(len(slow.merges) + 2)] == \
           [slow.vocab_size_at(k) for k in range(len(slow.merges) + 2)]
    assert fast.token_info(fast.vocab_size - 1) == slow.token_info(slow.vocab_size - 1)
    fast_text, fast_ends = fast.packed_merges()
    slow_text, slow_ends = slow.packed_merges()
    assert fast_text == slow_text and fast_ends.tolist() == slow_ends.tolist()


def test_truncation_equals_the_python_readers(pair):
    fast, slow = pair
    for k in (0, 1, len(slow.merges) // 2, len(slow.merges)):
        a, b = fast.truncated(k), slow.truncated(k)
        assert a == b and a.pieces == b.pieces, k
        assert a.vocab_size == b.vocab_size
    with pytest.raises(ConfigError, match="cannot be cut"):
        fast.truncated(len(slow.merges) + 1)


def test_encoding_and_saving_equal_the_python_readers(pair):
    fast, slow = pair
    text = TEXT[:300] + " quickest <br> zebra"
    for mode in ("merges", "greedy"):
        assert fast.tokenizer().encode(text, mode=mode) == slow.tokenizer().encode(text, mode=mode)
    assert fast.tokenizer().encode_as_pieces(text) == slow.tokenizer().encode_as_pieces(text)
    assert dumps(fast) == dumps(slow)


def test_a_model_survives_pickling(pair):
    fast, slow = pair
    assert pickle.loads(pickle.dumps(fast)) == slow


@pytest.mark.parametrize("change, where", [
    (lambda d: d["merges"].append(list(d["merges"][0])), "merges["),
    (lambda d: d["words"].append(list(d["words"][0])), "words["),
    (lambda d: d["alphabet"].append(""), "alphabet["),
    (lambda d: d.update(final_counts=[1]), "final_counts"),
    (lambda d: d["config"]["special_tokens"].append(
        {"piece": "t", "id": 1, "role": "user"}), "config.special_tokens[1].piece"),
    (lambda d: d.update(extra=1), "unknown key"),
])
def test_a_bad_file_gets_the_python_readers_message(change, where):
    data = json.loads(dumps(trained()))
    change(data)
    with pytest.raises(ModelFileError) as engine_path:
        loads(json.dumps(data, ensure_ascii=False).encode("utf-8"))
    with pytest.raises(ModelFileError) as python_path:
        model_from_dict(data)
    assert str(engine_path.value) == str(python_path.value)
    assert where in str(engine_path.value)


def _held_after_loading(model: BPEModel) -> int:
    """Python heap held by a model read from its file, its tokenizer used and a truncated
    copy made (imports and caches warmed up before measuring)."""
    raw = dumps(model).encode("utf-8")
    loads(raw).tokenizer()
    cut_size = model.truncated(10).vocab_size
    gc.collect()
    tracemalloc.start()
    try:
        loaded = loads(raw)
        loaded.tokenizer().encode(TEXT[:200])
        assert loaded.truncated(10).vocab_size == cut_size
        gc.collect()
        held = tracemalloc.get_traced_memory()[0]
        assert "merges" not in loaded.__dict__ and "pieces" not in loaded.__dict__
    finally:
        tracemalloc.stop()
    return held


def test_loading_and_encoding_holds_no_python_object_per_token():
    small = trained()
    corpus = Corpus.from_files([str(DATA / "ud_english.txt")])
    large = train(corpus, TrainConfig(merges=3000, keep_words=100)).model
    assert large.vocab_size > 20 * small.vocab_size
    # What a model holds beyond a fixed overhead: a Python object per merge or token
    # would be tens of bytes each at least.
    grown = _held_after_loading(large) - _held_after_loading(small)
    assert grown < 4 * (large.vocab_size - small.vocab_size)


# -- a model made by training is held by the engine too ----------------------------------

SEGMENTED = ("walk+ing talk+ed walk+ed un+do+ing re+do the+n " * 15 + TEXT[:400])


def _train_both(run, monkeypatch) -> tuple[BPEModel, BPEModel]:
    """(the model training gives, the model built in Python from the same run)."""
    from bpe_desktop.core import training

    held = run()
    with monkeypatch.context() as patched:
        patched.setattr(training, "_engine_held_model", lambda *args: None)
        built = run()
    assert built.engine_model() is None
    return held, built


def _parity_run():
    from bpe_desktop.core.multilingual import LanguageReport, train_parity_tables

    tables = [[("walking", 3), ("talked", 2), ("the", 5)], [("жжа", 4), ("жаба", 2)]]
    dev = [[("walked", 1)], [("жаж", 2)]]
    config = TrainConfig(lang=("en=tables", "ru=tables"), pretokenizer="whitespace",
                         merges=12, special_tokens=(SpecialToken("<unk>", 0, "unk"),))
    totals = tuple(sum(c for _, c in t) for t in tables)
    report = LanguageReport(("en", "ru"), ("en", "ru"), totals, totals)
    return train_parity_tables(tables, dev, config, report).model


TRAINED_RUNS = {
    **{f"preset {name}": (lambda name=name: train(
        Corpus.from_texts([TEXT]), TrainConfig.preset(name, merges=60, keep_words=50)).model)
       for name in PRESETS},
    "specials": MODELS["specials"],
    "protected strings": lambda: trained(protected=("<br>", "fox"), vocab_size=90),
    "separator": lambda: train(Corpus.from_texts([SEGMENTED]),
                               TrainConfig(merges=40, separator="+")).model,
    "long words left out": lambda: train(
        Corpus.from_texts([TEXT + (" " + "x" * 300) * 500 + " y" * 400]),
        TrainConfig(merges=30, keep_words=3)).model,
    "parity-aware": _parity_run,
}


@pytest.fixture(params=list(TRAINED_RUNS))
def trained_pair(request, monkeypatch) -> tuple[BPEModel, BPEModel]:
    return _train_both(TRAINED_RUNS[request.param], monkeypatch)


def test_a_trained_model_is_held_by_the_engine_with_the_python_built_fields(trained_pair):
    held, built = trained_pair
    assert held.engine_model() is not None
    for name in ("config", "corpus", "description", "constraints", "alphabet", "merges",
                 "words", "ids", "final_counts", "pieces"):
        assert getattr(held, name) == getattr(built, name), name
    assert held == built


def test_a_trained_model_looks_up_encodes_and_cuts_as_the_python_built_one(trained_pair):
    held, built = trained_pair
    assert held.vocab_size == built.vocab_size
    assert [held.id_to_piece(i) for i in range(held.vocab_size)] == list(built.pieces)
    assert all(held.piece_to_id(p) == built.piece_ids[p] for p in built.pieces)
    text = TEXT[:300] + " walking <br> жаба"
    assert held.tokenizer().encode(text) == built.tokenizer().encode(text)
    k = len(built.merges) // 2
    assert held.truncated(k) == built.truncated(k)
    assert held.token_info(held.vocab_size - 1) == built.token_info(built.vocab_size - 1)


def test_a_trained_model_saves_the_same_bytes_without_building_its_fields(trained_pair):
    held, built = trained_pair
    assert same_file(dumps(held), dumps(built))
    long_fields = set(ENGINE_FIELDS) - {"alphabet"}  # the alphabet is a few hundred symbols
    assert not long_fields & set(held.__dict__), "saving built a long Python field"
    assert loads(dumps(held).encode("utf-8")) == built


def test_a_constrained_model_keeps_its_report_and_stays_in_the_engine(monkeypatch):
    held, built = _train_both(TRAINED_RUNS["separator"], monkeypatch)
    assert held.constraints is not None and held.constraints == built.constraints
    assert held.engine_model() is not None


def test_extending_a_trained_model_equals_extending_the_python_built_one(monkeypatch):
    from bpe_desktop.core.extend import extend

    held, built = _train_both(lambda: trained(pretokenizer="whitespace", boundary="none"),
                              monkeypatch)
    more = Corpus.from_texts(["жжа жаба quickly quicker " * 5])
    a, b = extend(held, more, merges=6), extend(built, more, merges=6)
    assert a.model == b.model and same_file(dumps(a.model), dumps(b.model))


def test_a_training_the_file_would_refuse_is_built_in_python():
    # A special token equal to a corpus symbol: the model exists, saving says why not.
    model = trained(special_tokens=(SpecialToken("q", 0, "user"),))
    assert model.engine_model() is None
    with pytest.raises(ModelFileError, match="special"):
        dumps(model)


def _held_after_training(corpus: Corpus, config: TrainConfig) -> tuple[int, int]:
    """(Python heap held by a trained and saved model, its vocabulary size)."""
    train(corpus, config)  # imports and caches warmed up
    gc.collect()
    tracemalloc.start()
    try:
        model = train(corpus, config).model
        dumps(model)
        gc.collect()
        held = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    return held, model.vocab_size


def test_training_holds_no_python_object_per_token():
    small, small_size = _held_after_training(Corpus.from_texts([TEXT]),
                                             TrainConfig(merges=60, keep_words=100))
    large, large_size = _held_after_training(
        Corpus.from_files([str(DATA / "ud_english.txt")]),
        TrainConfig(merges=3000, keep_words=100))
    assert large_size > 20 * small_size
    # beyond a fixed overhead, a Python object per merge or token would be tens of bytes
    assert large - small < 4 * (large_size - small_size)
