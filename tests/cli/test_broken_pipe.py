"""A reader that stops early (``bpe-desktop encode ... | head -1``) ends the command
quietly: no message, no traceback; status 1, or 0 where Python's write of the last of the
output already returned (a large write cut short is not an error to it)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from bpe_desktop.cli.codec import BATCH_LINES
from tests.cli.support import REPO

pytestmark = pytest.mark.skipif(os.name != "posix", reason="SIGPIPE and pipes")

#: Far more output than a pipe holds (64 KiB on Linux), and more lines than encode and
#: decode write at once, so that a write meets the closed end.
LINES = 3 * BATCH_LINES


@pytest.fixture
def text(tmp_path):
    path = tmp_path / "text.txt"
    path.write_text("".join(f"w{k} x{k % 7}y\n" for k in range(LINES)), encoding="utf-8")
    return path


def _first_line_then_close(*argv) -> tuple[int, bytes, bytes]:
    env = dict(os.environ, PYTHONPATH=str(REPO))
    proc = subprocess.Popen([sys.executable, "-m", "bpe_desktop", *map(str, argv)],
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=env)
    first = proc.stdout.readline()
    proc.stdout.close()  # as head -1 does
    err = proc.stderr.read()
    return proc.wait(timeout=120), first, err


def test_a_closed_pipe_ends_each_streaming_command_quietly(tmp_path, text):
    model = tmp_path / "m.json"
    subprocess.run([sys.executable, "-m", "bpe_desktop", "train", str(text), "-o",
                    str(model), "--merges", "40", "-q"], check=True, timeout=120,
                   env=dict(os.environ, PYTHONPATH=str(REPO)))
    ids = tmp_path / "ids.txt"
    with open(ids, "wb") as out:
        subprocess.run([sys.executable, "-m", "bpe_desktop", "encode", "-m", str(model),
                        "--ids", str(text)], stdout=out, check=True, timeout=120,
                       env=dict(os.environ, PYTHONPATH=str(REPO)))
    for argv in (("encode", "-m", model, text), ("decode", "-m", model, ids)):
        assert _first_line_then_close(*argv)[::2] == (1, b""), argv
    for argv in (("count", text, "-o", "-", "-q"),
                 ("train", text, "-o", "-", "--merges", "40", "-q"),
                 ("export", "-m", model, "--format", "vocab", "-o", "-", "-q"),
                 ("info", "-m", model, "--merges")):
        status, first, err = _first_line_then_close(*argv)
        assert first and err == b"" and status in (0, 1), (argv, status, err)
