"""A reader that stops early (``bpe-desktop encode ... | head -1``) ends the command
quietly, with the status of a process killed by SIGPIPE in the shell, 141, whichever
write meets the closed pipe: no message, no traceback (the rule:
``bpe_desktop.cli._common.EXIT_BROKEN_PIPE``)."""

from __future__ import annotations

import os
import string
import subprocess
import sys

import pytest

from bpe_desktop.cli.codec import BATCH_LINES
from bpe_desktop.core.config import TrainConfig
from bpe_desktop.core.model import BPEModel, Merge
from bpe_desktop.core.model_file import save_model
from tests.cli.support import REPO

pytestmark = pytest.mark.skipif(os.name != "posix", reason="SIGPIPE and pipes")

#: Far more output than a pipe holds (64 KiB on Linux) and the reader reads ahead (8 KiB),
#: and more lines than encode and decode write at once, so that a write meets the closed
#: end whatever the timing.
LINES = 3 * BATCH_LINES
SYMBOLS = string.ascii_lowercase + string.digits


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("pipe")
    text = folder / "text.txt"
    text.write_text("".join(f"w{k} x{k % 7}y\n" for k in range(LINES)), encoding="utf-8")
    model = folder / "m.json"
    _cli("train", text, "-o", model, "--merges", "40", "-q", check=True)
    ids = folder / "ids.txt"
    ids.write_bytes(_cli("encode", "-m", model, "--ids", text, check=True).stdout)
    # every pair and triple of 36 symbols: 47,952 merges, ~300 kB as info --merges lines
    big = folder / "big.json"
    merges = [Merge(a, b, None) for a in SYMBOLS for b in SYMBOLS]
    merges += [Merge(a + b, c, None) for a in SYMBOLS for b in SYMBOLS for c in SYMBOLS]
    save_model(BPEModel(config=TrainConfig(boundary="none", special_tokens=()),
                        alphabet=tuple(SYMBOLS), merges=tuple(merges)), big)
    return {"TEXT": text, "MODEL": model, "IDS": ids, "BIG": big}


def _cli(*argv, check: bool = False) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "bpe_desktop", *map(str, argv)],
                          capture_output=True, check=check, timeout=120,
                          env=dict(os.environ, PYTHONPATH=str(REPO)))


def _first_line_then_close(*argv) -> tuple[int, bytes, bytes]:
    env = dict(os.environ, PYTHONPATH=str(REPO))
    proc = subprocess.Popen([sys.executable, "-m", "bpe_desktop", *map(str, argv)],
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=env)
    first = proc.stdout.readline()
    proc.stdout.close()  # as head -1 does
    err = proc.stderr.read()
    return proc.wait(timeout=120), first, err


@pytest.mark.parametrize("argv", [
    ("encode", "-m", "MODEL", "TEXT"),
    ("decode", "-m", "MODEL", "IDS"),
    ("count", "TEXT", "-o", "-", "-q"),
    ("train", "TEXT", "-o", "-", "--merges", "40", "-q"),
    ("export", "-m", "BIG", "--format", "vocab", "-o", "-", "-q"),
    ("info", "-m", "BIG", "--merges"),
    ("info", "-m", "BIG", "--merges", "--json"),
], ids=lambda argv: " ".join(argv[:1] + argv[-2:]))
def test_a_closed_pipe_ends_the_command_quietly_with_status_141(files, argv):
    status, first, err = _first_line_then_close(*(files.get(a, a) for a in argv))
    assert first and (status, err) == (141, b""), (argv, status, err)


def test_a_reader_that_reads_everything_leaves_status_0(files):
    done = _cli("info", "-m", files["BIG"], "--merges")
    assert done.returncode == 0 and done.stderr == b""
    assert done.stdout.count(b"\n") == 36 ** 2 + 36 ** 3
