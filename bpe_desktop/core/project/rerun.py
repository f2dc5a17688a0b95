"""What running a recorded run again needs: its training options naming the files the run
read, and which of its input files are no longer as the run read them.

A command-line run records its options as typed (``train --lang en=eng.txt``), relative
to the folder it ran in; the window runs in another folder, so each file an option names is
found from the run's folder first. A file gone or changed since (its SHA-256 differs) would
give another result than the run's: History says so before running it again. Files
moved with the project to another folder are found there by their SHA-256.
"""

from __future__ import annotations

import os
from collections.abc import Collection
from dataclasses import dataclass

from bpe_desktop.core.config import TrainConfig
from bpe_desktop.core.project.commands import config_in_folder
from bpe_desktop.core.project.corpus_hash import sha256_of
from bpe_desktop.core.project.relocation import Relocation, find_relocation
from bpe_desktop.core.project.records import RunDetails, RunInput
from bpe_desktop.core.text_files import STDIN_NAME


def recorded_training_config(details: RunDetails) -> TrainConfig:
    """The run's training options (raises ConfigError), each file they name made absolute
    in the folder its command ran in."""
    known = {k: v for k, v in details.config.items() if k in TrainConfig.__dataclass_fields__}
    return config_in_folder(TrainConfig.from_dict(known), (details.command or {}).get("cwd"))


def file_languages(config: TrainConfig, *, word_counts: bool) -> tuple[str, ...]:
    """``lang`` as one CODE=FILE entry per file the training reads: a language given as a
    folder is its files, as the Training panel lists them, one a row."""
    from bpe_desktop.core.multilingual import language_corpus_files

    return tuple(f"{code}={path}"
                 for code, path in language_corpus_files(config, word_counts=word_counts))


@dataclass(frozen=True)
class InputProblem:
    """An input file of a run that is not as the run read it."""

    input: RunInput
    now_sha256: str  # "" when the file is gone

    @property
    def gone(self) -> bool:
        return not self.now_sha256

    def describe(self) -> str:
        if self.input.path == STDIN_NAME:
            return (f"{STDIN_NAME}: the run read standard input, which is not kept; give "
                    "the text as a file")
        if self.gone:
            return f"{self.input.path}: no longer there (moved or deleted)"
        return (f"{self.input.path}: changed since (SHA-256 {self.input.sha256[:12]}… then, "
                f"{self.now_sha256[:12]}… now)")


def input_problems(details: RunDetails, checked: Collection[str] = ()) -> list[InputProblem]:
    """The run's input files that are gone or whose content changed since it read them,
    but for the paths ``checked`` already (reads every file whole: call it off the GUI
    thread)."""
    problems = []
    for given in details.inputs:
        if given.path in checked:
            continue
        if not os.path.isfile(given.path):
            problems.append(InputProblem(given, ""))
            continue
        now = sha256_of(given.path)
        if now != given.sha256:
            problems.append(InputProblem(given, now))
    return problems


def inputs_found(details: RunDetails, project_path: str
                 ) -> tuple[RunDetails, Relocation | None, list[InputProblem]]:
    """The run naming its files where they are now (moved with the project, see
    :mod:`~bpe_desktop.core.project.relocation`), that move if any, and the files that are
    gone or changed even so (reads the files whole: call it off the GUI thread)."""
    moved = find_relocation(details, project_path)
    if moved is None:
        return details, None, input_problems(details)
    details = moved.details(details)
    return details, moved, input_problems(details, {new for _, new in moved.found})


def model_file_changed(details: RunDetails) -> bool:
    """Whether the model file the run wrote is there but holds something else now (a later
    run or another program wrote over it); False when its checksum was not recorded."""
    path = details.model_path
    return bool(path and details.model_sha256 and os.path.isfile(path)
                and sha256_of(path) != details.model_sha256)
