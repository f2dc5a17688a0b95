"""The bundled help covers every training option and every key of the model file, and
its links and pictures point at files that ship."""

from __future__ import annotations

import dataclasses
import re

import pytest

from bpe_desktop.core import model_file
from bpe_desktop.core.config import (
    BOUNDARIES,
    NORMALIZATIONS,
    PRESETS,
    PRETOKENIZERS,
    SPECIAL_ROLES,
    TIE_BREAKS,
    TrainConfig,
)
from bpe_desktop.paths import resource_path

PAGES = ("quickstart.md", "training-options.md", "model-files.md", "command-line.md",
         "evaluation.md", "comparison.md", "projects.md",
         "extend-and-trim.md")
_LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")


def _read(page: str) -> str:
    return resource_path("help", page).read_text(encoding="utf-8")


def _code_spans(text: str) -> set[str]:
    """Everything written as code, whole spans and the words in them (`{"path", "size"}`)."""
    spans = re.findall(r"`([^`\n]+)`", text)
    return {*spans, *(w for span in spans for w in re.findall(r"[\w-]+", span))}


def test_every_training_option_and_value_is_explained():
    spans = _code_spans(_read("training-options.md"))
    names = {f.name for f in dataclasses.fields(TrainConfig)}
    values = {*PRETOKENIZERS, *BOUNDARIES, *TIE_BREAKS, *NORMALIZATIONS, *SPECIAL_ROLES,
              *PRESETS}
    assert sorted(names - spans) == []
    assert sorted(values - spans) == []


def test_training_options_page_uses_the_labels_the_application_shows():
    pytest.importorskip("PySide6")
    from bpe_desktop.ui.training import options as form

    text = _read("training-options.md").replace("`", "")
    labels = [*form.PRESET_LABELS, *form.STOP_LABELS.values(),
              *(label for spec in form.SPECS.values() for label in spec.choices.values())]
    assert [label for label in labels if label not in text] == []


def test_every_model_file_key_is_explained():
    spans = _code_spans(_read("model-files.md"))
    keys = {*model_file.TOP_KEYS, *model_file.CORPUS_KEYS, *model_file.CORPUS_OPTIONAL_KEYS,
            *model_file.CORPUS_KINDS,
            *model_file.CORPUS_FILE_KEYS, *model_file.SPECIAL_KEYS,
            *model_file.CONSTRAINT_KEYS}
    assert sorted(keys - spans) == []
    assert f'"format": "{model_file.FORMAT}"' in _read("model-files.md")
    assert f'"version": {model_file.VERSION}' in _read("model-files.md")


def test_the_model_file_example_is_what_the_application_writes():
    """The page's example is the shipped toy list trained and saved (path and checksum
    shortened on the page, nothing else changed)."""
    from bpe_desktop import __version__
    from bpe_desktop.core import Corpus, train

    example = re.search(r"```json\n(.*?)```", _read("model-files.md"), re.S).group(1)
    toy = resource_path("examples", "seed_toy_words.tsv")
    model = train(Corpus.from_files([str(toy)], word_counts=True), TrainConfig(merges=10)).model
    written = model_file.dumps(model, created="2026-11-23T19:19:02Z")
    digest = model.corpus.files[0].sha256
    shown = (example.replace("/home/me/seed_toy_words.tsv", model.corpus.files[0].path)
             .replace(f"{digest[:12]}...{digest[-4:]}", digest)
             .replace('"app_version": "0.1.0"', f'"app_version": "{__version__}"'))
    assert shown == written


@pytest.mark.parametrize("page", PAGES)
def test_links_and_images_point_at_shipped_files(page):
    folder = resource_path("help")
    targets = [t for t in _LINK.findall(_read(page)) if not re.match(r"[a-z]+:", t)]
    missing = [t for t in targets if not (folder / t.split("#")[0]).is_file()]
    assert missing == []


def test_quick_start_shows_the_three_screenshots():
    images = re.findall(r"!\[[^\]]+\]\(([^)]+)\)", _read("quickstart.md"))
    assert images == ["screenshots/training.png", "screenshots/vocabulary.png",
                      "screenshots/encode.png"]


def test_evaluation_page_defines_every_measure_and_gold_format():
    from bpe_desktop.core.evaluation import GOLD_FORMATS, PARITY_MODES

    text = _read("evaluation.md")
    spans = _code_spans(text)
    assert sorted(set(GOLD_FORMATS + PARITY_MODES) - spans) == []
    for measure in ("Boundary precision", "recall", "F1", "MorphScore", "Exact", "fertility",
                    "characters per token", "bytes per token", "split share",
                    "unknown rate", "utilisation", "Rényi efficiency", "parity",
                    "Final", "Intermediate", "intermediate"):
        assert f"**{measure}**" in text, measure
    from bpe_desktop.core.evaluation.vocabulary import INTERMEDIATE_SHARE

    assert f"{INTERMEDIATE_SHARE:.0%} of their count when merged" in text


def test_comparison_page_defines_every_measure_and_json_key():
    from bpe_desktop.core.comparison import CATEGORIES
    from bpe_desktop.ui.codec.dropout_box import SAMPLE_CHARS

    text = _read("comparison.md")
    for measure in ("hit", "precision", "recall", "F1", "Identical words", "skipped",
                    "Tokens per line", "Boundary agreement", "in both", "only in A",
                    "only in B", "p", "seed"):
        assert f"**{measure}**" in text, measure
    spans = _code_spans(text)
    keys = ("agreement_precision", "agreement_recall", "agreement_f1", "identical_words",
            "tokens_a", "tokens_b", "words", "skipped", "overlap", *CATEGORIES)
    assert sorted(set(keys) - spans) == []
    assert f"first {SAMPLE_CHARS:,} characters" in text


def test_projects_page_defines_every_kind_status_and_recorded_metric():
    from bpe_desktop.core.project import RUN_KINDS, RUN_STATUSES

    spans = _code_spans(_read("projects.md"))
    own = {"vocab_size", "merges", "total_words", "distinct_words", "unknown_characters",
           "seconds_counting", "seconds_merging", "seconds_total"}
    assert sorted({*RUN_KINDS, *RUN_STATUSES, *own} - spans) == []


def test_projects_page_gives_typed_protected_strings_as_the_copied_command_does():
    from bpe_desktop.core.project.commands import UNSAVED_MODEL, train_arguments

    argv = train_arguments(["c.txt"], UNSAVED_MODEL,
                           TrainConfig(protected=("Human rights",)))
    flag = next(a for a in argv if "Human rights" in a).partition("=")[0]
    copy = next(p for p in _read("projects.md").split("\n* ") if "**Copy as command**" in p)
    assert f"`{flag}=STRING`" in copy and f"`{UNSAVED_MODEL}`" in copy
