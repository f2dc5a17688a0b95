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
    assert set(data) == {"vocab_size", "merges", "approximations", "morphology", "gold",
                         "text", "parity", "parity_unknown_rate", "sweep"}
    assert data["approximations"] == []  # a trained model
    expected = evaluate(model, EvaluationRequest(gold=[read_gold(gold)], text_files=[text],
                                                 parallel_files=udhr, reference=text,
                                                 sweep=5)).to_json()
    assert data == json.loads(json.dumps(
        {"vocab_size": model.vocab_size, "merges": model.merge_count, **expected}))
    assert set(data["morphology"]["eng.word.dev.tsv"]) >= {
        "words", "evaluated", "skipped", "precision", "recall", "f1", "morphscore", "exact"}
    assert set(data["text"]) == {"tokens", "words", "fertility", "chars_per_token",
                                 "bytes_per_token", "split_share", "unknown_rate",
                                 "utilisation", "renyi_efficiency"}
    assert data["parity"]["eng.txt"] == 1.0 and len(data["parity"]) == 7
    assert len(data["sweep"]) == 5
    assert set(data["sweep"][0]) == {"vocab_size", "merges", "morphology", "text", "parity",
                                     "parity_unknown_rate"}


def test_json_holds_the_numbers_of_the_text_output(capsys, model, model_file):
    text = DATA / "udhr" / "eng.txt"
    _, table, _ = run(capsys, "evaluate", "-m", model_file, "--text", text)
    status, out, err = run(capsys, "evaluate", "-m", model_file, "--text", text, "--json")
    assert status == 0, err
    data = json.loads(out)
    assert table.splitlines()[0] == \
        f"model: {data['vocab_size']:,} tokens, {data['merges']:,} merges"
    assert (data["vocab_size"], data["merges"]) == (model.vocab_size, model.merge_count)
    rows = dict(line.split() for line in table.splitlines()[4:] if line.strip())
    assert rows == {name: f"{value:,}" if isinstance(value, int) else f"{value:.4f}"
                    for name, value in data["text"].items()}


def test_readable_tables(capsys, model_file):
    status, out, _ = run(capsys, "evaluate", "-m", model_file, "--gold",
                         DATA / "morph" / "hun.word.dev.tsv", "--sweep", "3")
    assert status == 0
    assert "Morphology" in out and "hun.word.dev.tsv" in out and "MorphScore" in out
    assert "Vocabulary sizes" in out and "Text" not in out


def test_the_two_gold_tables_name_their_different_counts_apart(capsys, tmp_path, model_file):
    gold = tmp_path / "g.tsv"
    # one usable word, one whose canonical morphs do not spell it, one malformed line
    gold.write_text("cats\tcat @@s\t010\nwent\tgo @@ed\t010\nbad\n", encoding="utf-8")
    status, out, _ = run(capsys, "evaluate", "-m", model_file, "--gold", gold,
                         "--gold-format", "sigmorphon")
    assert status == 0
    morphology, gold_files = out.split("Morphology\n")[1].split("\n\nGold files\n")
    head, row = morphology.splitlines()[:2]
    # Morphology: 3 entries (every line), 1 evaluated, 1 skipped (not spelling the word)
    assert head.split()[2:5] == ["entries", "evaluated", "skipped"]
    assert row.split()[1:4] == ["3", "1", "1"]
    # Gold files: 1 usable word, 1 malformed line, 1 not spelling the word
    head, row = gold_files.splitlines()[:2]
    assert head.split()[2:5] == ["usable", "words", "malformed"]
    assert row.split()[1:4] == ["1", "1", "1"]


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


@pytest.mark.parametrize("argv, says, status", [
    ((), "nothing to evaluate", 2),
    (("--parallel", "X"), "--parallel needs --reference", 2),
    (("--text", "absent.txt"), "absent.txt: no such file", 1),
])
def test_usage_errors(capsys, model_file, argv, says, status):
    got, out, err = run(capsys, "evaluate", "-m", model_file, *argv)
    assert got == status and out == "" and says in err and err.count("\n") == 1


def test_a_gold_file_of_malformed_lines_is_one_line_naming_file_and_line(capsys, tmp_path,
                                                                          model_file):
    gold = tmp_path / "bad.tsv"
    gold.write_text("right\tr ight x\nwrong\tw rang\n", encoding="utf-8")
    status, _, err = run(capsys, "evaluate", "-m", model_file, "--gold", gold)
    assert status == 1 and f"{gold} line 1:" in err and err.count("\n") == 1


def test_malformed_gold_lines_are_skipped_and_named_in_json_and_table(capsys, tmp_path,
                                                                      model_file):
    gold = tmp_path / "some_bad.tsv"
    gold.write_text("walked\twalk ed\nwrong\tw rang\nhappy\thappy\n", encoding="utf-8")
    status, out, err = run(capsys, "evaluate", "-m", model_file, "--gold", gold, "--json")
    assert status == 0, err
    report = json.loads(out)["gold"]["some_bad.tsv"]
    assert report["words"] == 2 and report["malformed"] == 1
    assert report["malformed_lines"] == [
        {"line": 2, "reason": "the morphs of 'w rang' do not concatenate to 'wrong' with any "
                              "of the separators ' ' '/' '+' '-'"}]
    assert json.loads(out)["morphology"]["some_bad.tsv"]["words"] == 3
    status, out, err = run(capsys, "evaluate", "-m", model_file, "--gold", gold)
    assert status == 0
    assert "Gold files" in out and f"1 malformed line skipped ({gold} line 2:" in out


def test_as_a_process(model_file):
    out = subprocess.run([sys.executable, "-m", "bpe_desktop", "evaluate", "-m",
                          str(model_file), "--text", str(DATA / "udhr" / "deu.txt"), "--json"],
                         capture_output=True, text=True, check=True)
    assert json.loads(out.stdout)["text"]["words"] > 1000


def test_a_gold_in_another_spelling_is_warned_about_and_mapped(capsys, tmp_path):
    turkish = tmp_path / "tur.json"
    save_model(train(Corpus.from_files([str(DATA / "udhr" / "tur.txt")]),
                     TrainConfig.preset("subword-nmt", vocab_size=400)).model, turkish)
    gold = DATA / "morph" / "tur.morpho-challenge.txt"
    status, out, err = run(capsys, "evaluate", "-m", turkish, "--gold", gold)
    assert status == 0 and "another spelling" in err and err.count("\n") == 1
    assert "Gold files" in out and "11 (91.7%)" in out and "'I' ×8" in out
    status, out, err = run(capsys, "evaluate", "-m", turkish, "--gold", gold, "--json",
                           "--char-map", "morpho-challenge-turkish")
    assert status == 0 and err == ""
    report = json.loads(out)["gold"][gold.name]
    assert report["words_with_unseen_characters"] == 0 and report["warning"] == ""
    assert report["words_in_training"] == 11 and report["character_mapping"]["S"] == "ş"
    status, out, err = run(capsys, "evaluate", "-m", turkish, "--gold", gold,
                           "--char-map", "C=ç,I")
    assert status == 2 and "pair 2" in err and err.count("\n") == 1


def test_each_text_is_a_column_and_parity_shows_unknown_rates(capsys, model_file):
    texts = [DATA / "udhr" / "eng.txt", DATA / "udhr" / "deu.txt"]
    status, out, err = run(capsys, "evaluate", "-m", model_file, "--text", *texts[:1],
                           "--text", texts[1], "--parallel", *texts, DATA / "udhr" / "rus.txt",
                           "--reference", texts[0])
    assert status == 0, err
    text_table = out.split("Text\n", 1)[1].split("\n\n", 1)[0].splitlines()
    assert text_table[0].split() == ["measure", "eng.txt", "deu.txt", "all", "texts"]
    assert len(text_table[1].split()) == 4  # tokens: one value per text and the total
    parity = out.split("Parity (document)\n", 1)[1].splitlines()
    assert parity[0].split()[:4] == ["file", "tokens", "parity", "unknown"]
    assert "many unknown" in next(ln for ln in parity if ln.startswith("rus.txt"))
    assert "many unknown" not in next(ln for ln in parity if ln.startswith("eng.txt"))


def test_parallel_files_of_one_name_in_language_folders(capsys, tmp_path, model_file):
    files = {}
    for folder, source in (("en", "eng"), ("de", "deu"), ("fr", "fra")):
        (tmp_path / folder).mkdir()
        files[folder] = tmp_path / folder / "udhr.txt"
        files[folder].write_bytes((DATA / "udhr" / f"{source}.txt").read_bytes())
    status, out, err = run(capsys, "evaluate", "-m", model_file, "--parallel", files["de"],
                           files["fr"], "--reference", files["en"])
    assert status == 0, err
    parity = out.split("Parity (document)\n", 1)[1].splitlines()
    assert [ln.split()[0] for ln in parity[1:4]] == ["en/udhr.txt", "de/udhr.txt",
                                                     "fr/udhr.txt"]
    status, out, err = run(capsys, "evaluate", "-m", model_file, "--parallel", files["de"],
                           tmp_path / "fr" / ".." / "de" / "udhr.txt", "--reference",
                           files["en"])
    assert status == 1 and out == "" and "given twice" in err and err.count("\n") == 1
