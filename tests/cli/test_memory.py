"""``bpe-desktop train`` warns on stderr before a run that may not fit in memory, and
trains anyway."""

from __future__ import annotations

from bpe_desktop import cli
from bpe_desktop.core import memory
from bpe_desktop.core.model_file import load_model

CORPUS = "low low low lower lower newest newest newest widest widest\n" * 20


def _train(capsys, tmp_path, *extra):
    corpus = tmp_path / "corpus.txt"
    corpus.write_text(CORPUS, encoding="utf-8")
    output = tmp_path / "model.json"
    status = cli.main(["train", str(corpus), "-o", str(output), "--merges", "5", *extra])
    out, err = capsys.readouterr()
    return status, out, err, output


def test_warning_when_memory_is_short_and_training_goes_on(capsys, tmp_path, monkeypatch):
    monkeypatch.setattr(memory, "available_memory", lambda: 1_000_000)
    status, out, err, output = _train(capsys, tmp_path, "--quiet")
    assert status == cli.EXIT_OK
    warnings = [line for line in err.splitlines() if "warning" in line]
    assert len(warnings) == 1
    assert warnings[0].startswith("bpe-desktop: warning: Training on this file (")
    assert "this computer has 1.0 MB free" in warnings[0]
    assert len(load_model(output).merges) == 5


def test_no_warning_when_memory_is_plenty(capsys, tmp_path, monkeypatch):
    monkeypatch.setattr(memory, "available_memory", lambda: 10**12)
    status, out, err, output = _train(capsys, tmp_path)
    assert status == cli.EXIT_OK
    assert "warning" not in err
    assert output.exists()
