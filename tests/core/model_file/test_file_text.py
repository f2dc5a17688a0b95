"""The model file's text: list items encoded a slice at a time give exactly the text of
one ``json`` call per item, one item per line."""

from __future__ import annotations

import json

import pytest

from bpe_desktop.core import Corpus, TrainConfig, load_model, train
from bpe_desktop.core import model_file_writer as writer
from bpe_desktop.core.model_file import dumps
from tests.core.model_file.helpers import model_dict

TEXT = "naïve café 東京 🙂 low lower lowest newer wider \t tab\n" * 30


def reference_text(data: dict) -> str:
    """The layout written out by hand: nested objects one key per line, list items one
    per line, each as ``json.dumps`` gives it."""
    def value(v, depth):
        pad = " " * (depth + 1)
        if isinstance(v, dict) and v:
            rows = [f"{pad}{json.dumps(k, ensure_ascii=False)}: {value(x, depth + 1)}"
                    for k, x in v.items()]
            return "{\n" + ",\n".join(rows) + "\n" + " " * depth + "}"
        if isinstance(v, list) and v:
            rows = [pad + json.dumps(x, ensure_ascii=False, allow_nan=False) for x in v]
            return "[\n" + ",\n".join(rows) + "\n" + " " * depth + "]"
        return json.dumps(v, ensure_ascii=False, allow_nan=False)

    rows = [f" {json.dumps(k, ensure_ascii=False)}: {value(v, 1)}" for k, v in data.items()]
    return "{\n" + ",\n".join(rows) + "\n}\n"


@pytest.fixture(scope="module")
def models():
    out = []
    for preset in ("sennrich", "gpt2"):
        model = train(Corpus.from_texts([TEXT]), TrainConfig.preset(preset, vocab_size=120)).model
        out += [model, model.truncated(0)]
    return out


@pytest.mark.parametrize("slice_size", [1, 3, 4096])
@pytest.mark.parametrize("c_encoder", [True, False])
def test_the_text_is_one_json_item_per_line(models, monkeypatch, slice_size, c_encoder):
    monkeypatch.setattr(writer, "_ITEMS_SLICE", slice_size)
    if not c_encoder:
        monkeypatch.setattr(writer, "_ITEM", None)
    for model in models:
        created = "2001-01-01T00:00:00Z"
        text = dumps(model, created=created)
        assert text == reference_text(model_dict(model, created=created))


def test_a_written_file_loads_back(models, tmp_path):
    from bpe_desktop.core import save_model

    for model in models:
        save_model(model, tmp_path / "m.json")
        back = load_model(tmp_path / "m.json")
        assert back.merges == model.merges and back.words == model.words


def test_a_value_json_cannot_hold_is_refused():
    with pytest.raises(ValueError):
        "".join(writer._chunks({"x": [1.0, float("nan")]}))


def test_a_checked_models_merges_words_and_numbers_are_written_by_the_engine_as_json_would(
        monkeypatch, tmp_path):
    from bpe_desktop.core import BPEModel, Merge, save_model

    # Every character the JSON encoder escapes, and counts unknown, zero and the largest.
    alphabet = ('"', "\\", "\n", "\x00", "\x1f", "\x7f", "\u2028", "é", "東", "🙂", "\t", "a")
    merges = (Merge('"', "\\", None), Merge("\n", "\x00", 0), Merge("\x1f", "\x7f", 2**64 - 1),
              Merge("\u2028", "é", 3), Merge("東", "🙂", None), Merge("\t", "a", 7))
    words = (('"\\', 2**64 - 1), ("\n\x00\x1f\x7f", 5), ("\u2028é東🙂", 1), ("\ta", 3))
    size = BPEModel(config=TrainConfig(), alphabet=alphabet, merges=merges).vocab_size
    model = BPEModel(config=TrainConfig(), alphabet=alphabet, merges=merges,
                     final_counts=tuple(range(size)), words=words)
    created = "2001-01-01T00:00:00Z"
    expected = reference_text(model_dict(model, created=created))
    remembered = model_dict(model)["created"]  # the time the model keeps from now on
    calls = []
    lines = writer.EngineRows.lines
    monkeypatch.setattr(writer.EngineRows, "lines",
                        lambda self, pad: calls.append(type(self).__name__) or lines(self, pad))
    first = dumps(model)
    assert first == expected.replace(created, remembered)
    # checked at the first save: the engine wrote the merges and the words
    assert calls == ["MergeLines", "WordLines"]
    save_model(model, tmp_path / "m.json")  # the same text, written as UTF-8 bytes
    assert (tmp_path / "m.json").read_bytes() == first.encode("utf-8")
    assert calls == ["MergeLines", "WordLines"] * 2
    assert dumps(model, created=created) == expected  # a caller's time: checked, lists
    assert calls == ["MergeLines", "WordLines"] * 2
