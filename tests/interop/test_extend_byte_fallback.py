"""Byte fallback: a source that spells unknown characters in byte tokens (sentencepiece
``byte_fallback``, HF ``byte_fallback: true``) is imported with it, and an extension that
keeps unseen characters as bytes gives ids identical to the owning library's on held-out
text of both languages."""

from __future__ import annotations

import json

import pytest
import sentencepiece as spm
from tokenizers import Tokenizer, models, pre_tokenizers, trainers

from bpe_desktop.core.adapted_output import write_model
from bpe_desktop.core.errors import ConfigError
from bpe_desktop.core.extend import extend
from bpe_desktop.core.formats import export_problem, import_model, verify_export
from bpe_desktop.core.formats._common import BYTE_PIECES
from bpe_desktop.core.training import Corpus
from tests.peer_sources import (
    HELD_OUT,
    english_lines,
    english_training_text,
    sentencepiece_bpe,
)


@pytest.fixture(scope="module")
def sp_path(adapt_folder):
    return sentencepiece_bpe(adapt_folder, byte_fallback=True)


def _lines(russian):
    return russian[1] + english_lines()[-HELD_OUT:]


def test_an_imported_byte_fallback_model_encodes_unknown_characters_as_its_library(
        sp_path, russian):
    source = import_model("sentencepiece", sp_path)
    assert source.config.byte_fallback
    peer = spm.SentencePieceProcessor(model_file=str(sp_path))
    tok = source.tokenizer()
    lines = _lines(russian)
    assert [list(tok.encode(line)) for line in lines] == [peer.encode(line) for line in lines]
    assert tok.encode("я") == peer.encode("я") and peer.id_to_piece(tok.encode("я")[-1]) \
        == "<0x8F>"  # я is D1 8F


def test_unseen_characters_kept_as_bytes_give_sentencepieces_ids(adapt_folder, sp_path, russian):
    source = import_model("sentencepiece", sp_path)
    result = extend(source, Corpus.from_files([russian[0]]), merges=200, unknown="bytes")
    model = result.model
    assert result.new_characters == () and result.unknown_characters == ()
    assert dict(result.byte_characters)["я"] > 100
    new = model.merges[len(source.merges):]
    assert len(new) == 200
    assert not any(p in BYTE_PIECES for m in new for p in (m.left, m.right))
    out = adapt_folder / "bytes.model"
    paths = write_model(model, "sentencepiece", out, source=source, source_path=sp_path)
    lines = _lines(russian)
    check = verify_export(model, "sentencepiece", paths, lines)
    assert check.agreed == check.lines == len(lines), check.first_mismatch
    after = spm.SentencePieceProcessor(model_file=str(out))
    assert after.encode(russian[1][0]) == list(model.tokenizer().encode(russian[1][0]))
    assert any(after.id_to_piece(i) in BYTE_PIECES for i in after.encode(russian[1][0]))
    tok = model.tokenizer()
    for line in lines[:50]:  # byte runs decode to their characters, as sentencepiece's
        assert tok.decode(tok.encode(line)) == after.decode(after.encode(line))


def test_adding_the_characters_still_works_on_a_byte_fallback_source(adapt_folder, sp_path,
                                                                    russian):
    source = import_model("sentencepiece", sp_path)
    result = extend(source, Corpus.from_files([russian[0]]), merges=100)
    assert dict(result.new_characters)["я"] > 100 and result.byte_characters == ()
    out = adapt_folder / "added.model"
    paths = write_model(result.model, "sentencepiece", out, source=source,
                        source_path=sp_path)
    check = verify_export(result.model, "sentencepiece", paths, _lines(russian))
    assert check.agreed == check.lines


def _hf_byte_fallback(adapt_folder):
    """An HF Metaspace BPE trained by tokenizers, with the 256 byte tokens and
    byte_fallback on (as converted Llama-style tokenizers have)."""
    tok = Tokenizer(models.BPE(unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.Metaspace()
    tok.train([str(english_training_text(adapt_folder))], trainers.BpeTrainer(
        vocab_size=800, special_tokens=["<unk>"], show_progress=False))
    data = json.loads(tok.to_str())
    vocab = data["model"]["vocab"]
    for piece in BYTE_PIECES:
        vocab[piece] = len(vocab)
    data["model"]["byte_fallback"] = True
    path = adapt_folder / "hf-bytes.json"
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return path


def test_hf_byte_fallback_source_extended_keeps_bytes_with_tokenizers_ids(adapt_folder, russian):
    path = _hf_byte_fallback(adapt_folder)
    source = import_model("hf", path)
    assert source.config.byte_fallback
    for fmt in ("subword-nmt", "fastbpe", "youtokentome"):
        assert export_problem(source, fmt).startswith("this model spells unknown")
    result = extend(source, Corpus.from_files([russian[0]]), merges=150, unknown="bytes")
    out = adapt_folder / "hf-bytes-extended.json"
    write_model(result.model, "hf", out, source=source, source_path=path, source_format="hf")
    peer = Tokenizer.from_file(str(out))
    tok = result.model.tokenizer()
    lines = _lines(russian)
    assert all(peer.encode(line).ids == list(tok.encode(line)) for line in lines)
    assert json.loads(out.read_text(encoding="utf-8"))["model"]["byte_fallback"] is True
    assert "<0xD1>" in peer.encode(russian[1][0]).tokens
    # BPE Desktop's own sentencepiece export writes them as byte pieces, byte_fallback on
    sp_out = write_model(result.model, "sentencepiece", adapt_folder / "from-hf.model")
    check = verify_export(result.model, "sentencepiece", sp_out, lines)
    assert check.agreed == check.lines == len(lines), check.first_mismatch
    sp = spm.SentencePieceProcessor(model_file=str(sp_out[0]))
    assert sp.is_byte(result.model.piece_to_id("<0xD1>"))


def test_bytes_are_refused_for_a_source_without_byte_fallback(adapt_folder, russian):
    source = import_model("sentencepiece", sentencepiece_bpe(adapt_folder))
    with pytest.raises(ConfigError, match="no byte fallback"):
        extend(source, Corpus.from_files([russian[0]]), merges=10, unknown="bytes")


@pytest.mark.parametrize("drop", ["alphabet", "specials"])
def test_a_byte_fallback_model_trimmed_keeps_its_256_byte_tokens(adapt_folder, sp_path,
                                                                 russian, drop):
    """Byte fallback spells any character in the byte tokens: sentencepiece refuses a
    model with byte_fallback and fewer than 256 of them, HF would give <unk>."""
    from bpe_desktop.core import TrainConfig, train
    from bpe_desktop.core.trim import trim

    english = english_lines()[-HELD_OUT:]
    if drop == "alphabet":  # imported: the bytes are base symbols
        source = import_model("sentencepiece", sp_path)
    else:  # trained by BPE Desktop: the bytes are reserved special tokens
        source = train(Corpus.from_texts(english_lines()[:2000]), TrainConfig.preset(
            "sentencepiece", merges=300, byte_fallback=True)).model
    result = trim(source, english, keep_alphabet=drop != "alphabet",
                  keep_specials=drop != "specials")
    assert all(p in result.model.piece_ids for p in BYTE_PIECES)
    line = russian[1][0]
    if drop == "alphabet":
        fmt, out = "sentencepiece", adapt_folder / "trimmed.model"
        paths = write_model(result.model, fmt, out, source=source, source_path=sp_path)
        sp = spm.SentencePieceProcessor(model_file=str(out))
        ids, pieces, text = sp.encode(line), sp.encode(line, out_type=str), sp.decode
    else:  # without <unk>, which sentencepiece needs
        fmt, out = "hf", adapt_folder / "trimmed.json"
        paths = write_model(result.model, fmt, out)
        hf = Tokenizer.from_file(str(out))
        ids, pieces, text = hf.encode(line).ids, hf.encode(line).tokens, hf.decode
    assert text(ids) == line and "<0xD0>" in pieces
    check = verify_export(result.model, fmt, paths, english + russian[1])
    assert check.agreed == check.lines
