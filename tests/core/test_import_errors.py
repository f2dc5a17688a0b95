"""Malformed files of every import format: a ModelFileError naming file, place, problem.

Each case is a file set (the imported file first), the place the error must name (a
JSON path, a line, a protobuf field or byte offset; None for the file as a whole) and
words of the problem. Cases the interop tests already cover are not repeated; these
are the ones that once escaped as KeyError, TypeError, AttributeError, ValueError,
RecursionError or ConfigError, or named no place. The fuzz tests (tests/fuzz) check
the same rule on a hundred thousand generated files.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bpe_desktop.core import ModelFileError
from bpe_desktop.core.formats import _protowire as pw
from bpe_desktop.core.formats import import_model


def _hf(model_changes=None, **root) -> bytes:
    data = {"version": "1.0", "added_tokens": [], "normalizer": None,
            "pre_tokenizer": {"type": "WhitespaceSplit"},
            "model": {"type": "BPE", "unk_token": None, "end_of_word_suffix": None,
                      "vocab": {"a": 0, "b": 1, "ab": 2}, "merges": [["a", "b"]]}}
    data["model"].update(model_changes or {})
    data.update(root)
    return json.dumps(data).encode("utf-8")


def _nested(kind: str, key: str, depth: int) -> dict:
    node: dict = {"type": kind}
    for _ in range(depth):
        node = {"type": "Sequence", key: [node]}
    return node


_TRAINER = pw.bytes_field(2, pw.int_field(3, 2))  # model_type BPE
_PIECE_A = pw.bytes_field(1, pw.str_field(1, "a"))
BIG = b"9" * 5000
DEEP = b"[" * 100_000 + b"]" * 100_000

CASES = {
    # -- Hugging Face tokenizer.json --
    "hf huge number": ("hf", [("tokenizer.json", b'{"model": {"vocab": {"a": ' + BIG + b"}}}")],
                       None, "a number has more than 4300 digits"),
    "hf nested JSON": ("hf", [("tokenizer.json", DEEP)], None, "nested too deeply"),
    "hf empty": ("hf", [("tokenizer.json", b"")], "line 1 column 1", "the file is empty"),
    "hf truncated": ("hf", [("tokenizer.json", _hf()[:60])], "line 1 column 60",
                     "the file is truncated"),
    "hf NaN id": ("hf", [("tokenizer.json", _hf().replace(b'"a": 0', b'"a": NaN'))],
                  'model.vocab["a"]', "found NaN (not a number)"),
    "hf id too large": ("hf", [("tokenizer.json", _hf({"vocab": {"a": 2**31, "b": 1}}))],
                        'model.vocab["a"]', "the id 2147483648 is out of range"),
    "hf surrogate token": ("hf", [("tokenizer.json", _hf({"vocab": {"\ud800": 0}}))],
                           'model.vocab["\\ud800"]', "U+D800, a lone surrogate"),
    "hf empty token": ("hf", [("tokenizer.json", _hf({"vocab": {"": 0}}))],
                       'model.vocab[""]', "the empty string is not a token"),
    "hf unk not a string": ("hf", [("tokenizer.json", _hf({"unk_token": ["x"]}))],
                            "model.unk_token", "expected a string or null, found a list"),
    "hf empty added token": (
        "hf", [("tokenizer.json", _hf(added_tokens=[{"id": 3, "content": "",
                                                     "special": True}]))],
        "added_tokens[0].content", "the empty string is not a token"),
    "hf added tokens share an id": (
        "hf", [("tokenizer.json", _hf(added_tokens=[
            {"id": 3, "content": "<s>", "special": True},
            {"id": 3, "content": "</s>", "special": True}]))],
        "added_tokens[1].id", "id 3 is also the id of the added token '<s>'"),
    "hf special made by a merge": (
        "hf", [("tokenizer.json", _hf(added_tokens=[{"id": 2, "content": "ab",
                                                     "special": True}]))],
        "added_tokens[0].content", "also made by model.merges[0]"),
    "hf split pattern not an object": (
        "hf", [("tokenizer.json", _hf(pre_tokenizer={"type": "Split", "pattern": "x"}))],
        "pre_tokenizer.pattern", 'expected {"Regex": ...}'),
    "hf normalizers not a list": (
        "hf", [("tokenizer.json", _hf(normalizer={"type": "Sequence", "normalizers": 5}))],
        "normalizer.normalizers", "expected a list, found a whole number"),
    "hf pre-tokenizers nested too deep": (
        "hf", [("tokenizer.json", _hf(pre_tokenizer=_nested("ByteLevel", "pretokenizers",
                                                            200)))],
        "pre_tokenizer", "nested more than 64 deep"),
    "hf normalizers nested too deep": (
        "hf", [("tokenizer.json", _hf(normalizer=_nested("NFC", "normalizers", 200)))],
        "normalizer", "nested more than 64 deep"),
    # -- GPT-2 vocab.json + merges.txt --
    "gpt2 huge number": ("gpt2", [("vocab.json", b'{"a": ' + BIG + b"}"),
                                  ("merges.txt", b"#version: 0.2\n")],
                         None, "more than 4300 digits"),
    "gpt2 nested JSON": ("gpt2", [("vocab.json", DEEP), ("merges.txt", b"")], None,
                         "nested too deeply"),
    "gpt2 vocab a list": ("gpt2", [("vocab.json", b"[1, 2]"), ("merges.txt", b"")], None,
                          "expected a JSON object of token: id, found a list"),
    "gpt2 surrogate token": ("gpt2", [("vocab.json", b'{"\\udcff": 0}'), ("merges.txt", b"")],
                             '"\\udcff"', "lone surrogate"),
    "gpt2 merges not UTF-8": ("gpt2", [("merges.txt", b"#version: 0.2\na b\n\xff c\n"),
                                       ("vocab.json", b'{"a": 0, "b": 1, "ab": 2}')],
                              "line 3", "not valid UTF-8 (byte 0xff at offset 18)"),
    # -- subword-nmt codes --
    "codes not UTF-8 after a BOM": ("subword-nmt", [("bpe.codes", b"\xef\xbb\xbfa b\n\xc3\n")],
                                    "line 2", "at offset 7"),
    "codes with an empty line": ("subword-nmt", [("bpe.codes", b"#version: 0.2\na b\n\nc d\n")],
                                 "line 3", "an empty line"),
    # -- sentencepiece .model --
    "spm group wire type": ("sentencepiece", [("m.model", b"\x0b\x0c")], "byte offset 0",
                            "unsupported wire type 3"),
    "spm field number 0": ("sentencepiece", [("m.model", b"\x02\x00")], "byte offset 0",
                           "field number 0 is not allowed"),
    "spm absurd length": ("sentencepiece", [("m.model", b"\x0a\xff\xff\xff\xff\xff\xff\xff"
                                                        b"\xff\x7f")],
                          "byte offset 0", "runs past the end of the data"),
    "spm truncated number": ("sentencepiece", [("m.model", b"\x0a\x80")], "byte offset 1",
                             "the data ends inside a number"),
    "spm piece text a number": ("sentencepiece", [("m.model", pw.bytes_field(
        1, pw.int_field(1, 5)) + _TRAINER)], "pieces[0].piece, byte offset 3",
        "expected a length-delimited field"),
    "spm piece not UTF-8": ("sentencepiece", [("m.model", pw.bytes_field(
        1, pw.bytes_field(1, b"\xff")) + _TRAINER)], "pieces[0].piece, byte offset 4",
        "a string is not valid UTF-8"),
    "spm score of 8 bytes": ("sentencepiece", [("m.model", pw.bytes_field(
        1, pw.str_field(1, "a") + pw.varint(2 << 3 | pw.FIXED64) + b"\0" * 8) + _TRAINER)],
        "pieces[0].score, byte offset 6", "expected a 32-bit float"),
    "spm trainer field of the wrong type": ("sentencepiece", [("m.model", _PIECE_A + pw.bytes_field(
        2, pw.bytes_field(3, b"x")))], "trainer_spec.model_type", "expected a number"),
    "spm normalizer name not UTF-8": ("sentencepiece", [("m.model", _PIECE_A + _TRAINER
                                                         + pw.bytes_field(3, pw.bytes_field(
                                                             1, b"\xff")))],
                                      "normalizer_spec.name", "not valid UTF-8"),
    "spm pieces not a message": ("sentencepiece", [("m.model", pw.int_field(1, 5) + _TRAINER)],
                                 "pieces[0], byte offset 1",
                                 "expected a length-delimited field"),
    # -- tiktoken ranks (+ settings) --
    "tiktoken rank too large": ("tiktoken", [("t.tiktoken", b"YQ== 99999999999999999999\n")],
                                "line 1", "the rank 99999999999999999999 is out of range"),
    "tiktoken rank missing": ("tiktoken", [("t.tiktoken", b"YQ== 0\nYg==\n")],
                              "line 2", 'expected "base64-token rank"'),
    "tiktoken settings huge number": ("tiktoken", [("t.tiktoken", b"YQ== 0\n"),
                                                   ("t.tiktoken.json", b'{"x": ' + BIG + b"}")],
                                      None, "more than 4300 digits"),
    "tiktoken settings nested": ("tiktoken", [("t.tiktoken", b"YQ== 0\n"),
                                              ("t.tiktoken.json", DEEP)],
                                 None, "nested too deeply"),
    "tiktoken settings a list": ("tiktoken", [("t.tiktoken", b"YQ== 0\n"),
                                              ("t.tiktoken.json", b"[]")],
                                 None, "expected a JSON object, found a list"),
    "tiktoken empty special": ("tiktoken", [("t.tiktoken", b"YQ== 0\n"),
                                            ("t.tiktoken.json", b'{"special_tokens": {"": 5}}')],
                               'special_tokens[""]', "the empty string is not a token"),
    "tiktoken special ids shared": ("tiktoken", [
        ("t.tiktoken", b"YQ== 0\n"),
        ("t.tiktoken.json", b'{"special_tokens": {"<s>": 5, "</s>": 5}}')],
        'special_tokens["</s>"]', "id 5 is also the id of the special token '<s>'"),
    "tiktoken special id too large": ("tiktoken", [
        ("t.tiktoken", b"YQ== 0\n"),
        ("t.tiktoken.json", b'{"special_tokens": {"<s>": 99999999999}}')],
        'special_tokens["<s>"]', "the id 99999999999 is out of range"),
    "tiktoken special is an ordinary token": ("tiktoken", [
        ("t.tiktoken", b"YQ== 0\n"), ("t.tiktoken.json", b'{"special_tokens": {"a": 1}}')],
        'special_tokens["a"]', "also an ordinary token of t.tiktoken (rank 0)"),
}


def _import(tmp_path: Path, fmt: str, files) -> Path:
    for name, data in files:
        (tmp_path / name).write_bytes(data)
    return tmp_path / files[0][0]


@pytest.mark.parametrize("fmt, files, where, words", list(CASES.values()), ids=list(CASES))
def test_malformed_file(tmp_path, fmt, files, where, words):
    target = _import(tmp_path, fmt, files)
    with pytest.raises(ModelFileError) as info:
        import_model(fmt, target)
    err = info.value
    message = str(err)
    assert err.path is not None and Path(err.path).parent == tmp_path
    expected = f"{err.path}: {where}: " if where else f"{err.path}: "
    assert message.startswith(expected), message
    assert err.where == where
    assert words in message, message
    message.encode("utf-8")  # printable: lone surrogates are escaped


def test_a_utf8_bom_is_skipped_in_json_files(tmp_path):
    path = tmp_path / "tokenizer.json"
    path.write_bytes(b"\xef\xbb\xbf" + _hf())
    assert [m.result for m in import_model("hf", path).merges] == ["ab"]


def test_codes_that_use_unk_as_a_token_get_another_unknown_token(tmp_path):
    path = tmp_path / "bpe.codes"
    path.write_bytes(b"#version: 0.2\n< u\n<u n\n<un k\n<unk >\n<unk> s</w>\n")
    model = import_model("subword-nmt", path)
    assert model.config.special("unk").piece == "<<unk>>"
    assert "<unk>" in model.piece_ids and model.piece_ids["<unk>"] != 0
    assert "the unknown token is '<<unk>>' here" in model.description
    # The unknown "§" ends its word: the pieces say so.
    assert model.tokenizer().encode_as_pieces("<unk>s §") == ["<unk>s</w>", "<<unk>></w>"]


def test_a_settings_problem_from_the_option_names_the_ranks_file(tmp_path):
    path = tmp_path / "t.tiktoken"
    path.write_bytes(b"YQ== 0\n")
    with pytest.raises(ModelFileError) as info:
        import_model("tiktoken", path, special_tokens={"<s>": -1})
    assert str(info.value).startswith(f"{path}: the special_tokens option[\"<s>\"]: ")
