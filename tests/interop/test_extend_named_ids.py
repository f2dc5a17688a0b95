"""New tokens in ids the user names: the exports carry those ids, the owning libraries
give them (identical ids to ours on held-out lines of both languages), and the ids left
free below the last one used are reserved tokens that no library produces."""

from __future__ import annotations

import json

import pytest
import sentencepiece as spm
from tokenizers import Tokenizer

from bpe_desktop.core.adapted_output import verify_transformers_folder, write_model
from bpe_desktop.core.extend import extend
from bpe_desktop.core.formats import import_model, verify_export
from bpe_desktop.core.new_ids import parse_new_ids
from bpe_desktop.core.training import Corpus
from tests.peer_sources import (
    HELD_OUT,
    english_lines,
    roberta_style,
    sentencepiece_bpe,
)


@pytest.fixture(scope="module")
def byte_level(adapt_folder, russian):
    """The RoBERTa-style source (1,500 tokens) extended by 200 merges from id 2,000 on."""
    vocab = roberta_style(adapt_folder)
    source = import_model("gpt2", vocab)
    result = extend(source, Corpus.from_files([russian[0]]), merges=200,
                    new_ids=parse_new_ids("2000-"))
    return vocab, source, result


def _lines(russian):
    return russian[1] + english_lines()[-HELD_OUT:]


def test_new_tokens_take_the_named_ids_and_the_gap_is_reserved(byte_level):
    _, source, result = byte_level
    model = result.model
    assert result.new_ids == tuple(range(2000, 2200))
    assert model.vocab_size == 2200
    assert all(model.id_to_piece(i) == source.id_to_piece(i) for i in range(1500))
    reserved = {t.id: t.piece for t in model.config.special_tokens if t.id >= 1500}
    assert reserved == {i: f"<reserved_{i}>" for i in range(1500, 2000)}
    assert [model.piece_to_id(m.result) for m in model.merges[len(source.merges):]] == \
        list(range(2000, 2200))


def test_our_model_file_keeps_the_named_ids_and_reserved_tokens(adapt_folder, byte_level):
    from bpe_desktop.core.model_file import load_model

    _, _, result = byte_level
    write_model(result.model, "model", adapt_folder / "named-model.json")
    loaded = load_model(adapt_folder / "named-model.json")
    assert loaded.pieces == result.model.pieces
    assert loaded.config.special_tokens == result.model.config.special_tokens


@pytest.mark.parametrize("fmt", ["gpt2", "hf", "tiktoken"])
def test_exports_carry_the_named_ids_in_their_libraries(adapt_folder, russian, byte_level, fmt):
    _, _, result = byte_level
    model = result.model
    out = adapt_folder / {"gpt2": "gpt2-out", "hf": "named.json", "tiktoken": "named.tiktoken"}[fmt]
    paths = write_model(model, fmt, out)
    lines = _lines(russian)
    check = verify_export(model, fmt, paths, lines)
    assert check.agreed == check.lines == len(lines), check.first_mismatch
    tok = model.tokenizer()
    assert any(i >= 2000 for line in russian[1] for i in tok.encode(line))


def test_hf_transformers_folder_and_patched_tokenizer_json_carry_the_named_ids(
        adapt_folder, russian, byte_level):
    vocab, source, result = byte_level
    from tokenizers import ByteLevelBPETokenizer

    hf = ByteLevelBPETokenizer(str(vocab), str(vocab).replace("vocab.json", "merges.txt"))
    hf.save(str(adapt_folder / "source-tokenizer.json"))
    out = adapt_folder / "tf-named"
    write_model(result.model, "transformers", out, source=source,
                source_path=adapt_folder / "source-tokenizer.json", source_format="hf")
    peer = Tokenizer.from_file(str(out / "tokenizer.json"))
    new_piece = result.model.id_to_piece(2000)
    assert peer.token_to_id(new_piece) == 2000
    assert peer.token_to_id("<reserved_1500>") == 1500
    lines = _lines(russian)
    tok = result.model.tokenizer()
    assert all(peer.encode(line).ids == list(tok.encode(line)) for line in lines)
    check = verify_transformers_folder(result.model, out, lines)
    assert check.agreed == check.lines
    added = json.loads((out / "tokenizer.json").read_text(encoding="utf-8"))["added_tokens"]
    assert {"id": 1999, "content": "<reserved_1999>", "special": True} \
        .items() <= next(t for t in added if t["id"] == 1999).items()


def test_sentencepiece_written_in_place_with_named_ids_and_control_pieces(adapt_folder, russian):
    sp_path = sentencepiece_bpe(adapt_folder)
    source = import_model("sentencepiece", sp_path)
    result = extend(source, Corpus.from_files([russian[0]]), merges=100,
                    new_ids=parse_new_ids("1100-1149,1200-"))
    model = result.model
    new = len(result.new_characters) + 100
    assert result.new_ids == tuple(range(1100, 1150)) + tuple(range(1200, 1200 + new - 50))
    out = adapt_folder / "named.model"
    paths = write_model(model, "sentencepiece", out, source=source, source_path=sp_path)
    after = spm.SentencePieceProcessor(model_file=str(out))
    before = spm.SentencePieceProcessor(model_file=str(sp_path))
    assert [after.id_to_piece(i) for i in range(1000)] == \
        [before.id_to_piece(i) for i in range(1000)]
    assert after.vocab_size() == model.vocab_size == 1200 + new - 50
    assert all(after.is_control(i) for i in [*range(1000, 1100), *range(1150, 1200)])
    assert after.id_to_piece(1100) == model.id_to_piece(1100) == result.new_characters[0][0]
    lines = _lines(russian)
    check = verify_export(model, "sentencepiece", paths, lines)
    assert check.agreed == check.lines == len(lines), check.first_mismatch
    assert all(i not in range(1000, 1100) for line in lines for i in after.encode(line))
