"""Every field name that ``--json`` prints (info, count, evaluate, compare, history) is
explained on the help page of its command, so a script can rely on it: the outputs are made by the real
commands with every section present."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from bpe_desktop import cli
from bpe_desktop.paths import resource_path

DATA = Path(__file__).resolve().parents[1] / "data"
ENG, DEU = DATA / "udhr" / "eng.txt", DATA / "udhr" / "deu.txt"
GOLD = DATA / "morph" / "eng.word.dev.tsv"


def _json(capsys, *argv) -> dict:
    assert cli.main([str(a) for a in argv]) == 0
    out = capsys.readouterr().out
    return json.loads(out, parse_constant=lambda c: pytest.fail(f"{c} is not JSON"))


def _field_names(value, named_by_data: set[str]) -> set[str]:
    """Every key of ``value``, nested, but the keys that are data (file names, language
    codes, characters) under the fields in ``named_by_data``, whose values are searched."""
    names: set[str] = set()
    if isinstance(value, dict):
        for key, item in value.items():
            names.add(key)
            if key in named_by_data and isinstance(item, dict):
                for inner in item.values():
                    names |= _field_names(inner, named_by_data)
            else:
                names |= _field_names(item, named_by_data)
    elif isinstance(value, list):
        for item in value:
            names |= _field_names(item, named_by_data)
    return names


def _undocumented(names: set[str], page: str) -> list[str]:
    text = resource_path("help", page).read_text(encoding="utf-8")
    spans = set(re.findall(r"`([^`\n]+)`", text))
    return sorted(names - spans)


@pytest.fixture(scope="module")
def model(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("json") / "m.json"
    assert cli.main(["train", str(ENG), "-o", str(path), "--merges", "60", "-q"]) == 0
    return path


def test_every_evaluate_json_field_is_on_the_evaluation_page(capsys, model):
    report = _json(capsys, "evaluate", "-m", model, "--gold", GOLD, "--text", ENG,
                   "--text", DEU, "--parallel", ENG, DEU, "--reference", ENG,
                   "--sweep", "2", "--json")
    assert {"approximations", "morphology", "gold", "text", "texts", "parity",
            "sweep"} <= set(report)
    data_keyed = {"morphology", "gold", "texts", "parity", "parity_unknown_rate",
                  "unseen_characters", "rare_characters", "character_mapping"}
    assert _undocumented(_field_names(report, data_keyed), "evaluation.md") == []


def test_every_compare_json_field_is_on_the_comparison_page(capsys, model, tmp_path):
    other = tmp_path / "small.json"
    assert cli.main(["train", str(ENG), "-o", str(other), "--merges", "20", "-q"]) == 0
    capsys.readouterr()
    result = _json(capsys, "compare", "-m", model, "-m", other, "--text", ENG,
                   "--parity-dev", f"en={ENG}", f"de={DEU}", "--parity-dev-documents",
                   "--json")
    assert {"tokenizers", "pairs", "languages"} <= set(result)
    assert all("approximations" in t for t in result["tokenizers"])
    names = _field_names(result, {"tokens", "cost_per_unit"})
    assert _undocumented(names, "comparison.md") == []


def test_every_history_json_field_is_on_the_projects_page(capsys, model, tmp_path):
    project = tmp_path / "p.bpeproj"
    assert cli.main(["train", str(ENG), "-o", str(tmp_path / "r.json"), "--merges", "9",
                     "-q", "--project", str(project)]) == 0
    assert cli.main(["evaluate", "-m", str(model), "--text", str(ENG), "--project",
                     str(project)]) == 0
    capsys.readouterr()
    history = _json(capsys, "history", project, "--json")
    assert [run["kind"] for run in history["runs"]] == ["train", "evaluate"]
    # (a run's config holds the training options, explained in Training options)
    names = _field_names(history, set()) - _field_names(
        [run["config"] for run in history["runs"]], set())
    assert {"inputs", "metrics", "model"} <= names
    assert _undocumented(names | {"config"}, "projects.md") == []


def test_every_info_json_field_is_on_the_model_files_page(capsys, model):
    summary = _json(capsys, "info", "-m", model, "--json")
    merges = _json(capsys, "info", "-m", model, "--merges", "--json")
    assert set(merges) == {"model", "merges"} and len(merges["merges"]) == 60
    assert {"config", "corpus", "vocab_size"} <= set(summary)
    # (the config holds the training options, explained in Training options)
    names = (_field_names([summary, merges], set())
             - _field_names(summary["config"], set())) | {"config"}
    assert {"files", "sha256", "total_words"} <= names
    assert _undocumented(names, "model-files.md") == []


def test_every_count_json_field_is_on_the_training_options_page(capsys, tmp_path):
    summary = _json(capsys, "count", ENG, "-o", tmp_path / "words.tsv", "--json", "-q")
    assert summary["language"] == "eng"
    assert _undocumented(_field_names(summary, set()), "training-options.md") == []
