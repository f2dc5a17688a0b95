"""The bpe-desktop command: run in-process through ``main([...])``, and once as a process."""

from __future__ import annotations

import gzip
import io
import os
import signal
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

import bpe_desktop
from bpe_desktop import cli
from bpe_desktop.core.config import SpecialToken, TrainConfig
from bpe_desktop.core.model import BPEModel, CorpusFile, CorpusInfo, Merge
from bpe_desktop.core.model_file import load_model, save_model

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


@pytest.fixture
def corpus(tmp_path) -> Path:
    path = tmp_path / "corpus.txt"
    path.write_text(CORPUS, encoding="utf-8")
    return path


def handmade_model() -> BPEModel:
    return BPEModel(
        config=TrainConfig(merges=3),
        alphabet=("</w>", "e", "l", "o", "r", "w"),
        merges=(Merge("l", "o", 7), Merge("lo", "w", None), Merge("e", "r", 2)),
        corpus=CorpusInfo("files", (CorpusFile("/data/c.txt", 34, "a" * 64),), 7, 2, 27, 0),
        words=(("low", 5),),
        description="handmade",
    )


@pytest.fixture
def model_path(tmp_path) -> Path:
    path = tmp_path / "hand.json"
    save_model(handmade_model(), path)
    return path


# ---------------------------------------------------------------------------------------
# No engine needed
# ---------------------------------------------------------------------------------------


def test_version(capsys):
    status, out, err = run(capsys, "--version")
    assert status == 0
    assert out.strip() == f"bpe-desktop {bpe_desktop.__version__}"


@pytest.mark.parametrize("argv", [[], ["model.json"], ["--smoke-test"]])
def test_no_command_opens_the_desktop_application(monkeypatch, argv):
    import bpe_desktop.app

    seen = []
    monkeypatch.setattr(bpe_desktop.app, "main", lambda args: seen.append(args) or 7)
    assert cli.main(argv) == 7
    assert seen == [argv]


def test_help_lists_the_commands(capsys):
    status, out, err = run(capsys, "--help")
    assert status == 0
    assert "usage: bpe-desktop" in out
    for command in ("train", "encode", "decode", "info"):
        assert command in out


@pytest.mark.parametrize("argv, words", [
    (["train", "c.txt", "-o", "m.json", "--vocab-size", "10", "--merges", "5"],
     ["--merges", "not allowed with", "--vocab-size"]),
    (["train", "c.txt", "-o", "m.json", "--merges", "abc"], ["'abc' is not a whole number"]),
    (["train", "c.txt", "-o", "m.json", "--vocab-size", "-3"], ["must be at least 1"]),
    (["train", "c.txt", "-o", "m.json", "--min-frequency", "1.5"], ["not a whole number"]),
    (["train", "c.txt", "-o", "m.json", "--character-coverage", "2"], ["at most 1"]),
    (["train", "c.txt", "-o", "m.json", "--character-coverage", "x"], ["not a number"]),
    (["train", "c.txt", "-o", "m.json", "--special", "<unk>"], ["PIECE:ID"]),
    (["train", "c.txt", "-o", "m.json", "--special", "<s>:0", "--no-specials"],
     ["not allowed with"]),
    (["train", "c.txt", "-o", "m.json", "--ties", "random"], ["invalid choice"]),
    (["train", "c.txt"], ["-o/--output"]),
    (["encode", "x.txt"], ["-m/--model"]),
    (["frobnicate"], ["invalid choice"]),
])
def test_usage_errors_exit_2_with_one_line(capsys, argv, words):
    status, out, err = run(capsys, *argv)
    assert status == 2
    assert_one_error_line(err, *words)


def test_missing_corpus_file(capsys, tmp_path):
    missing = tmp_path / "missing.txt"
    status, out, err = run(capsys, "train", missing, "-o", tmp_path / "m.json")
    assert status == 1
    assert_one_error_line(err, str(missing), "no such file")
    assert not (tmp_path / "m.json").exists()


def test_output_folder_missing_is_caught_before_training(capsys, corpus, tmp_path):
    out_path = tmp_path / "nowhere" / "m.json"
    status, out, err = run(capsys, "train", corpus, "-o", out_path)
    assert status == 1
    assert_one_error_line(err, "does not exist")


def test_output_is_a_directory(capsys, corpus, tmp_path):
    status, out, err = run(capsys, "train", corpus, "-o", tmp_path)
    assert status == 1
    assert_one_error_line(err, "is a directory")


def test_output_same_as_corpus_refused(capsys, corpus):
    status, out, err = run(capsys, "train", corpus, "-o", corpus)
    assert status == 1
    assert_one_error_line(err, "also a corpus file")
    assert corpus.read_text(encoding="utf-8") == CORPUS


def test_inconsistent_options_are_config_errors(capsys, corpus, tmp_path):
    status, out, err = run(capsys, "train", corpus, "-o", tmp_path / "m.json",
                           "--pretokenizer", "sentencepiece", "--boundary", "eow-symbol")
    assert status == 1
    assert_one_error_line(err, "bow-prefix")


@pytest.mark.parametrize("command", [["info"], ["info", "--merges"], ["encode"], ["decode"]])
def test_missing_model_file(capsys, tmp_path, command):
    missing = tmp_path / "nope.json"
    status, out, err = run(capsys, *command, "-m", missing)
    assert status == 1
    assert_one_error_line(err, str(missing), "No such file")


@pytest.mark.parametrize("command", [["info"], ["encode"], ["decode"]])
def test_bad_model_file(capsys, tmp_path, command):
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "bpe-desktop/model", "version": 1,\n "config": {}, '
                   '"alphabet": ["a"], "merges": [["a", "b", 1]]}\n', encoding="utf-8")
    status, out, err = run(capsys, *command, "-m", bad)
    assert status == 1
    assert_one_error_line(err, str(bad), "merges[0][1]", "'b' is not a token")


def test_truncated_model_file(capsys, tmp_path, model_path):
    bad = tmp_path / "cut.json"
    bad.write_bytes(model_path.read_bytes()[:200])
    status, out, err = run(capsys, "info", "-m", bad)
    assert status == 1
    assert_one_error_line(err, str(bad), "truncated")


def test_info_summary(capsys, model_path):
    status, out, err = run(capsys, "info", "-m", model_path)
    assert status == 0 and err == ""
    assert "vocabulary:" in out and "10 tokens (1 special, 6 alphabet, 3 from merges)" in out
    assert "merges:" in out and "handmade" in out
    assert "<unk> = 0 (unk)" in out
    assert "/data/c.txt" in out and "7 words (2 distinct)" in out


def test_info_merges_format(capsys, model_path):
    status, out, err = run(capsys, "info", "-m", model_path, "--merges")
    assert status == 0 and err == ""
    assert out == "l\to\t7\nlo\tw\t\ne\tr\t2\n"


def test_config_from_presets_and_overrides():
    parse = cli.build_parser().parse_args

    cfg = cli.config_from_args(parse(["train", "c", "-o", "m"]))
    assert cfg == TrainConfig()

    cfg = cli.config_from_args(parse(["train", "c", "-o", "m", "--preset", "subword-nmt",
                                      "--ties", "first-seen", "--merges", "100"]))
    assert cfg == TrainConfig.preset("subword-nmt", ties="first-seen", merges=100)
    assert cfg.pretokenizer == "space" and cfg.boundary == "eow-suffix"

    cfg = cli.config_from_args(parse(["train", "c", "-o", "m", "--preset", "gpt2",
                                      "--vocab-size", "300", "--threads", "2"]))
    assert cfg.special_tokens == () and cfg.min_frequency == 1 and cfg.threads == 2

    cfg = cli.config_from_args(parse([
        "train", "c", "-o", "m", "--special", "<pad>:0", "--special", "<unk>:1",
        "--special", "<|a:b|>:2", "--special", "<mask>:3:user", "--special", "[B]:4:bos",
        "--lowercase", "--normalize", "nfkc", "--character-coverage", "0.99",
        "--initial-alphabet", "xyz", "--min-frequency", "3",
    ]))
    assert cfg.special_tokens == (
        SpecialToken("<pad>", 0, "pad"), SpecialToken("<unk>", 1, "unk"),
        SpecialToken("<|a:b|>", 2, "user"), SpecialToken("<mask>", 3, "user"),
        SpecialToken("[B]", 4, "bos"))
    assert cfg.lowercase and cfg.normalize == "nfkc" and cfg.character_coverage == 0.99
    assert cfg.initial_alphabet == "xyz" and cfg.min_frequency == 3

    cfg = cli.config_from_args(parse(["train", "c", "-o", "m", "--preset", "sentencepiece",
                                      "--no-specials"]))
    assert cfg.special_tokens == () and cfg.pretokenizer == "sentencepiece"


def test_unexpected_error_is_one_line_with_hint(capsys, model_path, monkeypatch):
    def broken(args):
        raise RuntimeError("kaboom")

    monkeypatch.setattr(cli.info, "cmd_info", broken)
    monkeypatch.delenv("BPE_DESKTOP_DEBUG", raising=False)
    status, out, err = run(capsys, "info", "-m", model_path)
    assert status == 1
    assert_one_error_line(err, "RuntimeError", "kaboom", "report")


def test_debug_env_shows_traceback(capsys, model_path, monkeypatch):
    def broken(args):
        raise RuntimeError("kaboom")

    monkeypatch.setattr(cli.info, "cmd_info", broken)
    monkeypatch.setenv("BPE_DESKTOP_DEBUG", "1")
    status, out, err = run(capsys, "info", "-m", model_path)
    assert status == 1
    assert "Traceback" in err and err.splitlines()[-1].startswith("bpe-desktop: error: ")


def test_keyboard_interrupt_is_one_line(capsys, model_path, monkeypatch):
    def interrupted(args):
        raise KeyboardInterrupt

    monkeypatch.setattr(cli.info, "cmd_info", interrupted)
    status, out, err = run(capsys, "info", "-m", model_path)
    assert status == 130
    assert_one_error_line(err, "interrupted")


def _progress(**kw):
    base = dict(stage="merging", bytes_done=0, bytes_total=0, words=0, merges_done=50,
                merges_target=200, pair=("l", "o"), count=7, elapsed=3.0, new_counts=())
    base.update(kw)
    p = SimpleNamespace(**base)
    from bpe_desktop.core.training import Progress

    p.fraction = Progress.fraction.fget(p)
    return p


class FakeStream(io.StringIO):
    def __init__(self, tty):
        super().__init__()
        self._tty = tty

    def isatty(self):
        return self._tty


def test_progress_bar_on_terminal():
    stream = FakeStream(tty=True)
    bar = cli.ProgressBar(stream)
    bar(_progress(stage="reading", bytes_done=5_000_000, bytes_total=10_000_000,
                  merges_done=0, merges_target=None, pair=None, count=None, elapsed=2.0))
    bar(_progress(elapsed=4.0))  # new stage: drawn at once
    bar(_progress(merges_done=60, elapsed=4.01))  # too soon: skipped
    text = stream.getvalue()
    assert text.startswith("\r") and "\n" not in text
    assert "reading" in text and "5.0 MB/10.0 MB" in text and "50%" in text
    assert "50/200 merges" in text and "'l' + 'o' (7)" in text and "25%" in text
    assert "60/200" not in text
    bar.clear()
    assert stream.getvalue().endswith("\r\x1b[K")


def test_progress_plain_lines_when_not_a_terminal():
    stream = FakeStream(tty=False)
    bar = cli.ProgressBar(stream)
    for i in range(100):
        bar(_progress(merges_done=i, elapsed=i * 0.05))
    lines = stream.getvalue().splitlines()
    assert 1 <= len(lines) <= 3
    assert all(line.startswith("bpe-desktop: merging") for line in lines)
    assert "\r" not in stream.getvalue()


def test_progress_eta():
    bar = cli.ProgressBar(FakeStream(tty=False))
    line = bar.describe(_progress(merges_done=100, merges_target=200, elapsed=10.0), eta=10.0)
    assert "ETA 0:10" in line and "0:10" in line
    assert "ETA" not in bar.describe(_progress(merges_done=100, merges_target=200), eta=None)


def test_progress_eta_follows_the_recent_rate():
    """Slow first merges, then fast ones: the ETA shown comes from the recent rate."""
    stream = FakeStream(tty=False)
    bar = cli.ProgressBar(stream)
    bar.PLAIN_INTERVAL = 0.0  # a line for every report
    for tenth in range(20):  # 50 merges a second for 2 s
        bar(_progress(merges_done=5 * tenth, merges_target=3000, elapsed=tenth / 10))
    for tenth in range(11):  # then 1,000 a second: at 3 s, 1,900 merges are left, 1.9 s
        bar(_progress(merges_done=100 + 100 * tenth, merges_target=3000,
                      elapsed=2 + tenth / 10))
    last = stream.getvalue().splitlines()[-1]
    assert "1,100/3,000 merges" in last
    # the average rate since the start would say 0:05; the recent rate says 0:01 or 0:02
    assert last.endswith(("ETA 0:01", "ETA 0:02")), last


def test_progress_last_line_shows_the_finished_state():
    stream = FakeStream(tty=False)
    bar = cli.ProgressBar(stream)
    bar(_progress(merges_done=0, merges_target=2899, pair=None, count=None, elapsed=0.1))
    bar(_progress(stage="done", merges_done=2899, merges_target=2899, pair=("h", "oo"),
                  count=5, elapsed=0.2))
    lines = stream.getvalue().splitlines()
    assert "0/2,899 merges" in lines[0]
    assert lines[-1].startswith("bpe-desktop: merging") and "100%" in lines[-1]
    assert "2,899/2,899 merges" in lines[-1] and "ETA" not in lines[-1]


def test_train_command_ends_progress_at_100_percent(corpus, tmp_path):
    """The real command, progress on a pipe: the last progress line is the finished one."""
    env = dict(os.environ, PYTHONPATH=str(REPO))
    r = subprocess.run([sys.executable, "-m", "bpe_desktop", "train", str(corpus), "-o",
                        str(tmp_path / "m.json"), "--merges", "20"],
                       capture_output=True, text=True, env=env, timeout=120, check=False)
    assert r.returncode == 0, r.stderr
    progress = [line for line in r.stderr.splitlines() if line.startswith("bpe-desktop: ")]
    assert progress[-1].startswith("bpe-desktop: merging") and "100%" in progress[-1], r.stderr
    n = len(load_model(tmp_path / "m.json").merges)
    assert f"{n:,}/{n:,} merges" in progress[-1]


# ---------------------------------------------------------------------------------------
# With the engine
# ---------------------------------------------------------------------------------------


@pytest.fixture
def trained(capsys, corpus, tmp_path) -> Path:
    out_path = tmp_path / "model.json"
    status, out, err = run(capsys, "train", corpus, "-o", out_path, "--merges", "15", "-q")
    assert status == 0, err
    assert out == "" and err == ""
    return out_path


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


def test_export_writes_and_verifies(capsys, snmt_model, corpus, tmp_path):
    out_path = tmp_path / "tokenizer.json"
    status, out, err = run(capsys, "export", "-m", snmt_model, "--format", "hf", "-o", out_path,
                           "--verify", corpus)
    assert status == 0, err
    lines = out.splitlines()
    assert lines[0] == f"wrote {out_path}"
    assert lines[1].startswith("verified on 5 lines with tokenizers ") and lines[1].endswith(
        ": 100%")
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
    lines = out.splitlines()
    assert lines[0] == f"wrote {codes}, {codes}.vocab"
    assert lines[1].startswith("verified on 5 lines with fastBPE ") and lines[1].endswith(
        ": 100%")
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


def test_export_refusal_is_one_line_and_writes_nothing(capsys, trained, tmp_path):
    out_path = tmp_path / "tokenizer.json"
    status, out, err = run(capsys, "export", "-m", trained, "--format", "hf", "-o", out_path)
    assert status == 1 and out == ""
    assert_one_error_line(err, "cannot export", "eow-symbol", "eow-suffix")
    assert not out_path.exists()


@pytest.mark.parametrize("argv, words", [
    (["--format", "subword-nmt", "--legacy-merges"], ["--legacy-merges", "--format hf"]),
    (["--format", "hf", "--no-settings"], ["--no-settings", "tiktoken"]),
    (["--format", "subword-nmt", "--with-vocab"], ["--with-vocab", "fastbpe"]),
    (["--format", "hf", "--verify-lines", "3"], ["--verify-lines", "--verify"]),
])
def test_export_option_misuse(capsys, snmt_model, tmp_path, argv, words):
    status, _, err = run(capsys, "export", "-m", snmt_model, "-o", tmp_path / "x", *argv)
    assert status == 1
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
