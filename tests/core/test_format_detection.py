"""Which format a tokenizer file is in, detected when a user picks "an existing tokenizer"."""

from __future__ import annotations

import pytest

from bpe_desktop.core import Corpus, TrainConfig, train
from bpe_desktop.core.errors import ModelFileError
from bpe_desktop.core.formats import export_model
from bpe_desktop.core.formats.detect import detect_format, load_tokenizer
from bpe_desktop.core.model_file import save_model

TEXT = ["low lower lowest newest widest " * 4]


def _model(preset: str):
    return train(Corpus.from_texts(TEXT), TrainConfig.preset(preset, merges=8)).model


@pytest.mark.parametrize("preset, fmt, name", [
    ("gpt2", "hf", "tokenizer.json"),
    ("gpt2", "gpt2", "vocab.json"),
    ("gpt2", "tiktoken", "ranks.tiktoken"),
    ("sentencepiece", "sentencepiece", "m.model"),
    ("subword-nmt", "subword-nmt", "bpe.codes"),
])
def test_each_written_format_is_detected_and_loads(tmp_path, preset, fmt, name):
    model = _model(preset)
    path = export_model(model, fmt, tmp_path / name)[0]
    assert detect_format(path) == fmt
    loaded, found = load_tokenizer(path)
    assert found == fmt and loaded.merges == tuple(m.__class__(m.left, m.right) for m in model.merges)


def test_our_model_file_and_a_gpt2_folder(tmp_path):
    model = _model("gpt2")
    save_model(model, tmp_path / "m.json")
    assert detect_format(tmp_path / "m.json") == "model"
    folder = tmp_path / "gpt2"
    folder.mkdir()
    export_model(model, "gpt2", folder)
    assert detect_format(folder) == "gpt2"


@pytest.mark.parametrize("content", [b"print('hello')\n", b'{"a": 1}', b"\x00\x01\x02"])
def test_a_file_that_is_no_tokenizer_is_named(tmp_path, content):
    path = tmp_path / "thing.bin"
    path.write_bytes(content)
    with pytest.raises(ModelFileError, match="thing.bin"):
        detect_format(path)
