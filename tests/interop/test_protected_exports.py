"""Protected strings survive export to Hugging Face tokenizers: the library gives our
ids on text containing them (and between, around and inside words); formats that cannot
carry them refuse, naming the reason."""

from __future__ import annotations

import pytest
from tokenizers import Tokenizer as HfTokenizer

from bpe_desktop.core import Corpus, TrainConfig, train
from bpe_desktop.core.errors import ExportError
from bpe_desktop.core.formats import export_model, export_problem

PROTECTED = ("New York", "C++", "e.g.", "York")
TEXT = ("I moved to New York, e.g. for work; New Yorkers write C++ and C# daily. "
        "Old York is not New-York.\n") * 20
PROBES = ["New York", "xNew Yorky", "in New York today", "C++C++", "e.g.New York",
          "Yorkshire and New  York", "NEW YORK new york", "a C++ b", TEXT[:200]]

CONFIGS = {
    "whitespace": TrainConfig(vocab_size=120, boundary="eow-suffix", protected=PROTECTED),
    "lowercase": TrainConfig(vocab_size=120, boundary="eow-suffix", lowercase=True,
                             protected=PROTECTED),
    "sentencepiece": TrainConfig.preset("sentencepiece", vocab_size=120, protected=PROTECTED),
    "gpt2": TrainConfig.preset("gpt2", vocab_size=300, protected=PROTECTED),
}


@pytest.mark.parametrize("name", list(CONFIGS))
def test_hf_export_gives_our_ids_on_text_with_protected_strings(name, tmp_path):
    model = train(Corpus.from_texts([TEXT]), CONFIGS[name]).model
    path = tmp_path / "tokenizer.json"
    export_model(model, "hf", path)
    hf = HfTokenizer.from_file(str(path))
    ours = model.tokenizer()
    for probe in PROBES:
        assert hf.encode(probe).ids == ours.encode(probe), probe
    ny = model.piece_to_id("New York")
    assert ours.encode("in New York today").count(ny) == 1


@pytest.mark.parametrize("fmt", ["sentencepiece", "subword-nmt", "tiktoken"])
def test_formats_without_a_place_for_protected_strings_refuse(fmt, tmp_path):
    model = train(Corpus.from_texts([TEXT]), CONFIGS["sentencepiece"]).model
    why = export_problem(model, fmt)
    assert why is not None and "protected strings" in why
    with pytest.raises(ExportError, match="protected strings"):
        export_model(model, fmt, tmp_path / "out")
    assert not list(tmp_path.iterdir())
