"""``bpe-desktop extend`` and ``trim`` end to end on peer-built tokenizers, and bad input:
one error line, exit 1, nothing written."""

from __future__ import annotations

import hashlib
import json
import shlex

import pytest
import sentencepiece as spm

from tests.cli.support import assert_one_error_line, run
from tests.peer_sources import (
    english_lines,
    roberta_style,
    russian_and_held_out_files,
    sentencepiece_bpe,
)


@pytest.fixture(scope="module")
def sources(tmp_path_factory):
    folder = tmp_path_factory.mktemp("adapt-cli")
    return {"vocab": roberta_style(folder), "sp": sentencepiece_bpe(folder),
            **russian_and_held_out_files(folder)}


def test_extend_gpt2_files_verified_with_a_report(capsys, tmp_path, sources):
    status, out, err = run(capsys, "extend", "-m", sources["vocab"], sources["corpus"],
                           "--merges", 300, "-o", tmp_path / "out", "--verify",
                           sources["held_ru"], sources["held_en"], "--held-out",
                           sources["held_ru"], "-q")
    assert status == 0, err
    original = json.loads(sources["vocab"].read_text(encoding="utf-8"))
    written = json.loads((tmp_path / "out-vocab.json").read_text(encoding="utf-8"))
    assert {p: written[p] for p in original} == original and len(written) == 1800
    assert out == ""  # -q


def test_extend_reports_new_characters_and_the_before_after_table(capsys, tmp_path, sources):
    status, out, err = run(capsys, "extend", "-m", sources["sp"], "--format", "sentencepiece",
                           sources["corpus"], "--vocab-size", 1400, "-o", tmp_path / "x.model",
                           "--verify", sources["held_ru"], "--held-out", sources["held_en"])
    assert status == 0, err
    assert "new characters: " in out and "'я'" in out
    assert "verified on" in out and ": 100%" in out
    assert "lines with identical ids" in out and "tokens per word" in out
    assert spm.SentencePieceProcessor(model_file=str(tmp_path / "x.model")).vocab_size() \
        == 1400


def test_extend_to_a_transformers_folder(capsys, tmp_path, sources):
    status, out, err = run(capsys, "extend", "-m", sources["vocab"], sources["corpus"],
                           "--merges", 50, "--out-format", "transformers", "-o",
                           tmp_path / "tf", "--verify", sources["held_ru"])
    assert status == 0, err
    assert "with transformers" in out
    assert (tmp_path / "tf" / "tokenizer_config.json").is_file()


@pytest.mark.parametrize("out_format, written", [
    ("gpt2", ("vocab.json", "merges.txt")),
    ("transformers", ("tokenizer.json", "tokenizer_config.json", "special_tokens_map.json")),
])
def test_extend_and_trim_write_into_a_folder_that_exists(capsys, tmp_path, sources,
                                                         out_format, written):
    for command, work in (("extend", [sources["corpus"], "--merges", 20]),
                          ("trim", ["--text", sources["held_en"],
                                    "--id-map", tmp_path / "map.json"])):
        folder = tmp_path / command
        folder.mkdir()
        status, _, err = run(capsys, command, "-m", sources["vocab"], *work, "--out-format",
                             out_format, "-o", folder, "-q")
        assert status == 0, err
        assert all((folder / name).is_file() for name in written)


def test_a_gpt2_prefix_names_the_source_and_it_is_never_overwritten(capsys, tmp_path,
                                                                      sources):
    prefix = str(sources["vocab"])[: -len("-vocab.json")]
    before = sources["vocab"].read_bytes()
    status, _, err = run(capsys, "import", "--format", "gpt2", prefix, "-o",
                         tmp_path / "m.json", "-q")
    assert status == 0, err
    status, _, err = run(capsys, "extend", "-m", prefix, sources["corpus"], "--merges", 20,
                         "-o", tmp_path / "out", "-q")
    assert status == 0, err
    assert (tmp_path / "out-vocab.json").is_file()
    status, _, err = run(capsys, "extend", "-m", prefix, sources["corpus"], "--merges", 20,
                         "-o", prefix, "-q")
    assert status == 1
    assert_one_error_line(err, "roberta-vocab.json", "is also the source tokenizer")
    assert sources["vocab"].read_bytes() == before


def test_a_run_from_a_gpt2_prefix_records_both_files(capsys, tmp_path, sources):
    prefix = str(sources["vocab"])[: -len("-vocab.json")]
    project = tmp_path / "p.bpeproj"
    status, _, err = run(capsys, "extend", "-m", prefix, sources["corpus"], "--merges", 20,
                         "-o", tmp_path / "out", "-q", "--project", project)
    assert status == 0, err
    _, printed, _ = run(capsys, "history", project, "--json")
    (recorded,) = json.loads(printed)["runs"]
    assert [(i["path"], i["sha256"]) for i in recorded["inputs"] if i["role"] == "model"] \
        == [(f"{prefix}-{name}", _sha256(f"{prefix}-{name}"))
            for name in ("vocab.json", "merges.txt")]


def test_extend_patches_a_tokenizer_json_keeping_its_post_processor(capsys, tmp_path,
                                                                    sources):
    from tokenizers import ByteLevelBPETokenizer, processors

    tok = ByteLevelBPETokenizer(str(sources["vocab"]),
                                str(sources["vocab"]).replace("vocab.json", "merges.txt"))
    tok.post_processor = processors.RobertaProcessing(("</s>", 2), ("<s>", 0))
    tok.save(str(tmp_path / "tokenizer.json"))
    status, _, err = run(capsys, "extend", "-m", tmp_path / "tokenizer.json",
                         sources["corpus"], "--merges", 40, "-o", tmp_path / "out.json",
                         "--verify", sources["held_en"], "-q")
    assert status == 0, err
    written = json.loads((tmp_path / "out.json").read_text(encoding="utf-8"))
    source = json.loads((tmp_path / "tokenizer.json").read_text(encoding="utf-8"))
    assert written["post_processor"]["type"] == "RobertaProcessing"
    assert written["post_processor"] == source["post_processor"]
    assert len(written["model"]["merges"]) == len(tok.get_vocab()) - 256 - 5 + 40


def test_extend_into_named_ids_from_a_file(capsys, tmp_path, sources):
    ids = tmp_path / "ids.txt"
    ids.write_text("# rows 2000-2099 are free in the embedding matrix\n2000-2099\n",
                   encoding="utf-8")
    status, _, err = run(capsys, "extend", "-m", sources["vocab"], sources["corpus"],
                         "--merges", 100, "--new-ids", ids, "-o", tmp_path / "out",
                         "--verify", sources["held_ru"], "-q")
    assert status == 0, err
    written = json.loads((tmp_path / "out-vocab.json").read_text(encoding="utf-8"))
    new = sorted(i for p, i in written.items() if not p.startswith("<reserved_"))[1500:]
    assert new == list(range(2000, 2100)) and written["<reserved_1999>"] == 1999
    status, out, err = run(capsys, "extend", "-m", sources["vocab"], sources["corpus"],
                           "--merges", 10, "--new-ids", "1600-", "-o", tmp_path / "o2")
    assert status == 0, err
    assert "new tokens at ids 1,600 ... 1,609; 100 ids left free before them are " \
        "reserved tokens" in out


@pytest.mark.parametrize("ids, message", [
    ("1400-", "1400 is already the token"),
    ("2000-2009", "10 ids are named, but the extension needs up to 100"),
    ("2000-1990", "ends before it starts"),
])
def test_bad_new_ids_get_one_line_and_nothing_is_written(capsys, tmp_path, sources, ids,
                                                         message):
    status, _, err = run(capsys, "extend", "-m", sources["vocab"], sources["corpus"],
                         "--merges", 100, "--new-ids", ids, "-o", tmp_path / "out")
    assert status == 1
    assert_one_error_line(err, message)
    assert not list(tmp_path.iterdir())


def test_extend_keeping_unseen_characters_as_bytes(capsys, tmp_path, sources):
    sp = sentencepiece_bpe(tmp_path, byte_fallback=True)
    status, out, err = run(capsys, "extend", "-m", sp, sources["corpus"], "--merges", 50,
                           "--unknown", "bytes", "-o", tmp_path / "b.model", "--verify",
                           sources["held_ru"], sources["held_en"])
    assert status == 0, err
    assert "characters spelled in byte tokens (byte fallback)" in out and ": 100%" in out
    status, _, err = run(capsys, "extend", "-m", sources["sp"], sources["corpus"],
                         "--merges", 50, "--unknown", "bytes", "-o", tmp_path / "c.model")
    assert status == 1
    assert_one_error_line(err, "the source has no byte fallback")
    assert not (tmp_path / "c.model").exists()


def test_extend_to_our_model_file(capsys, tmp_path, sources):
    status, _, err = run(capsys, "extend", "-m", sources["vocab"], sources["corpus"],
                         "--merges", 20, "--out-format", "model", "-o", tmp_path / "m.json",
                         "-q")
    assert status == 0, err
    from bpe_desktop.core.model_file import load_model

    assert load_model(tmp_path / "m.json").vocab_size == 1520


def test_trim_writes_the_model_and_both_maps(capsys, tmp_path, sources):
    status, out, err = run(capsys, "trim", "-m", sources["sp"], "--text", sources["held_en"],
                           "-o", tmp_path / "t.model", "--id-map", tmp_path / "map.json",
                           "--verify", sources["held_en"])
    assert status == 0, err
    mapping = json.loads((tmp_path / "map.json").read_text(encoding="utf-8"))
    trimmed = spm.SentencePieceProcessor(model_file=str(tmp_path / "t.model"))
    original = spm.SentencePieceProcessor(model_file=str(sources["sp"]))
    back = {new: int(old) for old, new in mapping.items()}
    for line in sources["held_en"].read_text(encoding="utf-8").splitlines():
        assert [back[i] for i in trimmed.encode(line)] == original.encode(line)
    assert (tmp_path / "map.csv").is_file() and "dropped" in out


def test_the_id_map_is_written_where_trim_help_says(capsys, tmp_path, sources):
    status, out, _ = run(capsys, "trim", "--help")  # argparse exits with 0 on --help
    assert "a MAP ending in .csv gets the CSV" in " ".join(out.split())
    for name, csv, json_map in (("map", "map.csv", "map"),
                                ("ids.csv", "ids.csv", "ids.json")):
        status, _, err = run(capsys, "trim", "-m", sources["sp"], "--text", sources["held_en"],
                             "-o", tmp_path / "t.model", "--id-map", tmp_path / name, "-q")
        assert status == 0, err
        assert (tmp_path / csv).read_text(encoding="utf-8").startswith("old_id,new_id,piece")
        assert isinstance(json.loads((tmp_path / json_map).read_text(encoding="utf-8")), dict)


def _unigram(folder):
    spm.SentencePieceTrainer.train(input=str(sources_text(folder)), model_prefix=str(
        folder / "uni"), vocab_size=300, model_type="unigram", minloglevel=2)
    return folder / "uni.model"


def sources_text(folder):
    path = folder / "en.txt"
    path.write_text("\n".join(english_lines()[:2000]) + "\n", encoding="utf-8")
    return path


def _hf_after_whitespace(folder, kind: str):
    """A tokenizer.json of ``kind`` (WordPiece, BPE) after HF's Whitespace pre-tokenizer
    (\\w+|[^\\w\\s]+, the quicktour's), which BPE Desktop only approximates (digits are
    letters there, not here)."""
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers

    tok = Tokenizer(getattr(models, kind)(unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    trainer = {"WordPiece": trainers.WordPieceTrainer, "BPE": trainers.BpeTrainer}[kind]
    tok.train([str(sources_text(folder))], trainer(
        vocab_size=300, special_tokens=["[UNK]"], show_progress=False))
    path = folder / f"{kind.lower()}.json"
    tok.save(str(path))
    return path


def _wordpiece(folder):
    return _hf_after_whitespace(folder, "WordPiece")


@pytest.mark.parametrize("make, words", [
    (_unigram, ("uni.model", "unigram")),
    (_wordpiece, ("wordpiece.json", "WordPiece")),
    (lambda folder: (folder / "notes.txt", (folder / "notes.txt").write_text("hello\n"))[0],
     ("notes.txt", "not a tokenizer")),
])
def test_bad_sources_get_one_line_and_nothing_is_written(capsys, tmp_path, sources, make,
                                                          words):
    source = make(tmp_path)
    status, _, err = run(capsys, "extend", "-m", source, sources["corpus"], "--merges", 5,
                         "-o", tmp_path / "out.json")
    assert status == 1
    assert_one_error_line(err, *words)
    assert not (tmp_path / "out.json").exists()


def _byte_level_adding_a_space(folder):
    """GPT-2's byte-level BPE that puts Ġ before the first word of every text too."""
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=True)
    tok.train([str(sources_text(folder))], trainers.BpeTrainer(
        vocab_size=400, initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False))
    tok.save(str(folder / "prefixed.json"))
    return folder / "prefixed.json"


def _sentencepiece_without_a_first_space(folder):
    spm.SentencePieceTrainer.train(input=str(sources_text(folder)), model_prefix=str(
        folder / "nodummy"), vocab_size=300, model_type="bpe", add_dummy_prefix=False,
        minloglevel=2)
    return folder / "nodummy.model"


def _tiktoken_with_gpt4s_pattern(folder):
    """Byte-level ranks whose settings give cl100k's pattern (digits in threes, ...)."""
    from bpe_desktop.core import Corpus, TrainConfig, train
    from bpe_desktop.core.formats import export_model

    model = train(Corpus.from_files([sources_text(folder)]),
                  TrainConfig.preset("gpt2", merges=100)).model
    ranks = export_model(model, "tiktoken", folder / "gpt4.tiktoken")[0]
    settings = folder / "gpt4.tiktoken.json"
    data = json.loads(settings.read_text(encoding="utf-8"))
    data["pat_str"] = (r"'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}+|\p{N}{1,3}|"
                       r" ?[^\s\p{L}\p{N}]++[\r\n]*|\s*[\r\n]|\s+(?!\S)|\s+")
    settings.write_text(json.dumps(data), encoding="utf-8")
    for checksums in folder.glob("gpt4.tiktoken*.sha256"):  # edited on purpose
        checksums.unlink()
    return ranks


@pytest.mark.parametrize("command", ["extend", "trim"])
@pytest.mark.parametrize("make, words", [
    (lambda folder: _hf_after_whitespace(folder, "BPE"), ("bpe.json", "Whitespace")),
    (_byte_level_adding_a_space, ("prefixed.json", "ByteLevel adds one")),
    (_sentencepiece_without_a_first_space, ("nodummy.model", "the source adds none")),
    (_tiktoken_with_gpt4s_pattern, ("gpt4.tiktoken.json", "not the source's pat_str")),
])
def test_a_source_whose_pre_tokenizer_is_approximated_is_refused(capsys, tmp_path, sources,
                                                                 command, make, words):
    source = make(tmp_path)
    work = (["--text", sources["held_en"], "--id-map", tmp_path / "map.json"]
            if command == "trim" else [sources["corpus"], "--merges", 5])
    status, _, err = run(capsys, command, "-m", source, *work, "-o", tmp_path / "out.json")
    assert status == 1
    assert_one_error_line(err, *words, "cannot cut text into words exactly")
    assert not (tmp_path / "out.json").exists() and not (tmp_path / "map.json").exists()


@pytest.mark.parametrize("content, words", [("", "is empty"), ("  \n\n", "no words")])
def test_an_empty_corpus_gets_one_line_and_nothing_is_written(capsys, tmp_path, sources,
                                                               content, words):
    corpus = tmp_path / "c.txt"
    corpus.write_text(content, encoding="utf-8")
    status, _, err = run(capsys, "extend", "-m", sources["sp"], corpus, "--merges", 5, "-o",
                         tmp_path / "out.model")
    assert status == 1
    assert_one_error_line(err, words)
    assert not (tmp_path / "out.model").exists()


@pytest.mark.parametrize("content", ["\n\n", "   \n\t\n  "], ids=["line-breaks", "spaces"])
def test_trim_with_an_empty_target_writes_nothing(capsys, tmp_path, sources, content):
    target = tmp_path / "t.txt"
    target.write_text(content, encoding="utf-8")
    status, _, err = run(capsys, "trim", "-m", sources["sp"], "--text", target, "-o",
                         tmp_path / "t.model", "--id-map", tmp_path / "m.json")
    assert status == 1
    assert_one_error_line(err, "empty", "t.txt")
    assert not (tmp_path / "t.model").exists() and not (tmp_path / "m.json").exists()


def test_extend_records_its_run_in_a_project(capsys, tmp_path, sources):
    project, out = tmp_path / "p.bpeproj", tmp_path / "m.json"
    status, _, err = run(capsys, "extend", "-m", sources["vocab"], sources["corpus"],
                         "--merges", 20, "--out-format", "model", "-o", out, "-q",
                         "--project", project)
    assert status == 0, err
    status, printed, err = run(capsys, "history", project, "--json")
    assert status == 0, err
    (extension,) = json.loads(printed)["runs"]
    assert extension["kind"] == "extend" and extension["status"] == "finished"
    assert extension["config"]["merges"] == 20 and extension["config"]["out_format"] == "model"
    assert sorted(i["role"] for i in extension["inputs"]) == ["corpus", "model"]
    assert extension["model"] == {"path": str(out), "stored": False,
                                  "sha256": _sha256(out)}
    metrics = {m["metric"]: m["value"] for m in extension["metrics"]}
    assert metrics["new_merges"] == 20 and metrics["vocab_size"] == 1520


def test_extend_stores_each_held_out_report_as_the_runs_metrics(capsys, tmp_path, sources):
    project, out = tmp_path / "p.bpeproj", tmp_path / "x.model"
    held = [sources["held_en"], sources["held_ru"]]
    status, _, err = run(capsys, "extend", "-m", sources["sp"], "--format", "sentencepiece",
                         sources["corpus"], "--vocab-size", 1400, "-o", out,
                         "--held-out", *held, "-q", "--project", project)
    assert status == 0, err
    status, printed, err = run(capsys, "history", project, "--json")
    assert status == 0, err
    (extension,) = json.loads(printed)["runs"]
    metrics = {(m["source"], m["metric"]): m["value"] for m in extension["metrics"]}
    _assert_held_out_metrics(metrics, sources["sp"], out, held)
    # the source knows no Cyrillic: its unknown pieces are what the extension removes
    ru = str(sources["held_ru"])
    assert metrics[ru, "unknown_rate"] < metrics[ru, "unknown_rate_before"]


def test_trim_records_its_run_with_each_held_out_report_as_metrics(capsys, tmp_path, sources):
    project, out = tmp_path / "p.bpeproj", tmp_path / "t.model"
    held = [sources["held_en"], sources["held_ru"]]
    status, _, err = run(capsys, "trim", "-m", sources["sp"], "--text", sources["held_en"],
                         "-o", out, "--id-map", tmp_path / "map.json", "--held-out", *held,
                         "-q", "--project", project)
    assert status == 0, err
    status, printed, err = run(capsys, "history", project, "--json")
    assert status == 0, err
    (trimming,) = json.loads(printed)["runs"]
    assert trimming["kind"] == "trim" and trimming["status"] == "finished"
    assert sorted(i["role"] for i in trimming["inputs"]) == ["model", "text"]
    # not a model file: kept, and no file of its own to check
    assert trimming["model"] == {"path": None, "stored": True, "sha256": None}
    metrics = {(m["source"], m["metric"]): m["value"] for m in trimming["metrics"]}
    before = spm.SentencePieceProcessor(model_file=str(sources["sp"]))
    after = spm.SentencePieceProcessor(model_file=str(out))
    assert metrics["", "vocab_size"] == after.get_piece_size()
    assert metrics["", "dropped_tokens"] == before.get_piece_size() - after.get_piece_size()
    assert ("", "total_words") not in metrics  # the source's training corpus: not the trim's
    id_map = {int(old): new for old, new in
              json.loads((tmp_path / "map.json").read_text(encoding="utf-8")).items()}
    _assert_held_out_metrics(metrics, sources["sp"], out, held, id_map)
    # the target text keeps its segmentation, and its ids through the map; the other
    # language loses its tokens
    en, ru = str(sources["held_en"]), str(sources["held_ru"])
    assert metrics[en, "tokens"] == metrics[en, "tokens_before"]
    assert metrics[en, "unchanged_line_share"] == 1.0
    assert metrics[ru, "tokens"] > metrics[ru, "tokens_before"]


def _assert_held_out_metrics(metrics, source, adapted, held, id_map=None) -> None:
    """Each held-out file's recorded figures, computed again with sentencepiece (the ids
    before read through a trim's ``id_map``)."""
    before = spm.SentencePieceProcessor(model_file=str(source))
    after = spm.SentencePieceProcessor(model_file=str(adapted))
    for path in held:
        lines = [line for line in path.read_text(encoding="utf-8").splitlines()
                 if line.strip()]
        tokens = [sum(len(sp.encode(line)) for line in lines) for sp in (after, before)]
        words = sum(len(line.split()) for line in lines)
        unchanged = sum(after.encode(line) == [i if id_map is None else id_map.get(i, -1)
                                               for i in before.encode(line)]
                        for line in lines)
        name = str(path)
        assert metrics[name, "lines"] == len(lines) and metrics[name, "words"] == words
        assert (metrics[name, "tokens"], metrics[name, "tokens_before"]) == tuple(tokens)
        assert metrics[name, "tokens_per_word"] == pytest.approx(tokens[0] / words)
        assert metrics[name, "tokens_per_word_before"] == pytest.approx(tokens[1] / words)
        assert metrics[name, "unchanged_line_share"] == pytest.approx(unchanged / len(lines))


def _sha256(path) -> str:
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


@pytest.mark.parametrize("command, out_format, output", [
    ("trim", "sentencepiece", "t.model"),
    ("extend", "sentencepiece", "x.model"),
    ("trim", "hf", "t.tokenizer.json"),
    ("extend", "transformers", "tf"),
])
def test_a_run_written_in_another_format_keeps_a_model_history_opens(
        capsys, tmp_path, sources, command, out_format, output):
    from bpe_desktop.core.project import Project
    from bpe_desktop.core.project.run_model import read_run_model, run_model_source

    project, out = tmp_path / "p.bpeproj", tmp_path / output
    source = sources["sp"] if out_format == "sentencepiece" else sources["vocab"]
    work = ([sources["corpus"], "--merges", 20] if command == "extend"
            else ["--text", sources["held_en"], "--id-map", tmp_path / "map.json"])
    status, _, err = run(capsys, command, "-m", source, *work, "--out-format", out_format,
                         "-o", out, "-q", "--project", project)
    assert status == 0, err
    with Project(project) as p:
        [run_id] = p.run_ids()
        where = run_model_source(p, run_id)
        model = read_run_model(where)
    assert where.data is not None  # the model itself, not only another tool's file
    lines = sources["held_en"].read_text(encoding="utf-8").splitlines()[:50]
    if out_format == "sentencepiece":
        written = spm.SentencePieceProcessor(model_file=str(out))
        assert [written.encode(line) for line in lines] == \
            [list(model.tokenizer().encode(line)) for line in lines]
    else:
        from tokenizers import Tokenizer

        written = Tokenizer.from_file(str(out / "tokenizer.json" if out.is_dir() else out))
        assert [written.encode(line).ids for line in lines] == \
            [list(model.tokenizer().encode(line)) for line in lines]


def test_extend_reads_invalid_utf8_as_replacement_when_asked_and_its_command_repeats_it(
        capsys, tmp_path, sources, monkeypatch):
    from bpe_desktop.core.model_file import load_model

    monkeypatch.chdir(tmp_path)
    (tmp_path / "bad.txt").write_bytes(b"\xd0\xb6\xd0\xb0\xd0\xb1\xd0\xb0 caf\xe9 na\xefve\n" * 30)
    base = ["extend", "-m", str(sources["vocab"]), "bad.txt", "--merges", "10",
            "--out-format", "model", "-q"]
    status, _, err = run(capsys, *base, "-o", "strict.json")
    assert status == 1
    assert_one_error_line(err, "bad.txt", "UTF-8")
    project = tmp_path / "p.bpeproj"
    status, _, err = run(capsys, *base, "-o", "first.json", "--encoding-errors", "replace",
                         "--project", project)
    assert status == 0, err
    status, printed, _ = run(capsys, "history", project, "--json")
    (extension,) = json.loads(printed)["runs"]
    assert extension["config"]["encoding_errors"] == "replace"
    words = shlex.split(extension["command"])
    assert run(capsys, *[("again.json" if w == "first.json" else w) for w in words[4:]])[0] == 0
    first, again = load_model(tmp_path / "first.json"), load_model(tmp_path / "again.json")
    assert first.merges == again.merges and first.corpus.encoding_errors == "replace"


def test_trim_dropping_the_unknown_token_warns_of_what_tokenizer_json_does(capsys, tmp_path,
                                                                         sources):
    """--drop-specials drops an <unk> the target never produces; the tokenizer.json then
    leaves out characters the trimmed model refuses, and trim says so, as export does."""
    model = tmp_path / "m.json"
    status, _, err = run(capsys, "train", sources["held_en"], "-o", model, "--preset",
                         "subword-nmt", "--merges", 50, "-q")
    assert status == 0, err
    args = ["trim", "-m", model, "--text", sources["held_en"], "--id-map",
            tmp_path / "map.json", "--out-format", "hf", "-q"]
    status, out, err = run(capsys, *args, "-o", tmp_path / "kept.json")
    assert (status, out, err) == (0, "", "")  # <unk> kept: nothing to warn of
    status, out, err = run(capsys, *args, "--drop-specials", "-o", tmp_path / "bare.json")
    assert status == 0 and out == ""
    assert err.startswith("bpe-desktop: warning: this model has no unknown token")
    assert "<unk>" not in json.loads((tmp_path / "bare.json").read_text(encoding="utf-8"))[
        "model"]["vocab"]
