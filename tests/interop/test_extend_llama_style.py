"""A Llama-style tokenizer.json (a sentencepiece BPE with byte fallback converted by
transformers, in Llama 2's form with a ▁-marking normalizer and no pre-tokenizer, or with
a Metaspace pre-tokenizer) is extended and written back as a tokenizer.json and a
transformers folder: HF tokenizers and transformers give BPE Desktop's ids on both
languages, the source's ids on English, and decode to the text."""

from __future__ import annotations

import json

import pytest
from tokenizers import Tokenizer

from bpe_desktop.core.adapted_output import verify_transformers_folder, write_model
from bpe_desktop.core.errors import BpeError
from bpe_desktop.core.extend import extend
from bpe_desktop.core.formats import import_model
from bpe_desktop.core.formats.hf import check_adaptable
from bpe_desktop.core.training import Corpus
from tests.peer_sources import HELD_OUT, english_lines, llama_style_tokenizer_json


@pytest.mark.parametrize("legacy", [True, False], ids=["llama2-normalizer", "metaspace"])
def test_llama_style_tokenizer_extended_keeps_the_sources_ids(adapt_folder, russian, legacy):
    path = llama_style_tokenizer_json(adapt_folder, legacy=legacy)
    source = import_model("hf", path)
    assert (source.config.pretokenizer, source.config.boundary) == \
        ("sentencepiece", "bow-prefix")
    result = extend(source, Corpus.from_files([russian[0]]), merges=200)
    out = adapt_folder / f"llama-{legacy}"
    write_model(result.model, "transformers", out, source=source, source_path=path,
                source_format="hf")
    original = Tokenizer.from_file(str(path))
    written = Tokenizer.from_file(str(out / "tokenizer.json"))
    assert json.loads((out / "tokenizer.json").read_text(encoding="utf-8"))["normalizer"] \
        == json.loads(path.read_text(encoding="utf-8"))["normalizer"]
    tok = result.model.tokenizer()
    bos = original.token_to_id("<s>")
    english = english_lines()[-HELD_OUT:]
    for line in english + russian[1]:
        ids = written.encode(line).ids
        assert ids == [bos, *tok.encode(line)]
        assert written.decode(ids) == line
    assert sum(written.encode(line).ids == original.encode(line).ids for line in english) \
        >= 0.95 * len(english)
    assert sum(len(written.encode(line).ids) for line in russian[1]) < \
        0.6 * sum(len(original.encode(line).ids) for line in russian[1])
    check = verify_transformers_folder(result.model, out, english + russian[1])
    assert check.agreed == check.lines


def test_a_metaspace_that_keeps_words_together_with_tokens_across_them_is_refused(
        adapt_folder):
    """split: false lets merges cross a word break; cutting text into words would keep
    or learn other tokens than the tokenizer makes."""
    path = llama_style_tokenizer_json(adapt_folder, legacy=False)
    data = json.loads(path.read_text(encoding="utf-8"))
    vocab = data["model"]["vocab"]
    left, right = "s", "▁the"
    vocab[left + right] = len(vocab)
    data["model"]["merges"].append([left, right])
    across = adapt_folder / "across-words.json"
    across.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    check_adaptable(path)
    with pytest.raises(BpeError, match=r"across-words\.json: .*'s▁the'"):
        check_adaptable(across)


def test_llama_style_tokenizer_trimmed_segments_the_target_text_as_before(adapt_folder):
    """Converted from sentencepiece, one token is made by several merges ('▁t' + 'he',
    '▁th' + 'e'); the text may use any of them, so trimming keeps what each one needs."""
    from bpe_desktop.core.trim import trim

    path = llama_style_tokenizer_json(adapt_folder, legacy=True)
    source = import_model("hf", path)
    target = english_lines()[-HELD_OUT:]
    result = trim(source, target)
    assert result.dropped > 0
    out = adapt_folder / "llama-trimmed"
    write_model(result.model, "transformers", out, source=source, source_path=path,
                source_format="hf")
    original = Tokenizer.from_file(str(path))
    trimmed = Tokenizer.from_file(str(out / "tokenizer.json"))
    back = {new: old for old, new in result.id_map.items()}
    for line in target:
        ids = trimmed.encode(line).ids
        assert [back[i] for i in ids] == original.encode(line).ids
        assert trimmed.decode(ids) == line
    assert verify_transformers_folder(result.model, out, target).agreed == len(target)
