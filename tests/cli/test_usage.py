"""The bpe-desktop command without the engine: usage, errors, progress display (in-process
through ``main([...])``)."""

from __future__ import annotations

import io
import os
import subprocess
import sys

import pytest

import bpe_desktop
from bpe_desktop import cli
from bpe_desktop.core.config import SpecialToken, TrainConfig
from bpe_desktop.core.formatting import format_bytes
from bpe_desktop.core.model_file import load_model
from tests.cli.support import CORPUS, REPO, assert_one_error_line, run

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


@pytest.mark.parametrize("argv, help_of", [
    (["compare", "-m", "a.json", "--bogus"], "compare"),
    (["compare", "-m", "a.json", "-m", "b.json", "stray"], "compare"),
    (["encode", "-m", "m.json", "--bogus"], "encode"),
    (["train", "c.txt", "-o", "m.json", "--bogus"], "train"),
    (["report", "--run", "1", "-o", "r.md", "p.bpeproj", "--bogus"], "report"),
    (["encode", "x.txt"], "encode"),
    (["--bogus"], None),
    (["frobnicate"], None),
])
def test_usage_errors_point_to_the_commands_own_help(capsys, argv, help_of):
    status, _, err = run(capsys, *argv)
    command = f"bpe-desktop {help_of}" if help_of else "bpe-desktop"
    assert status == 2 and err.rstrip().endswith(f"(see '{command} --help')"), err


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


@pytest.mark.parametrize("argv, words", [
    (["train", "{c}", "-o", "{m}", "--pretokenizer", "sentencepiece", "--boundary",
      "eow-symbol"], ["bow-prefix", "see 'bpe-desktop train --help'"]),
    (["train", "{c}", "-o", "{m}", "--weight", "en=1"], ["--weight needs languages"]),
    (["train", "{c}", "-o", "{m}", "--lang", "en"], ["--lang 'en'", "CODE=VALUE"]),
    (["train", "{c}", "-o", "{m}", "--save-segmentation", "s.tsv"], ["needs --morfessor"]),
    (["train", "-o", "{m}"], ["no corpus files"]),
    (["count", "{c}", "-o", "-", "--merge", "--dask", "local"], ["--merge", "--dask"]),
    (["count", "{c}", "-o", "-", "--dask", "local:x"], ["--dask local:N", "'x'"]),
    (["count", "{c}", "-o", "-", "--language", "x1"], ["--language", "'x1'"]),
    (["evaluate", "-m", "{m}", "--gold", "{c}", "--char-map", "bogus"], ["'bogus'"]),
    (["encode", "-m", "{m}", "--mode", "greedy", "--dropout", "0.1"], ["--dropout"]),
    (["compare", "-m", "{m}", "--text", "{c}"], ["2 to 4 models", "compare --help"]),
    (["evaluate", "-m", "{m}"], ["nothing to evaluate", "evaluate --help"]),
])
def test_options_that_need_or_exclude_each_other_are_usage_errors(capsys, corpus, tmp_path,
                                                                   argv, words):
    """Found after parsing, they are as wrong a command line as argparse's own errors."""
    model = tmp_path / "m.json"
    status, out, err = run(capsys, *[a.format(c=corpus, m=model) for a in argv])
    assert status == 2 and out == ""
    assert_one_error_line(err, *words)
    assert not model.exists()


@pytest.mark.parametrize("command", [["info"], ["info", "--merges"], ["encode"], ["decode"]])
def test_missing_model_file(capsys, tmp_path, command):
    missing = tmp_path / "nope.json"
    status, out, err = run(capsys, *command, "-m", missing)
    assert status == 1
    assert_one_error_line(err, str(missing), "No such file")


@pytest.mark.parametrize("command", [["info"], ["encode"], ["decode"],
                                     ["export", "--format", "vocab", "-o", "-"],
                                     ["evaluate", "--text", "{text}"]])
def test_a_folder_given_as_the_model_is_named_as_a_folder(capsys, tmp_path, command):
    """A folder that holds no tokenizer is no GPT-2 pair to convert or name a format for."""
    text = tmp_path / "t.txt"
    text.write_text("low\n", encoding="utf-8")
    folder = tmp_path / "models"
    folder.mkdir()
    status, out, err = run(capsys, *[a.format(text=text) for a in command], "-m", folder)
    assert status == 1 and out == ""
    assert_one_error_line(err, f"{folder}: is a folder, not a model file")


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


def test_info_merges_escape_pieces_that_hold_a_tab_or_backslash(capsys, tmp_path):
    corpus = tmp_path / "tabs.txt"
    corpus.write_text("a\tb a\tb a\tb x\\y x\\y\n", encoding="utf-8")
    model = tmp_path / "tabs.json"
    assert run(capsys, "train", corpus, "--pretokenizer", "space", "-o", model,
               "--merges", "4", "-q")[0] == 0
    status, out, err = run(capsys, "info", "-m", model, "--merges")
    assert status == 0 and err == ""
    assert out == "a\t\\t\t3\na\\t\tb\t3\na\\tb\t</w>\t3\nx\t\\\\\t2\n"
    assert all(line.count("\t") == 2 for line in out.splitlines())


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
    from bpe_desktop.core.training import Progress

    return Progress(**base)


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


def test_count_merge_ends_progress_at_100_percent(capsys, tmp_path):
    """Tables are reported on as each starts: the last line is still the finished count."""
    tables = []
    for name in ("eng", "deu", "fra"):
        tables.append(tmp_path / f"{name}.tsv")
        assert run(capsys, "count", REPO / "tests" / "data" / "udhr" / f"{name}.txt",
                   "-o", tables[-1], "-q")[0] == 0
    total = sum(t.stat().st_size for t in tables)
    status, _, err = run(capsys, "count", "--merge", *tables, "-o", tmp_path / "all.tsv")
    assert status == 0, err
    progress = [ln for ln in err.splitlines() if ln.startswith("bpe-desktop: counting")]
    assert progress and "100%" in progress[-1], err
    assert f"{format_bytes(total)}/{format_bytes(total)}" in progress[-1]
    assert sum("100%" in ln for ln in progress) == 1  # the finished line once


def test_count_shows_its_finished_line_once(capsys, tmp_path):
    status, _, err = run(capsys, "count", REPO / "tests" / "data" / "udhr" / "eng.txt",
                         "-o", tmp_path / "eng.tsv")
    assert status == 0, err
    progress = [ln for ln in err.splitlines() if ln.startswith("bpe-desktop: counting")]
    assert "100%" in progress[-1] and sum("100%" in ln for ln in progress) == 1, err


def test_count_progress_shows_a_finished_report_that_came_too_soon():
    from bpe_desktop.cli.count import CountProgressBar
    from bpe_desktop.core.counting import CountProgress

    stream = FakeStream(tty=False)
    bar = CountProgressBar(stream)
    bar(CountProgress(1_000, 4_000, 0, 1, 4, 0.5))
    bar(CountProgress(4_000, 4_000, 0, 4, 4, 0.6))  # within the interval: not shown
    bar.finish()
    lines = stream.getvalue().splitlines()
    assert len(lines) == 2 and "25%" in lines[0]
    assert "100%" in lines[1] and "4.0 kB/4.0 kB" in lines[1] and "4/4 partitions" in lines[1]
