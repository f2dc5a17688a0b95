"""Exact ids against the peers: a word-final <unk> under eow-suffix (HF, subword-nmt) and
an HF tokenizer.json whose ids are not in BPE Desktop's order (kept on import and export).

The sentencepiece cases (fused unknown runs; an spm-trained model's ids kept through
import, model file and export) are in test_formats_export and test_formats_import.
"""

from __future__ import annotations

import dataclasses
import importlib
import json
import os
import random
from pathlib import Path

import pytest

from bpe_desktop.core import Corpus, TrainConfig, load_model, save_model, train
from bpe_desktop.core.formats import export_model, import_model
from tests.interop.conftest import lines_of_targets, normalized_text
from tests.interop.peers import our_ids
from tests.shared_data import corpus_path

tokenizers = importlib.import_module("tokenizers")
apply_bpe = importlib.import_module("subword_nmt.apply_bpe")

FINNISH = "talossa on kissä ja"

@pytest.fixture(scope="module")
def target_lines() -> dict[str, list[str]]:
    return {name: lines[:400] for name, lines in lines_of_targets().items()}


@pytest.fixture(scope="module")
def english(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("corpus") / "ud_english.txt"
    with open(path, "w", encoding="utf-8", newline="") as f:
        f.write(normalized_text(corpus_path("ud_english")))
    return path


def test_word_final_unknown_matches_hf_ids_and_keeps_subword_nmt_word_ends(english, tmp_path):
    model = train(Corpus.from_files([english]),
                  TrainConfig.preset("subword-nmt", merges=3000)).model
    tok = model.tokenizer()
    enc = tok.encoding(FINNISH)
    # HF (end_of_word_suffix </w>) gives the same ids: its <unk> replaces "ä</w>".
    hf_path = export_model(model, "hf", tmp_path / "tokenizer.json")[0]
    hf = tokenizers.Tokenizer.from_file(str(hf_path))
    assert list(enc.ids) == hf.encode(FINNISH).ids == tok.encode(FINNISH)
    # subword-nmt keeps "kissä" a word of its own; so do our pieces and decoding.
    codes = export_model(model, "subword-nmt", tmp_path / "codes.txt")[0]
    with open(codes, encoding="utf-8") as f:
        segments = apply_bpe.BPE(f).process_line(FINNISH).split()
    words = " ".join(segments).replace("@@ ", "").split()
    assert words == list(enc.words) == FINNISH.split()
    ends = [p for p in enc.pieces if p.endswith("</w>")]
    assert len(ends) == len(words) and "<unk></w>" in ends
    assert tok.decode(enc) == "talossa on kiss<unk> ja"
    assert tok.decode(enc).split(" ") == [w.replace("ä", "<unk>") for w in words]


def _permuted_hf(english: Path, tmp_path: Path, *, fuse_unk: bool) -> Path:
    """An HF-trained tokenizer.json with every id (specials too) shuffled."""
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers

    tok = Tokenizer(models.BPE(unk_token="<unk>", end_of_word_suffix="</w>"))
    tok.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    tok.train([str(english)], trainers.BpeTrainer(
        vocab_size=3000, show_progress=False, special_tokens=["<unk>", "<pad>"],
        end_of_word_suffix="</w>"))
    data = json.loads(tok.to_str())
    vocab = data["model"]["vocab"]
    order = list(range(len(vocab)))
    random.Random(15).shuffle(order)
    data["model"]["vocab"] = {piece: order[i] for piece, i in vocab.items()}
    for added in data["added_tokens"]:
        added["id"] = order[added["id"]]
    data["model"]["fuse_unk"] = fuse_unk
    path = tmp_path / f"permuted-{fuse_unk}.json"
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return path


@pytest.mark.parametrize("fuse_unk", [False, True])
def test_hf_tokenizer_with_ids_in_another_order_keeps_them(english, tmp_path, target_lines,
                                                          fuse_unk):
    path = _permuted_hf(english, tmp_path, fuse_unk=fuse_unk)
    hf = tokenizers.Tokenizer.from_file(str(path))
    source_vocab = json.loads(path.read_text(encoding="utf-8"))["model"]["vocab"]
    model = import_model("hf", path)
    assert model.ids is not None and "ids differ" not in model.description
    assert model.config.fuse_unk is fuse_unk
    assert model.piece_ids == source_vocab  # specials included
    save_model(model, tmp_path / "imported.json")
    model = load_model(tmp_path / "imported.json")
    back = export_model(model, "hf", tmp_path / "back.json")[0]
    exported = json.loads(back.read_text(encoding="utf-8"))["model"]
    assert exported["vocab"] == source_vocab and exported["fuse_unk"] is fuse_unk
    hf_back = tokenizers.Tokenizer.from_file(str(back))
    unfused = dataclasses.replace(model, config=model.config.replace(fuse_unk=False))
    unk = source_vocab["<unk>"]
    for name, lines in target_lines.items():
        theirs = [e.ids for e in hf.encode_batch(lines, add_special_tokens=False)]
        assert any(unk in ids for ids in theirs), name  # unknown characters are covered
        if fuse_unk:  # the lines have runs of unknown characters that fusing changes
            assert our_ids(unfused, lines) != theirs, name
        assert our_ids(model, lines) == theirs, name
        assert [e.ids for e in hf_back.encode_batch(lines, add_special_tokens=False)] \
            == theirs, name


def test_byte_level_ids_in_another_order_are_kept_or_refused_by_tiktoken(english, tmp_path,
                                                                        target_lines):
    """GPT-2 files keep shuffled ids exactly; tiktoken, whose rank is the id and the merge
    priority at once, refuses them with the reason instead of segmenting otherwise."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    from bpe_desktop.core.formats import export_problem

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    tok.train([str(english)], trainers.BpeTrainer(
        vocab_size=1000, show_progress=False,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
    data = json.loads(tok.to_str())
    vocab = data["model"]["vocab"]
    order = list(range(len(vocab)))
    random.Random(16).shuffle(order)
    data["model"]["vocab"] = {piece: order[i] for piece, i in vocab.items()}
    path = tmp_path / "byte-level.json"
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    hf = tokenizers.Tokenizer.from_file(str(path))
    model = import_model("hf", path)
    assert model.ids is not None
    assert "merge order" in export_problem(model, "tiktoken")
    paths = export_model(model, "gpt2", str(tmp_path / "gpt2-export") + os.sep)
    vocab_path = next(p for p in paths if p.name.endswith("vocab.json"))
    merges_path = next(p for p in paths if p.name.endswith("merges.txt"))
    gpt2 = tokenizers.ByteLevelBPETokenizer(str(vocab_path), str(merges_path))
    for name, lines in target_lines.items():
        theirs = [e.ids for e in hf.encode_batch(lines)]
        assert our_ids(model, lines) == theirs, name
        assert [e.ids for e in gpt2.encode_batch(lines)] == theirs, name


def test_subword_nmt_export_verifies_with_fuse_unk_on(english, tmp_path):
    """Codes know no unknown token: fusing runs on our side does not change the check."""
    from bpe_desktop.core.formats import verify_export

    model = train(Corpus.from_files([english]),
                  TrainConfig.preset("subword-nmt", merges=500, fuse_unk=True)).model
    paths = export_model(model, "subword-nmt", tmp_path / "codes.txt")
    lines = ["kissä ja äää koira", "日本語 on 日本"]
    tok = model.tokenizer()
    assert tok.encode_as_pieces(lines[1]).count("<unk></w>") == 2  # one per word, fused
    result = verify_export(model, "subword-nmt", paths, lines)
    assert result.agreed == result.lines == 2, result.first_mismatch
