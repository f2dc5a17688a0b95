"""The command line with GPT-4-style byte-level tokenizers: a Llama 3-style tokenizer.json
is extended and verified, and GPT-2 files, which hold no pattern, refuse a ``gpt4o``
model with one error line."""

from __future__ import annotations

import pytest

from bpe_desktop.core.options import PRETOKENIZER_PATTERNS
from tests.cli.support import assert_one_error_line, run
from tests.peer_sources import gpt4_style_tokenizer_json, russian_and_held_out_files
from tests.shared_data import corpus_path


@pytest.fixture(scope="module")
def sources(tmp_path_factory):
    folder = tmp_path_factory.mktemp("gpt4-cli")
    llama3 = gpt4_style_tokenizer_json(folder, "llama3", PRETOKENIZER_PATTERNS["llama3"])
    return {"llama3": llama3, **russian_and_held_out_files(folder)}


def test_extend_a_llama3_style_tokenizer_json(capsys, tmp_path, sources):
    status, out, err = run(capsys, "extend", "-m", sources["llama3"], sources["corpus"],
                           "--merges", 200, "-o", tmp_path / "out.json", "--verify",
                           sources["held_ru"], sources["held_en"])
    assert status == 0, err
    assert "approximat" not in out + err
    # Both held-out files (250 lines): ids as Hugging Face gives them.
    assert "verified on 250 lines with tokenizers" in out and ": 100%" in out, out


def test_gpt2_files_refuse_a_gpt4o_model(capsys, tmp_path):
    model = tmp_path / "m.json"
    status, _, err = run(capsys, "train", corpus_path("ud_english"), "--preset", "gpt4o",
                         "--merges", 50, "-o", model, "-q")
    assert status == 0, err
    status, _, err = run(capsys, "export", "-m", model, "--format", "gpt2", "-o",
                         tmp_path / "gpt2")
    assert status == 1
    assert_one_error_line(err, "no splitting pattern", "gpt4o")
    assert not list(tmp_path.glob("gpt2*"))


def test_extending_tiktoken_ranks_without_their_pattern_is_refused(capsys, tmp_path):
    model = tmp_path / "m.json"
    status, _, err = run(capsys, "train", corpus_path("ud_english"), "--preset", "gpt4",
                         "--merges", 50, "-o", model, "-q")
    assert status == 0, err
    bare = tmp_path / "cl100k_base.tiktoken"
    status, _, err = run(capsys, "export", "-m", model, "--format", "tiktoken", "-o", bare,
                         "--no-settings")
    assert status == 0, err
    status, _, err = run(capsys, "extend", "-m", bare, corpus_path("ud_russian"),
                         "--merges", 20, "-o", tmp_path / "out.tiktoken")
    assert status == 1
    assert_one_error_line(err, "cl100k_base.tiktoken.json", "pat_str")
    assert not (tmp_path / "out.tiktoken").exists()


def test_extending_into_gpt2_files_is_refused_before_the_work(capsys, tmp_path, sources):
    """GPT-2 files cannot hold the source's pattern, whatever is learned: no merging first."""
    status, out, err = run(capsys, "extend", "-m", sources["llama3"], sources["corpus"],
                           "--merges", 200, "-o", tmp_path / "gpt2", "--out-format", "gpt2")
    assert status == 1
    assert_one_error_line(err, "GPT-2 vocab.json + merges.txt", "llama3")  # no progress
    assert out == "" and list(tmp_path.iterdir()) == []
