"""encode | decode keeps each line's own line break, and a line that does not decode is
named down to the id or piece at fault."""

from __future__ import annotations

from tests.cli.support import run

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

