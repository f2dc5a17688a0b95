"""A transformers folder (``save_pretrained``'s tokenizer.json and settings files) as the
source of ``extend`` and ``trim``: found by ``-m FOLDER``, written back as a folder that
``AutoTokenizer`` loads with the source's ids, and never overwritten."""

from __future__ import annotations

import hashlib
import json

import pytest

from bpe_desktop.core.formats.detect import detect_format
from tests.cli.support import assert_one_error_line, run
from tests.peer_sources import english_lines, roberta_tokenizer_json, russian_and_held_out_files


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """A RoBERTa-style transformers folder, also holding GPT-2's vocab.json and
    merges.txt as transformers writes them, and the Russian texts."""
    import transformers

    folder = tmp_path_factory.mktemp("tf-source")
    tokenizer_json = roberta_tokenizer_json(folder)
    source = folder / "roberta-tf"
    tokenizer = transformers.PreTrainedTokenizerFast(
        tokenizer_file=str(tokenizer_json), bos_token="<s>", eos_token="</s>",
        unk_token="<unk>", pad_token="<pad>", mask_token="<mask>", model_max_length=512)
    tokenizer.chat_template = "{% for m in messages %}<s>{{ m['content'] }}</s>{% endfor %}"
    tokenizer.save_pretrained(source)
    for name in ("vocab.json", "merges.txt"):
        (source / name).write_bytes((folder / f"roberta-{name}").read_bytes())
    return {"source": source, **russian_and_held_out_files(folder)}


def _digest(folder):
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in folder.iterdir()}


def test_a_transformers_folder_is_read_as_its_tokenizer_json(files):
    assert detect_format(files["source"]) == "hf"


def test_extend_a_transformers_folder_writes_one_transformers_loads(capsys, tmp_path, files):
    import transformers

    out = tmp_path / "extended"
    status, _, err = run(capsys, "extend", "-m", files["source"], files["corpus"],
                         "--merges", 100, "-o", out, "--verify", files["held_ru"],
                         files["held_en"], "-q")
    assert status == 0, err
    # the source's settings are kept: special tokens' roles, length, chat template
    assert {p.name for p in out.iterdir()} == \
        {p.name for p in files["source"].iterdir()} - {"vocab.json", "merges.txt"}
    before = transformers.AutoTokenizer.from_pretrained(str(files["source"]),
                                                        local_files_only=True)
    after = transformers.AutoTokenizer.from_pretrained(str(out), local_files_only=True)
    assert after.model_max_length == before.model_max_length == 512
    assert after.chat_template == before.chat_template
    assert after.special_tokens_map == before.special_tokens_map
    assert after.all_special_ids == before.all_special_ids
    english = english_lines()[-100:]
    assert sum(after(line)["input_ids"] == before(line)["input_ids"] for line in english) \
        >= 95
    russian = files["held_ru"].read_text(encoding="utf-8").splitlines()
    for line in english[:20] + russian[:20]:
        ids = after(line)["input_ids"]
        assert ids[0] == before.bos_token_id and ids[-1] == before.eos_token_id
        assert after.decode(ids, skip_special_tokens=True) == line
    assert after.convert_tokens_to_ids("<mask>") == before.convert_tokens_to_ids("<mask>")


def test_trim_a_transformers_folder(capsys, tmp_path, files):
    out = tmp_path / "trimmed"
    status, _, err = run(capsys, "trim", "-m", files["source"], "--text", files["held_en"],
                         "--id-map", tmp_path / "map.json", "-o", out, "--verify",
                         files["held_en"], "-q")
    assert status == 0, err
    written = json.loads((out / "tokenizer.json").read_text(encoding="utf-8"))
    id_map = json.loads((tmp_path / "map.json").read_text(encoding="utf-8"))
    assert len(written["model"]["vocab"]) == len(id_map)


@pytest.mark.parametrize("command, work", [
    ("extend", ["CORPUS", "--merges", "20"]),
    ("trim", ["--text", "CORPUS", "--id-map", "MAP"]),
])
def test_a_transformers_folder_is_never_written_over(capsys, tmp_path, files, command, work):
    before = _digest(files["source"])
    work = [files["corpus"] if w == "CORPUS" else tmp_path / "map.json" if w == "MAP"
            else w for w in work]
    status, _, err = run(capsys, command, "-m", files["source"], *work,
                         "-o", files["source"], "-q")
    assert status == 1
    assert_one_error_line(err, "tokenizer.json", "is also the source tokenizer")
    assert _digest(files["source"]) == before


@pytest.mark.parametrize("command", ["extend", "trim"])
def test_a_run_records_the_folders_tokenizer_json_as_its_source(capsys, tmp_path, files,
                                                                 command):
    project = tmp_path / "p.bpeproj"
    work = ([files["corpus"], "--merges", 20] if command == "extend" else
            ["--text", files["held_en"], "--id-map", tmp_path / "map.json"])
    status, _, err = run(capsys, command, "-m", files["source"], *work, "-o",
                         tmp_path / "out", "-q", "--project", project)
    assert status == 0, err
    status, printed, err = run(capsys, "history", project, "--json")
    (recorded,) = json.loads(printed)["runs"]
    (source,) = [i for i in recorded["inputs"] if i["role"] == "model"]
    tokenizer_json = files["source"] / "tokenizer.json"
    assert source["path"] == str(tokenizer_json)
    assert source["sha256"] == hashlib.sha256(tokenizer_json.read_bytes()).hexdigest()
