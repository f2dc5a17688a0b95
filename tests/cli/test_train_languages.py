"""bpe-desktop train with languages: --lang per language, balancing (--temperature,
--weight), parity-aware training (--parity-dev, --parity-dev-documents, --parity-window)
with every preset; the model file records it all; bad input is one error line naming the
file."""

from __future__ import annotations

import pytest

from bpe_desktop.core.model_file import load_model
from tests.cli.support import assert_one_error_line, run
from tests.shared_data import DATA_DIR, corpus_path

UD = {"en": corpus_path("ud_english.txt"), "de": corpus_path("ud_german.txt"),
      "ru": corpus_path("ud_russian.txt")}
UDHR = {"en": DATA_DIR / "udhr" / "eng.txt", "de": DATA_DIR / "udhr" / "deu.txt",
        "ru": DATA_DIR / "udhr" / "rus.txt"}
#: Line-aligned development lines (the same sentence in each language).
PARALLEL = {"en": ["All human beings are born free.", "Everyone has the right to life."],
            "de": ["Alle Menschen sind frei geboren.", "Jeder hat das Recht auf Leben."],
            "ru": ["Все люди рождаются свободными.", "Каждый человек имеет право на жизнь."]}


def lang_args():
    return [a for code, path in UD.items() for a in ("--lang", f"{code}={path}")]


def test_temperature_one_equals_training_on_the_concatenated_files(capsys, tmp_path):
    plain, balanced = tmp_path / "plain.json", tmp_path / "t1.json"
    assert run(capsys, "train", *UD.values(), "--merges", "300", "-o", plain, "-q")[0] == 0
    status, out, err = run(capsys, "train", *lang_args(), "--temperature", "1",
                           "--merges", "300", "-o", balanced)
    assert status == 0, err
    assert load_model(balanced).merges == load_model(plain).merges
    assert "en: share" in out and "de: share" in out
    assert load_model(balanced).config.temperature == 1.0


@pytest.mark.parametrize("preset", ["sennrich", "subword-nmt", "gpt2", "sentencepiece"])
def test_parity_aware_training_with_every_preset(capsys, tmp_path, preset):
    model = tmp_path / "m.json"
    dev = [f"{code}={path}" for code, path in UDHR.items()]
    status, out, err = run(capsys, "train", *lang_args(), "--temperature", "3",
                           "--parity-dev", *dev, "--parity-dev-documents",
                           "--parity-window", "50", "--preset", preset, "--merges", "200",
                           "-o", model)
    assert status == 0, err
    config = load_model(model).config
    assert config.parity_dev == tuple(dev) and config.parity_dev_documents
    assert config.parity_window == 50
    lines = [line for line in out.splitlines() if "development tokens" in line]
    assert [line.split(":")[0] for line in lines] == ["en", "de", "ru"]
    chose = [int(line.rsplit("chose ", 1)[1].split()[0].replace(",", "")) for line in lines]
    assert sum(chose) == len(load_model(model).merges) == 200
    # whole documents are compared by their tokens, not per line of each translation
    assert not any("per line" in line for line in lines)


def test_the_configuration_line_and_info_name_the_languages_and_their_balance(
        capsys, tmp_path):
    model = tmp_path / "m.json"
    dev = [f"{code}={path}" for code, path in UDHR.items()]
    status, _, err = run(capsys, "train", *lang_args(), "--weight", "en=1", "de=2", "ru=1",
                         "--parity-dev", *dev, "--parity-dev-documents", "--merges", "50",
                         "-o", model)
    assert status == 0, err
    described = (f"languages: en, de, ru (weights en=1, de=2, ru=1; parity-aware on "
                 f"{', '.join(dev)}, measure tokens, whole documents)")
    assert described in err.splitlines()[0]
    status, info, _ = run(capsys, "info", "-m", model)
    assert status == 0
    assert f"languages:      {described.removeprefix('languages: ')}\n" in info, info
    assert run(capsys, "train", UD["en"], "--merges", "50", "-o", model, "-q")[0] == 0
    assert "languages" not in run(capsys, "info", "-m", model)[1]


def test_line_aligned_development_files(capsys, tmp_path):
    dev = []
    for code, lines in PARALLEL.items():
        (tmp_path / f"{code}.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
        dev.append(f"{code}={tmp_path / f'{code}.txt'}")
    status, out, err = run(capsys, "train", *lang_args(), "--parity-dev", *dev,
                           "--merges", "100", "-o", tmp_path / "m.json")
    assert status == 0, err
    assert "per line" in out


def test_a_folder_of_development_files_named_by_language(capsys, tmp_path):
    folder = tmp_path / "dev"
    folder.mkdir()
    for code, lines in PARALLEL.items():
        (folder / f"{code}.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    status, _, err = run(capsys, "train", *lang_args(), "--parity-dev", folder,
                         "--merges", "50", "-o", tmp_path / "m.json")
    assert status == 0, err


@pytest.mark.parametrize("extra, words", [
    (["--weight", "en=1", "de=0", "ru=1"], ["weight of 'de'", "ud_german.txt", "more than 0"]),
    (["--parity-dev", f"en={UDHR['en']}", f"de={UDHR['de']}", f"ru={UDHR['ru']}"],
     ["deu.txt", "lines, but", "eng.txt", "--parity-dev-documents"]),
    (["--parity-dev", f"en={UDHR['en']}", "--parity-dev-documents"],
     ["language 'de'", "ud_german.txt", "no development file (--parity-dev)"]),
])
def test_bad_input_is_one_error_line_naming_the_file(capsys, tmp_path, extra, words):
    status, _, err = run(capsys, "train", *lang_args(), *extra, "-o", tmp_path / "m.json")
    assert status != 0
    assert_one_error_line(err, *words)
    assert not (tmp_path / "m.json").exists()


def test_parity_aware_training_with_protected_strings_is_refused_before_training(
        capsys, tmp_path):
    protect = tmp_path / "protect.txt"
    protect.write_text("New York\n", encoding="utf-8")
    dev = [f"{code}={path}" for code, path in UDHR.items()]
    status, _, err = run(capsys, "train", *lang_args(), "--parity-dev", *dev,
                         "--parity-dev-documents", "--protect", protect, "--merges", "50",
                         "-o", tmp_path / "m.json")
    assert status != 0
    assert_one_error_line(err, "parity-aware training cannot be combined", "protected strings")
    assert not (tmp_path / "m.json").exists()


@pytest.mark.parametrize("flag", [["--parity-window", "50"], ["--parity-dev-documents"],
                                  ["--parity-measure", "tokens-per-character"]])
def test_parity_options_without_a_development_set_are_refused(capsys, tmp_path, flag):
    status, _, err = run(capsys, "train", *lang_args(), *flag, "--merges", "20",
                         "-o", tmp_path / "m.json")
    assert status != 0
    assert_one_error_line(err, flag[0], "needs --parity-dev")
    assert not (tmp_path / "m.json").exists()


def test_help_on_the_development_set_leaves_the_measure_to_parity_measure(capsys):
    """The default measure is the token count, so --parity-dev may not name another."""
    _, out, _ = run(capsys, "train", "--help")
    text = " ".join(out.split())
    start = text.index("--parity-dev CODE=PATH [CODE=PATH ...] Parity-aware")
    dev = text[start:text.index("--parity-measure {", start)]
    assert "as the parity measure says" in dev and "per character" not in dev


def test_encoding_errors_replace_reads_each_language_with_replacement_characters(
        capsys, tmp_path):
    bad = tmp_path / "en.txt"
    bad.write_bytes(b"caf\xe9 au lait\n" * 10)
    status, _, err = run(capsys, "train", "--lang", f"en={bad}", f"de={UD['de']}",
                         "--encoding-errors", "replace", "--merges", "20",
                         "-o", tmp_path / "m.json", "-q")
    assert status == 0, err
    model = load_model(tmp_path / "m.json")
    assert "\ufffd" in model.alphabet and model.corpus.encoding_errors == "replace"


@pytest.mark.parametrize("errors", ["strict", "replace"])
def test_a_development_file_with_invalid_utf8_is_one_error_line_naming_file_and_line(
        capsys, tmp_path, errors):
    """Replacement characters are for the corpus: a development text is read strictly."""
    dev = {code: tmp_path / f"{code}.txt" for code in UD}
    for code, path in dev.items():
        path.write_text("\n".join(PARALLEL[code]) + "\n", encoding="utf-8")
    dev["de"].write_bytes(b"Alle Menschen\nJeder hat das Recht auf \xc4rger\n")
    status, _, err = run(capsys, "train", *lang_args(), "--parity-dev",
                         *(f"{code}={path}" for code, path in dev.items()),
                         "--encoding-errors", errors, "--merges", "20",
                         "-o", tmp_path / "m.json")
    assert status != 0
    assert_one_error_line(err, f"{dev['de']} line 2: not valid UTF-8 (byte 25 of the line)")
    assert not (tmp_path / "m.json").exists()


def test_files_and_languages_together_are_refused(capsys, tmp_path):
    status, _, err = run(capsys, "train", UD["en"], *lang_args(), "-o", tmp_path / "m.json")
    assert status != 0
    assert_one_error_line(err, "either as files or as --lang")


@pytest.mark.parametrize("preset", ["sennrich", "gpt2"])
def test_word_count_tables_per_language_train_as_their_texts(capsys, tmp_path, preset):
    tables = []
    for code, path in UD.items():
        table = tmp_path / f"{code}.tsv"
        assert run(capsys, "count", path, "-o", table, "--preset", preset)[0] == 0
        tables += ["--lang", f"{code}={table}"]
    dev = [f"{code}={path}" for code, path in UDHR.items()]
    common = ["--preset", preset, "--merges", "150", "--parity-dev", *dev,
              "--parity-dev-documents"]
    status, _, err = run(capsys, "train", "--word-counts", *tables, *common,
                         "-o", tmp_path / "tables.json")
    assert status == 0, err
    status, _, err = run(capsys, "train", *lang_args(), *common, "-o", tmp_path / "text.json")
    assert status == 0, err
    assert load_model(tmp_path / "tables.json").merges == \
        load_model(tmp_path / "text.json").merges
