"""``bpe-desktop export`` and ``import``: the interchange formats from the command line."""

from __future__ import annotations

from pathlib import Path

import pytest

from bpe_desktop.core.model_file import load_model
from tests.cli.support import REPO, assert_one_error_line, run

# ---------------------------------------------------------------------------------------
# export / import (interchange formats)
# ---------------------------------------------------------------------------------------


def _read_json(path: Path):
    import json

    return json.loads(path.read_text(encoding="utf-8"))


@pytest.fixture
def snmt_model(capsys, corpus, tmp_path) -> Path:
    """A subword-nmt preset model (exportable as hf and subword-nmt codes)."""
    out_path = tmp_path / "snmt.json"
    status, _, err = run(capsys, "train", corpus, "-o", out_path, "--preset", "subword-nmt",
                         "--merges", "12", "--min-frequency", "1", "-q")
    assert status == 0, err
    return out_path


def assert_wrote_and_verified(out: str, written: str, library: str) -> None:
    """``export --verify``'s report: what it wrote, then the receiving library's verdict."""
    lines = out.splitlines()
    assert lines[0] == f"wrote {written}"
    assert lines[1].startswith(f"verified on 5 lines with {library} ")
    assert lines[1].endswith(": 100%")


def test_export_writes_and_verifies(capsys, snmt_model, corpus, tmp_path):
    out_path = tmp_path / "tokenizer.json"
    status, out, err = run(capsys, "export", "-m", snmt_model, "--format", "hf", "-o", out_path,
                           "--verify", corpus)
    assert status == 0, err
    assert_wrote_and_verified(out, f"{out_path}", "tokenizers")
    data = _read_json(out_path)
    assert data["model"]["end_of_word_suffix"] == "</w>"
    assert len(data["model"]["merges"]) == 12


def test_export_codes_quietly_and_legacy_merges(capsys, snmt_model, tmp_path):
    codes = tmp_path / "bpe.codes"
    status, out, err = run(capsys, "export", "-m", snmt_model, "--format", "subword-nmt",
                           "-o", codes, "-q")
    assert (status, out, err) == (0, "", "")
    assert codes.read_text(encoding="utf-8").splitlines()[0] == "#version: 0.2"
    legacy = tmp_path / "legacy.json"
    status, _, err = run(capsys, "export", "-m", snmt_model, "--format", "hf", "-o", legacy,
                         "--legacy-merges", "-q")
    assert status == 0, err
    assert all(isinstance(m, str) for m in _read_json(legacy)["model"]["merges"])


def test_export_fastbpe_with_vocabulary_verify_and_import(capsys, snmt_model, corpus,
                                                          tmp_path):
    codes = tmp_path / "codes"
    status, out, err = run(capsys, "export", "-m", snmt_model, "--format", "fastbpe", "-o",
                           codes, "--with-vocab", "--verify", corpus)
    assert status == 0, err
    assert_wrote_and_verified(out, f"{codes}, {codes}.vocab", "fastBPE")
    model = load_model(snmt_model)
    assert codes.read_text(encoding="utf-8") == "".join(
        f"{m.left} {m.right} {m.count}\n" for m in model.merges)
    imported = tmp_path / "imported.json"
    status, out, err = run(capsys, "import", "--format", "fastbpe", codes, "-o", imported)
    assert status == 0, err
    assert "Imported from codes (fastBPE codes)." in out
    assert load_model(imported).merges == model.merges  # counts kept


def test_export_youtokentome_refusal_and_verify(capsys, snmt_model, corpus, tmp_path):
    out_path = tmp_path / "yttm.model"
    status, out, err = run(capsys, "export", "-m", snmt_model, "--format", "youtokentome",
                           "-o", out_path)
    assert status == 1 and out == ""
    assert_one_error_line(err, "cannot export", "bow-prefix", "sentencepiece preset")
    sp_model = tmp_path / "sp.json"
    assert run(capsys, "train", corpus, "-o", sp_model, "--preset", "sentencepiece",
               "--merges", "12", "-q")[0] == 0
    status, out, err = run(capsys, "export", "-m", sp_model, "--format", "youtokentome",
                           "-o", out_path, "--verify", corpus)
    assert status == 0, err
    assert out.splitlines()[1].startswith("verified on 5 lines with youtokentome ")
    assert out.splitlines()[1].endswith(": 100%")
    assert out_path.read_text(encoding="utf-8").splitlines()[-1] == "1 0 2 3"


def test_export_a_transformers_folder_that_autotokenizer_loads(capsys, snmt_model, corpus,
                                                                 tmp_path):
    """File ▸ Export offers a transformers folder; so does the command line."""
    folder = tmp_path / "hub"
    status, out, err = run(capsys, "export", "-m", snmt_model, "--format", "transformers",
                           "-o", folder, "--verify", corpus)
    assert status == 0, err
    names = ["tokenizer.json", "tokenizer_config.json", "special_tokens_map.json"]
    assert_wrote_and_verified(out, ", ".join(str(folder / n) for n in names), "tokenizers")
    assert out.splitlines()[2].startswith("verified on 5 lines with transformers ")
    assert out.splitlines()[2].endswith(": 100%")
    assert sorted(p.name for p in folder.iterdir()) == sorted(names)
    assert _read_json(folder / "tokenizer_config.json")["unk_token"] == "<unk>"


def test_a_transformers_folder_is_refused_as_hf_is_and_never_streamed(capsys, trained,
                                                                      snmt_model, tmp_path):
    folder = tmp_path / "hub"
    status, out, err = run(capsys, "export", "-m", trained, "--format", "transformers",
                           "-o", folder)
    assert status == 1 and out == ""
    assert_one_error_line(err, "transformers folder", "eow-symbol", "eow-suffix")
    status, out, err = run(capsys, "export", "-m", snmt_model, "--format", "transformers",
                           "-o", "-")
    assert status == 1 and out == ""
    assert_one_error_line(err, "stream", "give a folder")
    assert not folder.exists() and not Path("-").exists()


def test_export_refusal_is_one_line_and_writes_nothing(capsys, trained, tmp_path):
    out_path = tmp_path / "tokenizer.json"
    status, out, err = run(capsys, "export", "-m", trained, "--format", "hf", "-o", out_path)
    assert status == 1 and out == ""
    assert_one_error_line(err, "cannot export", "eow-symbol", "eow-suffix")
    assert not out_path.exists()


@pytest.mark.parametrize("argv, words, status", [
    (["--format", "subword-nmt", "--legacy-merges"], ["--legacy-merges", "--format hf"], 2),
    (["--format", "hf", "--no-settings"], ["--no-settings", "tiktoken"], 2),
    (["--format", "subword-nmt", "--with-vocab"], ["--with-vocab", "fastbpe"], 2),
    (["--format", "hf", "--verify-lines", "3"], ["--verify-lines", "--verify"], 2),
    (["--format", "vocab", "--verify", str(REPO / "tests" / "data" / "README.md")], ["no library", "nothing to verify"], 1),
])
def test_export_option_misuse(capsys, snmt_model, tmp_path, argv, words, status):
    got, _, err = run(capsys, "export", "-m", snmt_model, "-o", tmp_path / "x", *argv)
    assert got == status
    assert_one_error_line(err, *words)
    assert not (tmp_path / "x").exists()


def test_export_never_overwrites_the_model(capsys, snmt_model):
    before = snmt_model.read_bytes()
    status, _, err = run(capsys, "export", "-m", snmt_model, "--format", "hf", "-o", snmt_model)
    assert status == 1
    assert_one_error_line(err, "model file itself")
    assert snmt_model.read_bytes() == before


def test_export_unknown_format_is_a_usage_error(capsys, snmt_model, tmp_path):
    status, _, err = run(capsys, "export", "-m", snmt_model, "--format", "onnx", "-o",
                         tmp_path / "x")
    assert status == 2
    assert_one_error_line(err, "onnx")


def test_import_then_recount(capsys, snmt_model, corpus, tmp_path):
    tokenizer = tmp_path / "tokenizer.json"
    assert run(capsys, "export", "-m", snmt_model, "--format", "hf", "-o", tokenizer, "-q")[0] == 0
    plain, counted = tmp_path / "plain.json", tmp_path / "counted.json"
    status, out, err = run(capsys, "import", "--format", "hf", tokenizer, "-o", plain)
    assert status == 0, err
    assert out.splitlines()[0] == f"12 merges, vocabulary of {load_model(plain).vocab_size} " \
                                  f"tokens; saved {plain}"
    assert "Imported from tokenizer.json (Hugging Face tokenizer.json)." in out
    assert all(m.count is None for m in load_model(plain).merges)
    status, out, err = run(capsys, "import", "--format", "hf", tokenizer, "-o", counted, "-q",
                           "--recount", corpus)
    assert (status, out, err) == (0, "", "")
    original, recounted = load_model(snmt_model), load_model(counted)
    assert recounted.merges == original.merges  # counts included
    assert recounted.pieces == original.pieces


def test_recount_reads_invalid_utf8_as_the_error_suggests(capsys, snmt_model, corpus,
                                                           tmp_path):
    """The corpus error offers replacement characters: --encoding-errors gives them, as
    for train, count and extend, and the model records it."""
    codes = tmp_path / "codes.txt"
    assert run(capsys, "export", "-m", snmt_model, "--format", "subword-nmt", "-o", codes,
               "-q")[0] == 0
    latin1 = tmp_path / "latin1.txt"
    latin1.write_bytes(corpus.read_bytes() + "caf\u00e9 lower\n".encode("latin-1"))
    out_path = tmp_path / "counted.json"
    status, _, err = run(capsys, "import", "--format", "subword-nmt", codes, "-o", out_path,
                         "--recount", latin1, "-q")
    assert status == 1
    assert_one_error_line(err, str(latin1), "replacement characters")
    status, _, err = run(capsys, "import", "--format", "subword-nmt", codes, "-o", out_path,
                         "--recount", latin1, "-q", "--encoding-errors", "replace")
    assert status == 0, err
    recounted = load_model(out_path)
    assert recounted.corpus.encoding_errors == "replace"
    # the counts are those of the text with U+FFFD in place of the invalid byte
    replaced, expected = tmp_path / "replaced.txt", tmp_path / "expected.json"
    replaced.write_text(corpus.read_text(encoding="utf-8") + "caf\ufffd lower\n",
                        encoding="utf-8")
    assert run(capsys, "import", "--format", "subword-nmt", codes, "-o", expected,
               "--recount", replaced, "-q")[0] == 0
    assert recounted.merges == load_model(expected).merges
    status, _, err = run(capsys, "import", "--format", "subword-nmt", codes, "-o", out_path,
                         "--encoding-errors", "replace")
    assert status == 2
    assert_one_error_line(err, "--encoding-errors", "--recount")


def test_import_errors_name_the_file_and_place(capsys, tmp_path):
    codes = tmp_path / "bad.codes"
    codes.write_text("#version: 0.2\ne r</w>\nl o 12\n", encoding="utf-8")
    status, out, err = run(capsys, "import", "--format", "subword-nmt", codes, "-o",
                           tmp_path / "m.json")
    assert status == 1 and out == ""
    assert_one_error_line(err, str(codes), "line 3")
    assert not (tmp_path / "m.json").exists()
    status, _, err = run(capsys, "import", "--format", "hf", tmp_path / "missing.json", "-o",
                         tmp_path / "m.json")
    assert status == 1
    assert_one_error_line(err, "missing.json", "no such file")
    status, _, err = run(capsys, "import", "--format", "vocab", codes, "-o", tmp_path / "m.json")
    assert status == 2
    assert_one_error_line(err, "vocab")


def test_another_tools_tokenizer_given_as_a_model_is_named_with_how_to_read_it(
        capsys, snmt_model, corpus, tmp_path):
    codes = tmp_path / "codes.bpe"
    status, _, err = run(capsys, "export", "-m", snmt_model, "--format", "subword-nmt",
                         "-o", codes, "-q")
    assert status == 0, err
    for argv in (["encode", "-m", codes, corpus], ["info", "-m", codes],
                 ["export", "-m", codes, "--format", "hf", "-o", tmp_path / "t.json"]):
        status, _, err = run(capsys, *argv)
        assert status == 1
        assert_one_error_line(err, str(codes), "subword-nmt codes",
                              "bpe-desktop import --format subword-nmt")
    for argv in (["evaluate", "-m", codes, "--text", corpus],
                 ["compare", "-m", codes, "-m", snmt_model, "--text", corpus]):
        status, _, err = run(capsys, *argv)
        assert status == 1
        assert_one_error_line(err, str(codes), "subword-nmt codes", "--format subword-nmt")
    assert not (tmp_path / "t.json").exists()


@pytest.mark.parametrize("fmt, tool", [("subword-nmt", "subword-nmt"), ("fastbpe", "fastBPE")])
def test_importing_codes_says_characters_in_no_merge_become_unknown(capsys, snmt_model,
                                                                     tmp_path, fmt, tool):
    codes, imported = tmp_path / "codes", tmp_path / "imported.json"
    assert run(capsys, "export", "-m", snmt_model, "--format", fmt, "-o", codes, "-q")[0] == 0
    status, out, err = run(capsys, "import", "--format", fmt, codes, "-o", imported)
    assert status == 0, err
    assert (f"a character that is in no merge encodes as '<unk>' here, whereas {tool} passes "
            "it through unchanged.") in out
    # as said: a character the codes never merge is the unknown token
    text = tmp_path / "t.txt"
    text.write_text("☃\n", encoding="utf-8")
    status, out, err = run(capsys, "encode", "-m", imported, text)
    assert status == 0 and out.startswith("<unk>"), (out, err)


def test_export_warns_where_the_library_drops_what_this_model_cannot_encode(
        capsys, corpus, tmp_path):
    """Without an unknown token, BPE Desktop refuses a character outside the vocabulary
    and Hugging Face silently leaves it out: the export says so (and still writes)."""
    from tokenizers import Tokenizer

    model = tmp_path / "bare.json"
    status, _, err = run(capsys, "train", corpus, "-o", model, "--preset", "subword-nmt",
                         "--no-specials", "--merges", "12", "--min-frequency", "1", "-q")
    assert status == 0, err
    out_path = tmp_path / "tokenizer.json"
    status, out, err = run(capsys, "export", "-m", model, "--format", "hf", "-o", out_path,
                           "-q")
    assert status == 0 and out == ""
    assert err.startswith("bpe-desktop: warning: ") and err.count("\n") == 1
    assert "no unknown token" in err and "leaves out" in err
    assert Tokenizer.from_file(str(out_path)).encode("口").ids == []  # what it warns of
    status, _, err = run(capsys, "export", "-m", model, "--format", "subword-nmt",
                         "-o", tmp_path / "codes", "-q")
    assert (status, err) == (0, "")  # apply_bpe passes such a character through
