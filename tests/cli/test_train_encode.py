"""The bpe-desktop command with the engine: train, encode, decode, in-process and as a process
(``python -m bpe_desktop``)."""

from __future__ import annotations

import gzip
import io
import os
import signal
import subprocess
import sys

import pytest

import bpe_desktop
from bpe_desktop import cli
from bpe_desktop.core.model_file import load_model
from tests.cli.support import CORPUS, REPO, assert_one_error_line, run

# ---------------------------------------------------------------------------------------
# With the engine
# ---------------------------------------------------------------------------------------



def test_train_writes_a_loadable_model(capsys, corpus, tmp_path):
    out_path = tmp_path / "model.json"
    status, out, err = run(capsys, "train", corpus, "-o", out_path, "--merges", "10")
    assert status == 0, err
    model = load_model(out_path)
    assert len(model.merges) == 10
    assert model.config.merges == 10
    assert model.corpus.files[0].path.endswith("corpus.txt")
    summary = out.strip().splitlines()
    assert len(summary) == 1
    assert "10 merges" in summary[0] and f"{model.vocab_size} tokens" in summary[0]
    assert str(out_path) in summary[0]
    assert "Traceback" not in err


def test_train_first_says_what_it_trains(capsys, corpus, tmp_path):
    status, out, err = run(capsys, "train", corpus, "-o", tmp_path / "m.json", "--merges",
                           "10", "--pretokenizer", "letters", "--min-frequency", "3")
    assert status == 0, err
    size = len(CORPUS.encode("utf-8"))
    assert err.splitlines()[0] == (
        f"bpe-desktop: training on 1 file(s), {size} bytes: 10 merges, words: letters, "
        "boundary: eow-symbol, ties: first-seen, minimum count 3")


def test_train_gz_matches_plain(capsys, corpus, tmp_path):
    gz = tmp_path / "corpus.txt.gz"
    gz.write_bytes(gzip.compress(corpus.read_bytes()))
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    assert run(capsys, "train", corpus, "-o", a, "--merges", "12", "-q")[0] == 0
    assert run(capsys, "train", gz, "-o", b, "--merges", "12", "-q")[0] == 0
    assert load_model(a).merges == load_model(b).merges


def test_train_with_preset_and_specials(capsys, corpus, tmp_path):
    out_path = tmp_path / "sp.json"
    status, out, err = run(capsys, "train", corpus, "-o", out_path, "--preset", "sentencepiece",
                           "--vocab-size", "30", "-q")
    assert status == 0, err
    model = load_model(out_path)
    assert model.config.pretokenizer == "sentencepiece"
    assert model.vocab_size <= 30
    assert model.pieces[:4] == ("<pad>", "<unk>", "<s>", "</s>")


def test_train_failure_leaves_existing_output(capsys, tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"good words\nbad \xff byte\n")
    out_path = tmp_path / "model.json"
    out_path.write_text("keep me", encoding="utf-8")
    status, out, err = run(capsys, "train", bad, "-o", out_path, "-q")
    assert status == 1
    assert_one_error_line(err, "bad.txt")
    assert out_path.read_text(encoding="utf-8") == "keep me"
    # with --encoding-errors replace it trains
    status, out, err = run(capsys, "train", bad, "-o", out_path, "-q",
                           "--encoding-errors", "replace", "--min-frequency", "1")
    assert status == 0, err


def test_ctrl_c_cancels_training(capsys, corpus, tmp_path, monkeypatch):
    out_path = tmp_path / "model.json"
    out_path.write_text("keep me", encoding="utf-8")
    real_wait = cli._common._wait
    calls = []

    def wait(thread):
        calls.append(1)
        if len(calls) == 1:
            raise KeyboardInterrupt  # Ctrl-C while the training thread runs
        real_wait(thread)

    monkeypatch.setattr(cli._common, "_wait", wait)
    status, out, err = run(capsys, "train", corpus, "-o", out_path, "-q")
    assert status == 130
    assert_one_error_line(err, "cancelled")
    assert out_path.read_text(encoding="utf-8") == "keep me"


def test_encode_decode_round_trip(capsys, trained, tmp_path):
    text = "the lowest newest\n\nwidest low\nlower\n"
    src = tmp_path / "in.txt"
    src.write_text(text, encoding="utf-8")

    status, pieces_out, err = run(capsys, "encode", "-m", trained, src)
    assert status == 0, err
    assert len(pieces_out.splitlines()) == 4
    assert pieces_out.splitlines()[1] == ""
    assert "  " not in pieces_out
    tok = load_model(trained).tokenizer()
    assert pieces_out.splitlines()[0].split(" ") == tok.encode_as_pieces("the lowest newest")

    status, ids_out, err = run(capsys, "encode", "-m", trained, "--ids", src)
    assert status == 0, err
    assert ids_out.splitlines()[0] == " ".join(map(str, tok.encode("the lowest newest")))

    ids_file = tmp_path / "ids.txt"
    ids_file.write_text(ids_out, encoding="utf-8")
    status, decoded, err = run(capsys, "decode", "-m", trained, ids_file)
    assert status == 0, err
    assert decoded == text

    pieces_file = tmp_path / "pieces.txt"
    pieces_file.write_text(pieces_out, encoding="utf-8")
    status, decoded, err = run(capsys, "decode", "-m", trained, "--pieces", pieces_file)
    assert status == 0, err
    assert decoded == text


def test_encode_greedy_and_stdin(capsys, trained, monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"lowest\r\nnewer\n")))
    status, out, err = run(capsys, "encode", "-m", trained, "--mode", "greedy", "-")
    assert status == 0, err
    tok = load_model(trained).tokenizer()
    assert out.splitlines() == [" ".join(tok.encode_as_pieces("lowest", mode="greedy")),
                                " ".join(tok.encode_as_pieces("newer", mode="greedy"))]


def test_encode_many_lines_in_batches(capsys, trained, tmp_path, monkeypatch):
    monkeypatch.setattr(cli.codec, "BATCH_LINES", 7)
    lines = [f"low lower {'newest ' * (i % 3)}".strip() for i in range(50)]
    src = tmp_path / "many.txt"
    src.write_text("\n".join(lines) + "\n", encoding="utf-8")
    status, out, err = run(capsys, "encode", "-m", trained, "--ids", src)
    assert status == 0, err
    tok = load_model(trained).tokenizer()
    assert out.splitlines() == [" ".join(map(str, tok.encode(line))) for line in lines]


def test_encode_invalid_utf8_names_line(capsys, trained, tmp_path):
    src = tmp_path / "bad.txt"
    src.write_bytes(b"low\nlow \xff\n")
    status, out, err = run(capsys, "encode", "-m", trained, src)
    assert status == 1
    assert_one_error_line(err, "bad.txt line 2", "UTF-8")


def test_decode_bad_ids_name_the_line(capsys, trained, tmp_path):
    src = tmp_path / "ids.txt"
    src.write_text("1 2\n3 x 4\n", encoding="utf-8")
    status, out, err = run(capsys, "decode", "-m", trained, src)
    assert status == 1
    assert_one_error_line(err, "ids.txt line 2", "'x' is not a token id")

    src.write_text("1 2\n99999\n", encoding="utf-8")
    status, out, err = run(capsys, "decode", "-m", trained, src)
    assert status == 1
    assert_one_error_line(err, "ids.txt line 2", "99999")

    src.write_text("no-such-piece\n", encoding="utf-8")
    status, out, err = run(capsys, "decode", "-m", trained, "--pieces", src)
    assert status == 1
    assert_one_error_line(err, "ids.txt line 1", "no-such-piece")


def test_encode_unknown_character_without_unk(capsys, corpus, tmp_path):
    model_path = tmp_path / "nounk.json"
    assert run(capsys, "train", corpus, "-o", model_path, "--no-specials", "-q")[0] == 0
    src = tmp_path / "in.txt"
    src.write_text("low\nlow Ω\n", encoding="utf-8")
    status, out, err = run(capsys, "encode", "-m", model_path, src)
    assert status == 1
    assert_one_error_line(err, "in.txt line 2")


def test_info_merges_of_trained_model(capsys, trained):
    status, out, err = run(capsys, "info", "-m", trained, "--merges")
    assert status == 0
    model = load_model(trained)
    rows = [line.split("\t") for line in out.splitlines()]
    assert rows == [[m.left, m.right, str(m.count)] for m in model.merges]


# ---------------------------------------------------------------------------------------
# As a separate process: python -m bpe_desktop
# ---------------------------------------------------------------------------------------


def _python_m(*argv, **kw):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
    env.pop("BPE_DESKTOP_DEBUG", None)
    return subprocess.run([sys.executable, "-m", "bpe_desktop", *map(str, argv)],
                          capture_output=True, text=True, encoding="utf-8", env=env,
                          timeout=300, **kw)


def test_subprocess_exit_codes(corpus, tmp_path):
    model_path = tmp_path / "m.json"
    r = _python_m("train", corpus, "-o", model_path, "--merges", "8")
    assert r.returncode == 0, r.stderr
    assert "8 merges" in r.stdout

    src = tmp_path / "in.txt"
    src.write_text("lowest newest\n", encoding="utf-8")
    r = _python_m("encode", "-m", model_path, "--ids", src)
    assert r.returncode == 0, r.stderr
    r2 = _python_m("decode", "-m", model_path, input=r.stdout)
    assert r2.returncode == 0, r2.stderr
    assert r2.stdout == "lowest newest\n"

    r = _python_m("info", "-m", model_path, "--merges")
    assert r.returncode == 0 and len(r.stdout.splitlines()) == 8

    r = _python_m("train", tmp_path / "missing.txt", "-o", model_path)
    assert r.returncode == 1
    assert_one_error_line(r.stderr, "missing.txt")

    r = _python_m("train", corpus, "-o", model_path, "--merges", "3", "--vocab-size", "9")
    assert r.returncode == 2
    assert_one_error_line(r.stderr, "not allowed with")

    r = _python_m("info", "-m", corpus)
    assert r.returncode == 1
    assert_one_error_line(r.stderr, str(corpus), "not valid JSON")

    r = _python_m("--version")
    assert r.returncode == 0 and bpe_desktop.__version__ in r.stdout


@pytest.mark.skipif(os.name != "posix", reason="sends SIGINT")
def test_subprocess_sigint_cancels(tmp_path, corpus):
    """Ctrl-C during merging: exit 130, a one-line message, the old file untouched.

    The CLI's test hook holds training at its first merging report until it is
    cancelled, so the run cannot finish before the signal lands: only handling Ctrl-C
    ends it.
    """
    model_path = tmp_path / "m.json"
    model_path.write_text("keep me", encoding="utf-8")
    env = dict(os.environ, PYTHONPATH=str(REPO), **{cli.HOLD_FOR_CANCEL_ENV: "1"})
    proc = subprocess.Popen(
        [sys.executable, "-m", "bpe_desktop", "train", corpus, "-o", model_path,
         "--min-frequency", "1", "--threads", "1"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
        # As a program started from a terminal: a test run launched in the background
        # (as CI may launch it) inherits SIGINT ignored, and Python then installs no
        # KeyboardInterrupt handler in the child.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        # wait until the merging stage has started (its first progress line), then Ctrl-C
        seen = []
        while True:
            line = proc.stderr.readline()
            assert line, "".join(seen)
            seen.append(line)
            assert line.startswith("bpe-desktop: "), line
            if line.startswith("bpe-desktop: merging"):
                break
        proc.send_signal(signal.SIGINT)
        _out, rest = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    err = "".join(seen) + rest
    assert proc.returncode == 130, err
    assert "Traceback" not in err
    assert err.splitlines()[-1] == "bpe-desktop: error: training cancelled; nothing was written"
    assert model_path.read_text(encoding="utf-8") == "keep me"


