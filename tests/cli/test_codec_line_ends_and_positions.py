"""encode | decode keeps each line's own line break and reads a leading byte-order mark as
the encoding's mark; a line that does not decode is named down to the id or piece at fault."""

from __future__ import annotations

import pytest

from bpe_desktop.core.model_file import load_model
from tests.cli.support import assert_one_error_line, run

TEXT = "the lowest\r\nnewest low\n\r\nlower\r\n"


def test_encode_decode_keeps_windows_line_ends(capsys, trained, tmp_path):
    src = tmp_path / "crlf.txt"
    src.write_bytes(TEXT.encode("utf-8"))

    for kind, decode_flags in (("--ids", ()), (None, ("--pieces",))):
        status, encoded, err = run(capsys, "encode", "-m", trained, src,
                                   *([kind] if kind else []))
        assert status == 0, err
        # one output line per input line, each ended as its input line was
        assert [line[-2:] == "\r\n" for line in encoded.splitlines(keepends=True)] == \
            [True, False, True, True]
        coded = tmp_path / "coded.txt"
        coded.write_bytes(encoded.encode("utf-8"))
        status, decoded, err = run(capsys, "decode", "-m", trained, *decode_flags, coded)
        assert status == 0, err
        assert decoded == TEXT


@pytest.mark.parametrize("content, flags, where, problem", [
    ("1 2\n3  4 99999 5\n", [], "line 2, id 3 (column 6)", "99999 is outside the vocabulary"),
    ("7 8 x9\n", [], "line 1, id 3 (column 5)", "'x9' is not a token id"),
    ("low </w> no-such-piece\n", ["--pieces"], "line 1, piece 3 (column 10)",
     "'no-such-piece' is not a token"),
])
def test_what_does_not_decode_is_named_by_its_place_in_the_line(capsys, trained, tmp_path,
                                                                 content, flags, where,
                                                                 problem):
    src = tmp_path / "coded.txt"
    src.write_text(content, encoding="utf-8")
    status, out, err = run(capsys, "decode", "-m", trained, *flags, src)
    assert status == 1
    assert_one_error_line(err, f"coded.txt {where}", problem)


def test_a_byte_order_mark_is_not_text(capsys, trained, tmp_path):
    """Training reads a file's leading BOM as the encoding mark it is: encoding and
    decoding do too, so the training file encodes as it trained (no <unk> first)."""
    src = tmp_path / "bom.txt"
    src.write_bytes(b"\xef\xbb\xbfthe lowest\nlow\n")
    status, ids, err = run(capsys, "encode", "-m", trained, "--ids", src)
    assert status == 0, err
    tok = load_model(trained).tokenizer()
    assert ids == " ".join(map(str, tok.encode("the lowest"))) + "\n" + \
        " ".join(map(str, tok.encode("low"))) + "\n"

    coded = tmp_path / "ids.txt"
    coded.write_bytes(b"\xef\xbb\xbf" + ids.encode("utf-8"))  # saved by an editor with a BOM
    status, decoded, err = run(capsys, "decode", "-m", trained, coded)
    assert status == 0, err
    assert decoded == "the lowest\nlow\n"
