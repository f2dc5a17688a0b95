"""Imports that used to read something they should refuse: codes without merges, a
sentencepiece model cut short at a field boundary."""

from __future__ import annotations

import json

import pytest

from bpe_desktop.core import Corpus, TrainConfig, train
from bpe_desktop.core.errors import ModelFileError
from bpe_desktop.core.formats import export_model, import_model
from bpe_desktop.core.formats import _protowire as pw
from bpe_desktop.core.formats.sentencepiece_model import MODEL_PIECES

TEXT = "low lower lowest newer newest wider widest the new ones\n" * 30


@pytest.mark.parametrize("content", ["", "#version: 0.2\n", "\n"])
def test_subword_nmt_codes_without_merges_are_refused(tmp_path, content):
    codes = tmp_path / "bpe.codes"
    codes.write_text(content, encoding="utf-8")
    with pytest.raises(ModelFileError) as info:
        import_model("subword-nmt", codes)
    assert str(codes) in str(info.value)
    assert "no merges" in str(info.value) or "empty line" in str(info.value)


@pytest.fixture(scope="module")
def spm_file(tmp_path_factory):
    corpus = tmp_path_factory.mktemp("c") / "c.txt"
    corpus.write_text(TEXT, encoding="utf-8")
    model = train(Corpus.from_files([str(corpus)]),
                  TrainConfig.preset("sentencepiece", merges=10)).model
    path = tmp_path_factory.mktemp("spm") / "m.model"
    export_model(model, "sentencepiece", path)
    return path


def test_a_sentencepiece_model_cut_at_a_field_boundary_is_truncated_not_unigram(
        tmp_path, spm_file):
    data = spm_file.read_bytes()
    # the end of each piece field: cutting there leaves a well-formed message
    ends = [at + len(value) for field, _, value, at in pw.fields(data)
            if field == MODEL_PIECES]
    cut = tmp_path / "cut.model"
    for end in (ends[0], ends[len(ends) // 2], ends[-1]):
        cut.write_bytes(data[:end])
        with pytest.raises(ModelFileError, match="truncated") as info:
            import_model("sentencepiece", cut)
        assert "unigram" not in str(info.value)
    assert import_model("sentencepiece", spm_file).merges  # the whole file still reads


def test_tiktoken_ranks_written_without_settings_refuse_an_older_settings_file(tmp_path):
    corpus = tmp_path / "c.txt"
    corpus.write_text(TEXT, encoding="utf-8")
    old = train(Corpus.from_files([str(corpus)]), TrainConfig.preset("gpt2", merges=5)).model
    new = train(Corpus.from_files([str(corpus)]), TrainConfig.preset("gpt2", merges=9)).model
    ranks = tmp_path / "m.tiktoken"
    export_model(old, "tiktoken", ranks)  # ranks, settings and their checksums
    assert ranks.with_name("m.tiktoken.json").exists()
    export_model(new, "tiktoken", ranks, sidecar=False)  # the old settings stay beside
    with pytest.raises(ModelFileError, match="not listed") as info:
        import_model("tiktoken", ranks)
    assert "m.tiktoken.json" in str(info.value)
    ranks.with_name("m.tiktoken.json").unlink()
    assert len(import_model("tiktoken", ranks).merges) == len(new.merges)


def test_tiktoken_ranks_cut_short_contradict_their_settings_and_are_refused(tmp_path):
    """Copied without their checksum list, ranks cut at a line end still say how many
    tokens there were: the settings' explicit_n_vocab, which tiktoken itself checks."""
    import tiktoken
    from tiktoken.load import load_tiktoken_bpe

    corpus = tmp_path / "c.txt"
    corpus.write_text(TEXT, encoding="utf-8")
    model = train(Corpus.from_files([str(corpus)]), TrainConfig.preset("gpt2", merges=9)).model
    ranks = tmp_path / "m.tiktoken"
    export_model(model, "tiktoken", ranks)
    ranks.with_name("m.tiktoken.sha256").unlink()
    lines = ranks.read_bytes().splitlines(keepends=True)
    ranks.write_bytes(b"".join(lines[:-3]))
    settings = json.loads(ranks.with_name("m.tiktoken.json").read_text(encoding="utf-8"))
    with pytest.raises(AssertionError):  # the receiving library refuses the pair
        tiktoken.Encoding("m", pat_str=settings["pat_str"],
                          mergeable_ranks=load_tiktoken_bpe(str(ranks), expected_hash=None),
                          special_tokens=settings["special_tokens"],
                          explicit_n_vocab=settings["explicit_n_vocab"])
    with pytest.raises(ModelFileError) as info:
        import_model("tiktoken", ranks)
    message = str(info.value)
    assert message.startswith(f"{ranks.with_name('m.tiktoken.json')}: explicit_n_vocab:")
    assert f"{model.vocab_size} tokens" in message and f"{len(lines) - 3} ranks" in message
