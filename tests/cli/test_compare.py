"""``bpe-desktop compare``, ``encode --dropout/--seed`` and ``export --dropout``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bpe_desktop.core import Corpus, TrainConfig, save_model, train
from bpe_desktop.core.formats import export_model
from tests.cli.support import run

BOTCHAN = Path(__file__).resolve().parents[2] / "bpe_desktop/resources/examples/botchan.txt"


@pytest.fixture(scope="module")
def toy():
    return train(Corpus.from_word_counts({"low": 5, "lower": 2, "newest": 6, "widest": 3,
                                          "happier": 2}), TrainConfig(merges=10)).model


@pytest.fixture
def files(tmp_path, toy):
    full, short, text = tmp_path / "full.json", tmp_path / "short.json", tmp_path / "t.txt"
    save_model(toy, full)
    save_model(toy.truncated(3), short)
    text.write_text("lowest newer\nwidest low lowest\n", encoding="utf-8")
    return full, short, text


def test_json_pair_summary_of_two_truncations(capsys, files):
    full, short, text = files
    status, out, err = run(capsys, "compare", "-m", full, "-m", short, "--text", text,
                           "--json")
    assert status == 0 and err == ""
    pair = json.loads(out)["pairs"][0]
    # hand-computed in tests/core/comparison/test_alignment.py
    assert (pair["a"], pair["b"]) == ("full.json", "short.json")
    assert pair["agreement_precision"] == pytest.approx(6 / 15)
    assert pair["agreement_recall"] == 1.0
    assert pair["agreement_f1"] == pytest.approx(0.8 / 1.4)
    assert pair["identical_words"] == pytest.approx(0.2)
    assert (pair["tokens_a"], pair["tokens_b"]) == (12, 22)
    assert pair["overlap"] == {"both": 15, "only_a": 6, "only_b": 0}


def test_tables_name_every_tokenizer_and_pair(capsys, files):
    full, short, text = files
    status, out, _ = run(capsys, "compare", "-m", full, "-m", short, "-m", full,
                         "--text", text)
    assert status == 0
    assert "full.json #1" in out and "full.json #3" in out
    assert "fertility" in out and "0.4000" in out  # precision of full -> short


def test_imported_format_against_its_source_agrees_fully(capsys, tmp_path):
    model = train(Corpus.from_files([str(BOTCHAN)]),
                  TrainConfig.preset("sentencepiece", vocab_size=500)).model
    ours, spm = tmp_path / "m.json", tmp_path / "m.model"
    save_model(model, ours)
    export_model(model, "sentencepiece", spm)
    status, out, _ = run(capsys, "compare", "-m", ours, "-m", spm, "--format", "model",
                         "--format", "sentencepiece", "--text", BOTCHAN, "--json")
    assert status == 0
    pair = json.loads(out)["pairs"][0]
    assert pair["agreement_f1"] == 1.0 and pair["identical_words"] == 1.0
    assert pair["overlap"]["only_a"] == pair["overlap"]["only_b"] == 0


@pytest.mark.parametrize("argv, message", [
    (["-m", "{full}"], "2 to 4 models"),
    (["-m", "{full}", "-m", "{short}", "--format", "model", "--format", "hf",
      "--format", "hf"], "one --format"),
    (["-m", "{full}", "-m", "{missing}"], "no such file"),
])
def test_bad_arguments_are_named(capsys, files, tmp_path, argv, message):
    full, short, text = files
    names = {"full": full, "short": short, "missing": tmp_path / "nope.json"}
    status, _, err = run(capsys, "compare", *[a.format(**names) for a in argv],
                         "--text", text)
    assert status != 0 and message in err


def test_bad_text_names_file_and_line(capsys, files, tmp_path):
    full, short, _ = files
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"low\nlow \xff\n")
    status, _, err = run(capsys, "compare", "-m", full, "-m", short, "--text", bad)
    assert status != 0 and "bad.txt line 2" in err and "Traceback" not in err


def test_encode_dropout_is_reproducible_and_decodes(capsys, tmp_path):
    model = train(Corpus.from_files([str(BOTCHAN)]),
                  TrainConfig.preset("subword-nmt", merges=400)).model
    path, text = tmp_path / "m.json", tmp_path / "t.txt"
    save_model(model, path)
    lines = BOTCHAN.read_text(encoding="utf-8").splitlines()[20:30]
    text.write_text("\n".join(lines) + "\n", encoding="utf-8")
    plain = run(capsys, "encode", "-m", path, text)[1]
    assert run(capsys, "encode", "-m", path, "--dropout", "0", text)[1] == plain
    first = run(capsys, "encode", "-m", path, "--dropout", "0.3", "--seed", "5", text)[1]
    again = run(capsys, "encode", "-m", path, "--dropout", "0.3", "--seed", "5", text)[1]
    other = run(capsys, "encode", "-m", path, "--dropout", "0.3", "--seed", "6", text)[1]
    assert first == again != other != plain
    assert len(first.split()) > len(plain.split())
    tok = model.tokenizer()
    for line, pieces in zip(lines, first.splitlines()):
        assert tok.decode_pieces(pieces.split()) == " ".join(line.split())
    ids = run(capsys, "encode", "-m", path, "--dropout", "0.3", "--seed", "5", "--ids",
              text)[1]
    assert [[tok.id_to_piece(int(i)) for i in ln.split()] for ln in ids.splitlines()] == \
        [ln.split() for ln in first.splitlines()]
    single = run(capsys, "encode", "-m", path, "--dropout", "1", text)[1]
    assert single == run(capsys, "encode", "-m", _saved(model.truncated(0), tmp_path),
                         text)[1]


@pytest.mark.parametrize("argv", [["--dropout", "0", "--seed", "7"], ["--seed", "7"]])
def test_encode_dropout_zero_with_a_seed_is_plain_encoding(capsys, files, argv):
    # a script sweeping p from 0 passes the same seed at every p
    full, _, text = files
    plain = run(capsys, "encode", "-m", full, "--ids", text)
    status, out, err = run(capsys, "encode", "-m", full, "--ids", *argv, text)
    assert (status, err) == (0, "") and out == plain[1] and out.strip()


def _saved(model, tmp_path):
    path = tmp_path / "none.json"
    save_model(model, path)
    return path


@pytest.mark.parametrize("argv, message", [
    (["--dropout", "1.5"], "from 0 to 1"),
    (["--dropout", "0.2", "--mode", "greedy"], "merges only"),
])
def test_encode_dropout_bad_arguments(capsys, files, argv, message):
    full, _, text = files
    status, _, err = run(capsys, "encode", "-m", full, *argv, text)
    assert status != 0 and message in err


def test_export_hf_carries_dropout(capsys, tmp_path):
    model = train(Corpus.from_files([str(BOTCHAN)]),
                  TrainConfig.preset("subword-nmt", merges=300)).model
    path = tmp_path / "m.json"
    save_model(model, path)
    out = tmp_path / "tokenizer.json"
    status, stdout, _ = run(capsys, "export", "-m", path, "--format", "hf", "--dropout",
                            "0.25", "-o", out, "--verify", BOTCHAN, "--verify-lines", "200")
    assert status == 0 and "100%" in stdout
    assert json.loads(out.read_text(encoding="utf-8"))["model"]["dropout"] == 0.25
    from tokenizers import Tokenizer

    peer = Tokenizer.from_file(str(out))
    assert peer.model.dropout == pytest.approx(0.25)
    # p = 1 is deterministic: Hugging Face and BPE Desktop both give the symbols
    status, _, _ = run(capsys, "export", "-m", path, "--format", "hf", "--dropout", "1",
                       "-o", out)
    peer = Tokenizer.from_file(str(out))
    line = BOTCHAN.read_text(encoding="utf-8").splitlines()[40]
    assert peer.encode(line).ids == model.tokenizer().encode(line, dropout=1.0, seed=0)
    status, _, err = run(capsys, "export", "-m", path, "--format", "subword-nmt",
                         "--dropout", "0.1", "-o", tmp_path / "codes")
    assert status != 0 and "--dropout is an option of --format hf" in err


def test_compare_on_a_parallel_set_shows_each_languages_cost(capsys, tmp_path):
    from tests.cli.support import handmade_model

    merged, bare = tmp_path / "merged.json", tmp_path / "bare.json"
    save_model(handmade_model(), merged)
    save_model(handmade_model().truncated(0), bare)
    (tmp_path / "en.txt").write_text("low\nlower\n", encoding="utf-8")
    (tmp_path / "de.txt").write_text("ole ole\nr\n", encoding="utf-8")
    dev = ["--parity-dev", f"en={tmp_path / 'en.txt'}", f"de={tmp_path / 'de.txt'}"]
    status, out, err = run(capsys, "compare", "-m", merged, "-m", bare, *dev)
    assert status == 0, err
    # Tokens per line (hand-counted in tests/core/comparison/test_parity_pair.py).
    assert "Languages (tokens per line of the parallel set)" in out
    rows = {line.split()[0]: line.split()[1:] for line in out.splitlines() if line.strip()}
    assert rows["en"] == ["2.50", "5.00"] and rows["de"] == ["5.00", "5.00"]
    assert rows["max/min"] == ["2.000", "1.000"]
    status, out, _ = run(capsys, "compare", "-m", merged, "-m", bare, *dev,
                         "--parity-dev-documents", "--json")
    languages = json.loads(out)["languages"]
    assert languages["unit"] == "document"
    assert languages["tokenizers"][0]["cost_per_unit"] == {"en": 5.0, "de": 10.0}
    # With --text the comparison runs on the text and the costs on the parallel set.
    (tmp_path / "t.txt").write_text("low low\n", encoding="utf-8")
    status, out, _ = run(capsys, "compare", "-m", merged, "-m", bare, *dev, "--json",
                         "--text", tmp_path / "t.txt")
    result = json.loads(out)
    assert result["pairs"][0]["tokens_a"] == 4
    assert result["languages"]["tokenizers"][1]["tokens"] == {"en": 10, "de": 10}


def test_a_parallel_table_with_an_empty_language_column_is_refused(capsys, files, tmp_path):
    """A language without text costs no tokens: its max/min ratio would be infinite, which
    no JSON can hold. The column is refused, as an empty development file is."""
    from tests.cli.support import assert_one_error_line

    full, short, _ = files
    table = tmp_path / "dev.tsv"
    table.write_text("en\tde\nlowest newer\t \nwidest\t\n", encoding="utf-8")
    status, out, err = run(capsys, "compare", "-m", full, "-m", short, "--parity-dev",
                           table, "--json")
    assert status == 1 and out == ""
    assert_one_error_line(err, f"{table}: the column 'de' has no text")


def test_compare_needs_a_text_or_a_parallel_set(capsys, files):
    from tests.cli.support import assert_one_error_line

    full, short, _ = files
    status, _, err = run(capsys, "compare", "-m", full, "-m", short)
    assert status != 0
    assert_one_error_line(err, "--text FILE", "--parity-dev")
    status, _, err = run(capsys, "compare", "-m", full, "-m", short, "--parity-dev",
                         "en=missing.txt")
    assert status != 0
    assert_one_error_line(err, "missing.txt: no such development file")


def test_compare_lists_the_languages_in_the_order_they_were_trained(capsys, tmp_path):
    """The model was trained on German, then English; the parallel set names English
    first: the table and --json list de, then en, then a language it was not trained on."""
    import dataclasses

    from tests.cli.support import handmade_model

    model = handmade_model()
    trained = dataclasses.replace(model, config=model.config.replace(
        lang=(f"de={tmp_path / 'train.de'}", f"en={tmp_path / 'train.en'}")))
    merged, bare = tmp_path / "merged.json", tmp_path / "bare.json"
    save_model(trained, merged)
    save_model(model.truncated(0), bare)
    for code, text in (("en", "low\nlower\n"), ("de", "ole ole\nr\n"), ("fr", "ro\nel\n")):
        (tmp_path / f"{code}.txt").write_text(text, encoding="utf-8")
    dev = ["--parity-dev", *(f"{c}={tmp_path / c}.txt" for c in ("fr", "en", "de"))]
    for models in (("-m", merged, "-m", bare), ("-m", bare, "-m", merged)):
        status, out, err = run(capsys, "compare", *models, *dev)
        assert status == 0, err
        rows = [line.split()[0] for line in out.split("Languages (")[1].splitlines()[2:]]
        assert rows[:3] == ["de", "en", "fr"], out
        status, out, _ = run(capsys, "compare", *models, *dev, "--json")
        languages = json.loads(out)["languages"]
        assert languages["languages"] == ["de", "en", "fr"]
        assert list(languages["tokenizers"][0]["tokens"]) == ["de", "en", "fr"]
