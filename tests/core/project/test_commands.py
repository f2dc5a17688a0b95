"""The command a run is reproduced with: a training's arguments give back exactly its
configuration through the command line's own parser."""

from __future__ import annotations

import shlex

import pytest

from hypothesis import given, settings
from hypothesis import strategies as st

from bpe_desktop.cli import build_parser
from bpe_desktop.cli.options import config_from_args
from bpe_desktop.core.config import (
    BOUNDARIES,
    NORMALIZATIONS,
    PRESETS,
    PRETOKENIZERS,
    TIE_BREAKS,
    SpecialToken,
    TrainConfig,
)
from bpe_desktop.core.project.commands import (
    config_in_folder,
    named_project,
    recording_into,
    shell_command,
    train_arguments,
)

specials = st.lists(st.sampled_from([SpecialToken("<unk>", 0, "unk"), SpecialToken("<s>", 1),
                                     SpecialToken("</s>", 2, "eos"),
                                     SpecialToken("<pad>", 3, "pad")]),
                    unique_by=lambda t: t.id, max_size=3)


@st.composite
def configs(draw) -> TrainConfig:
    base = draw(st.sampled_from([None, *PRESETS]))
    stop = draw(st.sampled_from(["vocab_size", "merges", None]))
    changes = {
        "min_frequency": draw(st.integers(1, 9)),
        "pretokenizer": draw(st.sampled_from(PRETOKENIZERS)),
        "boundary": draw(st.sampled_from(BOUNDARIES)),
        "ties": draw(st.sampled_from(TIE_BREAKS)),
        "normalize": draw(st.sampled_from(NORMALIZATIONS)),
        "lowercase": draw(st.booleans()),
        "special_tokens": tuple(draw(specials)),
        "threads": draw(st.integers(0, 4)),
    }
    if stop:
        changes[stop] = draw(st.integers(300, 5000))
    config = TrainConfig.preset(base) if base else TrainConfig()
    try:
        return config.replace(**changes)
    except Exception:  # an inconsistent combination: the form would refuse it too
        return config


@settings(max_examples=150, deadline=None)
@given(configs(), st.booleans(), st.sampled_from(["strict", "replace"]))
def test_train_arguments_parse_back_to_the_same_configuration(config, word_counts, errors):
    argv = train_arguments(["corpus.txt"], "model.json", config, word_counts=word_counts,
                           encoding_errors=errors)
    args = build_parser().parse_args(argv)
    assert config_from_args(args) == config
    assert args.word_counts == word_counts and args.encoding_errors == errors


def test_the_shell_line_runs_in_the_recorded_folder():
    line = shell_command({"argv": ["train", "my corpus.txt", "-o", "m.json"],
                          "cwd": "/data/run one"})
    assert shlex.split(line) == ["cd", "/data/run one", "&&", "bpe-desktop", "train",
                                 "my corpus.txt", "-o", "m.json"]
    assert shell_command(None) == ""


def test_file_lists_and_languages_are_given_one_flag_each():
    config = TrainConfig(merges=50, gold_boundaries=("g1.tsv", "g2.tsv"), knockout=("k.tsv",),
                         lang=("en=en.txt", "de=de.txt"), weight=("en=1", "de=2.5"),
                         parity_dev=("en=dev.en", "de=dev.de"), parity_dev_documents=True)
    argv = train_arguments(["en.txt", "de.txt"], "model.json", config)
    assert config_from_args(build_parser().parse_args(argv)) == config


def test_list_options_protected_strings_and_languages_parse_back():
    """Constraints, typed protected strings and languages (a run from the window) give a
    command whose options are the run's: files as --lang entries, not corpus files."""
    from tests.test_options_everywhere import SAMPLED, UNUSUAL

    for config in (UNUSUAL, SAMPLED, TrainConfig(protected=("-x", "New York"))):
        argv = train_arguments(["fi.txt", "tr.txt"], "model.json", config)
        assert ("fi.txt" in " ".join(argv)) == (not config.lang)
        assert config_from_args(build_parser().parse_args(argv)) == config


def test_a_commands_files_are_read_in_the_folder_it_ran_in():
    config = TrainConfig(merges=5, lang=("en=en.txt", "de=/corpora/de"), weight=("en=1", "de=2"),
                         gold_boundaries=("gold=v1.tsv",), parity_dev=("dev.tsv",))
    resolved = config_in_folder(config, "/runs/one")
    assert resolved.lang == ("en=/runs/one/en.txt", "de=/corpora/de")
    assert resolved.gold_boundaries == ("/runs/one/gold=v1.tsv",)  # a file name, not CODE=
    assert resolved.parity_dev == ("/runs/one/dev.tsv",) and resolved.weight == config.weight
    assert config_in_folder(config, None) == config


@pytest.mark.parametrize("argv", [
    ["count", "c.txt", "-o", "t.tsv"],
    ["count", "c.txt", "-o", "t.tsv", "--project", "old.bpeproj"],
    ["count", "c.txt", "--project=old.bpeproj", "-o", "t.tsv"],
    ["count", "c.txt", "--proj", "old.bpeproj", "-o", "t.tsv"],  # an abbreviation
    ["count", "-o", "t.tsv", "--project", "old.bpeproj", "--", "--project", "c.txt"],
], ids=["none", "separate", "with-equals", "abbreviated", "a-file-named-like-it"])
def test_a_command_run_again_is_recorded_in_the_project_shown(argv):
    """History runs a recorded command again in the project it shows, whichever project
    the command named then; its other arguments stay as they were."""
    again = recording_into(argv, "/now/p.bpeproj")
    args = build_parser().parse_args(again)
    assert args.project == "/now/p.bpeproj"
    assert args.output == "t.tsv"
    assert args.inputs == build_parser().parse_args(argv).inputs
    assert named_project(again) == "/now/p.bpeproj"


def test_the_project_a_command_named_is_read_in_either_form():
    assert named_project(["count", "c.txt", "--project", "a.bpeproj"]) == "a.bpeproj"
    assert named_project(["count", "c.txt", "--project=b.bpeproj"]) == "b.bpeproj"
    assert named_project(["count", "--project=a", "--project", "b", "c.txt"]) == "b"
    assert named_project(["count", "--", "--project", "c.txt"]) is None
    assert named_project(["count", "c.txt"]) is None
