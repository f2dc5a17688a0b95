"""What the bpe-desktop command tests share: an in-process runner, the one-line error check,
a toy corpus and a handmade model."""

from __future__ import annotations

from pathlib import Path

import bpe_desktop
from bpe_desktop import cli
from bpe_desktop.core.config import TrainConfig
from bpe_desktop.core.model import BPEModel, CorpusFile, CorpusInfo, Merge

REPO = Path(bpe_desktop.__file__).resolve().parent.parent

CORPUS = """\
low low low low low
lower lower
newest newest newest newest newest newest
widest widest widest
the lowest of the new ones is the widest
"""


def run(capsys, *argv):
    """main(argv) in-process: (status, stdout, stderr)."""
    status = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return status, out, err


def assert_one_error_line(err: str, *words: str) -> None:
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("bpe-desktop: error: "), err
    assert "Traceback" not in err
    for w in words:
        assert w in lines[0], (w, err)



def handmade_model() -> BPEModel:
    return BPEModel(
        config=TrainConfig(merges=3),
        alphabet=("</w>", "e", "l", "o", "r", "w"),
        merges=(Merge("l", "o", 7), Merge("lo", "w", None), Merge("e", "r", 2)),
        corpus=CorpusInfo("files", (CorpusFile("/data/c.txt", 34, "a" * 64),), 7, 2, 27, 0),
        words=(("low", 5),),
        description="handmade",
    )


