"""Where each token comes from (``BPEModel.origins``): the engine's one look-up of the merge
that created each token equals a plain derivation from the model's merges, for trained
models of every preset, truncated models, models made in Python, imported models that keep
their source's ids and models read from their file; token details, the merge tree, the
vocabulary table and trimming all answer from it."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from tokenizers import Tokenizer as HfTokenizer
from tokenizers.models import BPE

from bpe_desktop.core import Corpus, TrainConfig, train
from bpe_desktop.core.config import PRESETS, SpecialToken
from bpe_desktop.core.formats import import_model
from bpe_desktop.core.model import BASE, MERGED, SPECIAL, BPEModel, Merge, TokenInfo
from bpe_desktop.core.model_file import dumps, loads, model_from_dict
from bpe_desktop.views.vocab_table import PROTECTED, build_columns
from tests.core.model_file.helpers import small_model

DATA = Path(__file__).resolve().parents[1] / "data"


def derived(model: BPEModel) -> dict[str, np.ndarray]:
    """The origins worked out from ``model.merges`` in plain Python: a token is created by
    the first merge whose result it is, unless it is a base symbol; specials never are."""
    pieces = model.pieces
    ids = {p: i for i, p in enumerate(pieces)}
    specials = {t.id for t in model.config.special_tokens}
    n = len(pieces)
    out = {"kind": [MERGED] * n, "rank": [-1] * n, "count": [-1] * n, "left": [-1] * n,
           "right": [-1] * n}
    for p in model.alphabet:
        out["kind"][ids[p]] = BASE
    for i in specials:
        out["kind"][i] = SPECIAL
    for rank, m in enumerate(model.merges):
        t = ids[m.result]
        if out["kind"][t] == MERGED and out["rank"][t] < 0:
            out["rank"][t] = rank
            out["count"][t] = -1 if m.count is None else m.count
            out["left"][t], out["right"][t] = ids[m.left], ids[m.right]
    return {k: np.array(v) for k, v in out.items()}


def assert_origins_derived(model: BPEModel) -> None:
    got = model.origins()
    for name, expected in derived(model).items():
        assert getattr(got, name).tolist() == expected.tolist(), name


def corpus_text() -> str:
    return (DATA / "tinyshakespeare.txt").read_text(encoding="utf-8")[:20_000]


@pytest.fixture(scope="module")
def preset_models() -> dict[str, BPEModel]:
    corpus = Corpus.from_texts([corpus_text()])
    return {name: train(corpus, TrainConfig.preset(name, merges=150, keep_words=50)).model
            for name in PRESETS}


@pytest.mark.parametrize("name", list(PRESETS))
def test_a_trained_model_of_every_preset(preset_models, name):
    model = preset_models[name]
    assert model.engine_model() is not None  # the engine's look-up, not a Python copy
    assert_origins_derived(model)


@pytest.mark.parametrize("name", list(PRESETS))
def test_a_truncated_model(preset_models, name):
    for merges in (0, 1, 40, 149):
        assert_origins_derived(preset_models[name].truncated(merges))


def test_a_model_read_from_its_file_and_one_made_in_python_agree(preset_models):
    for model in preset_models.values():
        text = dumps(model)
        engine_read, python_read = loads(text.encode("utf-8")), model_from_dict(json.loads(text))
        assert python_read.engine_model() is None
        for name in ("kind", "rank", "count", "left", "right"):
            assert (getattr(engine_read.origins(), name).tolist()
                    == getattr(python_read.origins(), name).tolist())
        assert_origins_derived(python_read)


def test_redundant_merges_unknown_counts_and_specials_between_tokens():
    model = small_model(
        config=TrainConfig(merges=4, special_tokens=(SpecialToken("<s>", 1, "bos"),)),
        alphabet=("a", "b", "ab"),
        merges=(Merge("a", "b", 9), Merge("ab", "b", None), Merge("b", "b", 2),
                Merge("a", "bb", 1)))
    origins = model.origins()
    # ids: a 0, <s> 1, b 2, ab 3 (a base symbol: merge 0 only adds a rule), abb 4, bb 5
    assert model.pieces == ("a", "<s>", "b", "ab", "abb", "bb")
    assert origins.kind.tolist() == [BASE, SPECIAL, BASE, BASE, MERGED, MERGED]
    assert origins.rank.tolist() == [-1, -1, -1, -1, 1, 2]  # merge 3 gives abb again
    assert origins.count.tolist() == [-1, -1, -1, -1, -1, 2]
    assert origins.left.tolist() == [-1, -1, -1, -1, 3, 2]
    assert origins.right.tolist() == [-1, -1, -1, -1, 2, 2]
    assert_origins_derived(model)
    assert model.merge_counts().tolist() == [9, -1, 2, 1]


def _hf_file(tmp_path: Path) -> Path:
    """A tokenizer.json whose ids are not in merge order (the import keeps them)."""
    vocab = {"b": 0, "abb": 1, "ab": 2, "a": 3, "bb": 4}
    tok = HfTokenizer(BPE(vocab=vocab, merges=[("a", "b"), ("ab", "b"), ("b", "b")]))
    path = tmp_path / "tokenizer.json"
    tok.save(str(path))
    return path


def test_an_imported_model_that_keeps_its_ids(tmp_path):
    model = import_model("hf", _hf_file(tmp_path))
    assert model.ids is not None and model.piece_to_id("abb") == 1
    assert_origins_derived(model)
    assert model.token_info(1) == TokenInfo(1, "abb", False, 1, None, "ab", "b")
    reread = loads(dumps(model).encode("utf-8"))
    assert reread.origins().rank.tolist() == model.origins().rank.tolist()


def test_token_details_and_the_merge_tree_name_the_creating_merge():
    model = small_model(alphabet=("a", "b"),
                        merges=(Merge("a", "b", 5), Merge("ab", "b", 3), Merge("a", "b", 1)))
    abb, a = model.piece_to_id("abb"), model.piece_to_id("a")
    assert model.token_info(abb) == TokenInfo(abb, "abb", False, 1, 3, "ab", "b")
    assert model.token_info(a) == TokenInfo(a, "a", False, None, None, None, None)
    tree = model.merge_tree("abb")
    leaf = {"left": None, "right": None, "rank": None, "count": None}
    assert tree == {"piece": "abb", "rank": 1, "count": 3,
                    "left": {"piece": "ab", "rank": 0, "count": 5,
                             "left": {"piece": "a", **leaf}, "right": {"piece": "b", **leaf}},
                    "right": {"piece": "b", **leaf}}
    assert model.merge_tree("zz") == {"piece": "zz", **leaf}


def test_a_long_chain_of_merges_makes_a_deep_tree_without_recursion():
    merges = [Merge("a", "a", 1)] + [Merge("a" * k, "a", 1) for k in range(2, 3000)]
    model = small_model(alphabet=("a",), merges=tuple(merges))
    depth, node = 0, model.merge_tree("a" * 3000)
    while node["left"] is not None:
        node, depth = node["left"], depth + 1
    assert depth == 2999


def test_the_vocabulary_table_shows_the_origins_and_protected_strings_no_merge():
    corpus = Corpus.from_texts(["a <br> b <br> ab ab abab <br>"] * 5)
    model = train(corpus, TrainConfig(merges=6, protected=("<br>",))).model
    columns = build_columns(model)
    origins = model.origins()
    protected = model.piece_to_id("<br>")
    assert columns.kind[protected] == PROTECTED
    assert columns.rank[protected] == -1 and columns.left[protected] == -1
    merged = columns.kind == MERGED
    assert columns.rank[merged].tolist() == origins.rank[merged].tolist()
    assert columns.left[merged].tolist() == origins.left[merged].tolist()
    assert (columns.kind[origins.kind == BASE] != MERGED).all()
