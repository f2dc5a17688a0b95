"""BPEModel.merge_tree: how a token was built, for any depth of merges."""

from __future__ import annotations

import json

from bpe_desktop.core import Corpus, TrainConfig, train
from bpe_desktop.core.model_file import dumps, loads


def test_the_seed_token_tree():
    model = train(Corpus.from_word_counts({"low": 5, "lower": 2, "newest": 6, "widest": 3}),
                  TrainConfig(merges=10)).model
    tree = model.merge_tree("est</w>")
    assert (tree["piece"], tree["left"]["piece"], tree["right"]["piece"]) == \
        ("est</w>", "est", "</w>")
    assert tree["left"]["left"]["piece"] == "es"
    assert tree["left"]["left"]["left"] == {"piece": "e", "rank": None, "count": None,
                                            "left": None, "right": None}
    assert tree["rank"] == 2 and tree["count"] == 9


def test_a_chain_of_thousands_of_merges_does_not_recurse():
    depth = 5000
    base = train(Corpus.from_word_counts({"aaaa": 3}),
                 TrainConfig(merges=1, boundary="none")).model
    data = json.loads(dumps(base))
    data["merges"] = [["a" * n, "a", 1] for n in range(1, depth + 1)]
    data["words"], data["final_counts"] = [], None  # they described the one merge
    model = loads(json.dumps(data))
    node, seen = model.merge_tree("a" * (depth + 1)), 0
    while node["left"] is not None:
        assert node["right"]["piece"] == "a" and node["rank"] == len(node["piece"]) - 2
        node, seen = node["left"], seen + 1
    assert seen == depth and node["piece"] == "a"
