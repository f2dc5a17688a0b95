"""A model imported from a small ``tokenizer.json`` whose ``Split`` regex BPE Desktop
does not have: the import approximates its pre-tokenizer and says so in a note."""

from __future__ import annotations

import json
from pathlib import Path

from bpe_desktop.core.formats import import_model
from bpe_desktop.core.model import BPEModel

#: The import's note on it, as ``BPEModel.approximations`` holds it.
NOTE = ("the source's pre-tokenizer (Split) is approximated by 'whitespace' (words "
        "between white space)")


def write_tokenizer_json(folder: Path) -> Path:
    """``folder/tokenizer.json``: letters a, b, l, o, w and their merges; digits split off
    words by the regex (which the import cannot follow), anything else ``<unk>``."""
    letters = ["a", "b", "l", "o", "w"]
    merges = [["l", "o"], ["lo", "w"], ["a", "b"]]
    vocab = {"<unk>": 0, **{c: i for i, c in enumerate(letters, 1)}}
    for left, right in merges:
        vocab[left + right] = len(vocab)
    data = {"version": "1.0", "normalizer": None,
            "added_tokens": [{"id": 0, "content": "<unk>", "single_word": False,
                              "lstrip": False, "rstrip": False, "normalized": False,
                              "special": True}],
            "pre_tokenizer": {"type": "Split", "pattern": {"Regex": r"\d+|[^\d\s]+"},
                              "behavior": "Isolated", "invert": False},
            "model": {"type": "BPE", "unk_token": "<unk>", "end_of_word_suffix": None,
                      "vocab": vocab, "merges": [" ".join(m) for m in merges]}}
    path = folder / "tokenizer.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def approximate_model(folder: Path) -> BPEModel:
    return import_model("hf", write_tokenizer_json(folder))
