"""Extended and trimmed tokenizers, written back in their source's format, give identical
ids in their own libraries (and the HF one in transformers) on held-out lines of both
languages; the original vocabulary is unchanged."""

from __future__ import annotations

import json

import pytest
import sentencepiece as spm
from tokenizers import Tokenizer

from bpe_desktop.core.adaptation_report import held_out_report
from bpe_desktop.core.adapted_output import (
    fitting_formats,
    verify_transformers_folder,
    write_model,
)
from bpe_desktop.core.extend import extend
from bpe_desktop.core.formats import import_model, verify_export
from bpe_desktop.core.training import Corpus
from bpe_desktop.core.trim import trim
from tests.peer_sources import (
    HELD_OUT,
    english_lines,
    roberta_style,
    sentencepiece_bpe,
)


def _both_languages(russian_lines):
    return russian_lines + english_lines()[-HELD_OUT:]


def test_byte_level_source_extended_keeps_ids_in_tokenizers_and_transformers(adapt_folder, russian):
    vocab = roberta_style(adapt_folder)
    source = import_model("gpt2", vocab)
    train_text, held_out = russian
    result = extend(source, Corpus.from_files([train_text]), merges=400)
    model = result.model
    assert result.new_characters == ()  # byte-level: nothing is unknown
    paths = write_model(model, "gpt2", adapt_folder / "extended")
    written = json.loads(paths[0].read_text(encoding="utf-8"))
    original = json.loads(vocab.read_text(encoding="utf-8"))
    assert {p: written[p] for p in original} == original
    assert len(written) == len(original) + 400
    lines = _both_languages(held_out)
    check = verify_export(model, "gpt2", paths, lines)
    assert check.agreed == check.lines == len(lines)
    peer = Tokenizer.from_file(str(write_model(model, "hf", adapt_folder / "ext.json")[0]))
    tok = model.tokenizer()
    assert all(peer.encode(line).ids == list(tok.encode(line)) for line in lines)
    tf = write_model(model, "transformers", adapt_folder / "tf")
    assert sorted(p.name for p in tf) == ["special_tokens_map.json", "tokenizer.json",
                                          "tokenizer_config.json"]
    loaded = verify_transformers_folder(model, adapt_folder / "tf", lines)
    assert loaded.agreed == loaded.lines == len(lines)
    assert "transformers" in fitting_formats(model) and "tiktoken" in fitting_formats(model)
    russian_report = held_out_report(source, model, held_out)
    english_report = held_out_report(source, model, english_lines()[-HELD_OUT:])
    assert russian_report.tokens_per_word_change <= -0.30
    assert english_report.unchanged_share >= 0.95


def test_transformers_folder_names_the_special_tokens_roles(adapt_folder):
    vocab = roberta_style(adapt_folder)
    source = import_model("gpt2", vocab)
    write_model(source, "transformers", adapt_folder / "roles")
    import transformers

    tok = transformers.AutoTokenizer.from_pretrained(str(adapt_folder / "roles"),
                                                     local_files_only=True)
    assert (tok.bos_token, tok.eos_token, tok.unk_token, tok.pad_token) == \
        ("<s>", "</s>", "<unk>", "<pad>")
    assert tok.convert_tokens_to_ids("<mask>") == source.piece_to_id("<mask>")


def test_sentencepiece_source_extended_in_place(adapt_folder, russian):
    sp_path = sentencepiece_bpe(adapt_folder)
    source = import_model("sentencepiece", sp_path)
    train_text, held_out = russian
    result = extend(source, Corpus.from_files([train_text]), merges=400)
    model = result.model
    counts = dict(result.new_characters)
    assert counts["я"] > 100 and "я" not in source.piece_ids
    out = adapt_folder / "extended.model"
    paths = write_model(model, "sentencepiece", out, source=source, source_path=sp_path)
    before = spm.SentencePieceProcessor(model_file=str(sp_path))
    after = spm.SentencePieceProcessor(model_file=str(out))
    assert [after.id_to_piece(i) for i in range(before.vocab_size())] == \
        [before.id_to_piece(i) for i in range(before.vocab_size())]
    assert after.piece_to_id("<sep>") == before.piece_to_id("<sep>")
    lines = _both_languages(held_out)
    check = verify_export(model, "sentencepiece", paths, lines)
    assert check.agreed == check.lines == len(lines)
    tok = model.tokenizer()
    assert all(after.encode(line) == list(tok.encode(line)) for line in lines)
    report = held_out_report(source, model, held_out)
    assert report.before.unknown_share() > 0.3 and report.after.unknown_share() < 0.01
    assert held_out_report(source, model, english_lines()[-HELD_OUT:]).unchanged_share \
        >= 0.95


def test_trimmed_sentencepiece_model_keeps_the_target_segmentation(adapt_folder, russian):
    sp_path = sentencepiece_bpe(adapt_folder)
    source = import_model("sentencepiece", sp_path)
    target = english_lines()[:300]
    result = trim(source, target)
    out = adapt_folder / "trimmed.model"
    write_model(result.model, "sentencepiece", out, source=source, source_path=sp_path)
    peer = spm.SentencePieceProcessor(model_file=str(out))
    back = {new: old for old, new in result.id_map.items()}
    original = spm.SentencePieceProcessor(model_file=str(sp_path))
    for line in target:
        assert [back[i] for i in peer.encode(line)] == original.encode(line)
    assert result.dropped > 0 and peer.vocab_size() == len(result.id_map)


def _hf_tokenizer(adapt_folder, kind: str):
    from tokenizers import Tokenizer as HfTokenizer
    from tokenizers import models, pre_tokenizers, trainers

    from tests.peer_sources import english_training_text

    suffix = {"end_of_word_suffix": "</w>"} if kind == "eow" else {}
    tok = HfTokenizer(models.BPE(unk_token="<unk>", **suffix))
    tok.pre_tokenizer = pre_tokenizers.WhitespaceSplit() if kind == "eow" \
        else pre_tokenizers.Metaspace()
    tok.train([str(english_training_text(adapt_folder))], trainers.BpeTrainer(
        vocab_size=800, special_tokens=["<unk>"], show_progress=False, **suffix))
    path = adapt_folder / f"{kind}.json"
    tok.save(str(path))
    return path


@pytest.mark.parametrize("kind, boundary", [("eow", "eow-suffix"), ("metaspace", "bow-prefix")])
def test_hf_word_marker_sources_extended_keep_ids(adapt_folder, russian, kind, boundary):
    path = _hf_tokenizer(adapt_folder, kind)
    source = import_model("hf", path)
    assert source.config.boundary == boundary
    train_text, held_out = russian
    result = extend(source, Corpus.from_files([train_text]), merges=200)
    assert result.new_characters  # the Cyrillic letters the English tokenizer lacked
    paths = write_model(result.model, "hf", adapt_folder / f"{kind}-extended.json")
    peer = Tokenizer.from_file(str(paths[0]))
    original = Tokenizer.from_file(str(path)).get_vocab()
    assert {p: peer.get_vocab()[p] for p in original} == original
    tok = result.model.tokenizer()
    lines = _both_languages(held_out)
    assert all(peer.encode(line).ids == list(tok.encode(line)) for line in lines)
