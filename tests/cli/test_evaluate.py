"""``bpe-desktop evaluate``: the JSON object, the tables, imported formats, bad input."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from bpe_desktop.core import Corpus, TrainConfig, save_model, train
from bpe_desktop.core.evaluation import EvaluationRequest, evaluate, read_gold
from bpe_desktop.core.formats import export_model
from tests.cli.support import run

DATA = Path(__file__).resolve().parents[1] / "data"
BOTCHAN = Path(__file__).resolve().parents[2] / "bpe_desktop/resources/examples/botchan.txt"


@pytest.fixture(scope="module")
def model():
    return train(Corpus.from_files([str(BOTCHAN)]),
                 TrainConfig.preset("subword-nmt", vocab_size=700)).model


@pytest.fixture
def model_file(tmp_path, model):
    path = tmp_path / "m.json"
    save_model(model, path)
    return path


def test_json_has_every_section_asked_for(capsys, model, model_file):
    gold, text = DATA / "morph" / "eng.word.dev.tsv", DATA / "udhr" / "eng.txt"
    udhr = sorted((DATA / "udhr").glob("*.txt"))
    status, out, err = run(capsys, "evaluate", "-m", model_file, "--gold", gold,
                           "--text", text, "--parallel", *udhr, "--reference", text,
                           "--sweep", "5", "--json")
    assert status == 0 and err == ""
    data = json.loads(out)
    assert set(data) == {"morphology", "text", "parity", "sweep"}
    expected = evaluate(model, EvaluationRequest(gold=[read_gold(gold)], text_files=[text],
                                                 parallel_files=udhr, reference=text,
                                                 sweep=5)).to_json()
    assert data == json.loads(json.dumps(expected))
    assert set(data["morphology"]["eng.word.dev.tsv"]) >= {
        "words", "evaluated", "skipped", "precision", "recall", "f1", "morphscore", "exact"}
    assert set(data["text"]) == {"tokens", "words", "fertility", "chars_per_token",
                                 "bytes_per_token", "split_share", "unknown_rate",
                                 "utilisation", "renyi_efficiency"}
    assert data["parity"]["eng.txt"] == 1.0 and len(data["parity"]) == 7
    assert len(data["sweep"]) == 5
    assert set(data["sweep"][0]) == {"vocab_size", "merges", "morphology", "text", "parity"}


def test_readable_tables(capsys, model_file):
    status, out, _ = run(capsys, "evaluate", "-m", model_file, "--gold",
                         DATA / "morph" / "hun.word.dev.tsv", "--sweep", "3")
    assert status == 0
    assert "Morphology" in out and "hun.word.dev.tsv" in out and "MorphScore" in out
    assert "Vocabulary sizes" in out and "Text" not in out


def test_imported_format_gives_the_same_scores(capsys, tmp_path, model, model_file):
    codes = tmp_path / "bpe.codes"
    export_model(model, "subword-nmt", codes)
    gold = DATA / "morph" / "fra.word.dev.tsv"
    ours = json.loads(run(capsys, "evaluate", "-m", model_file, "--gold", gold, "--json")[1])
    status, out, _ = run(capsys, "evaluate", "-m", codes, "--format", "subword-nmt",
                         "--gold", gold, "--json")
    assert status == 0 and json.loads(out)["morphology"] == ours["morphology"]


def test_gold_format_can_be_chosen(capsys, tmp_path, model_file):
    gold = tmp_path / "g.tsv"
    gold.write_text("lowest\tlow est\n", encoding="utf-8")
    status, out, _ = run(capsys, "evaluate", "-m", model_file, "--gold", gold,
                         "--gold-format", "surface", "--json")
    assert status == 0 and json.loads(out)["morphology"]["g.tsv"]["words"] == 1


@pytest.mark.parametrize("argv, says", [
    ((), "nothing to evaluate"),
    (("--parallel", "X"), "--parallel needs --reference"),
    (("--text", "absent.txt"), "absent.txt: no such file"),
])
def test_usage_errors(capsys, model_file, argv, says):
    status, out, err = run(capsys, "evaluate", "-m", model_file, *argv)
    assert status == 1 and out == "" and says in err and err.count("\n") == 1


def test_malformed_gold_is_one_line_naming_file_and_line(capsys, tmp_path, model_file):
    gold = tmp_path / "bad.tsv"
    gold.write_text("ok\tok\nwrong\tw rang\n", encoding="utf-8")
    status, _, err = run(capsys, "evaluate", "-m", model_file, "--gold", gold)
    assert status == 1 and f"{gold} line 2:" in err and err.count("\n") == 1


def test_as_a_process(model_file):
    out = subprocess.run([sys.executable, "-m", "bpe_desktop", "evaluate", "-m",
                          str(model_file), "--text", str(DATA / "udhr" / "deu.txt"), "--json"],
                         capture_output=True, text=True, check=True)
    assert json.loads(out.stdout)["text"]["words"] > 1000
