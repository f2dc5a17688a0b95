"""``--project FILE``: record a command's run in a project (see
:mod:`bpe_desktop.core.project`), as the window records its runs.

A command opts in with :func:`add_project_option` and names, in :data:`RECORDED`, what
of its arguments is the run's configuration and which files it reads; its ``cmd_*``
function hands its results to :func:`recording` (None when not recording). Everything
else — inserting the run before the work starts, completing it as finished, cancelled
or failed — happens here, around the command.
"""

from __future__ import annotations

import argparse
import os
from typing import Callable, Sequence

from bpe_desktop.cli._common import EXIT_INTERRUPTED, EXIT_OK, CliError


def add_project_option(parser: argparse.ArgumentParser, language_help: str = "") -> None:
    """``--project`` and ``--language`` (``language_help``: what else the command does
    with the language)."""
    parser.add_argument("--project", metavar="FILE",
                        help="record this run (settings, files, versions, metrics, model) "
                        "in a project file (.bpeproj; created if missing); "
                        "see 'bpe-desktop history'")
    parser.add_argument("--language", default="", metavar="LABEL",
                        help=language_help or "with --project: the language of the corpus "
                        "files, recorded with them (any label: de, Hindi, …)")


def recording(args: argparse.Namespace):
    """The run being recorded (a :class:`~bpe_desktop.core.project.RecordedRun`), or None."""
    return getattr(args, "recorded_run", None)


def _check_not_written(project: str, args: argparse.Namespace) -> None:
    """The project is none of the files the command writes: written over, every run it
    records would be lost (and the run's own record with them)."""
    for output in (getattr(args, name, None) for name in ("output", "id_map",
                                                          "save_segmentation")):
        if output and os.path.realpath(output) == os.path.realpath(project):
            raise CliError(f"{output}: is also the project file (--project); refusing to "
                           "overwrite it")


def run_command(args: argparse.Namespace, argv: Sequence[str]) -> int:
    """Run the parsed command (its ``-`` input a copy of standard input), recorded when
    it was given ``--project``."""
    from bpe_desktop.cli.standard_input import standard_input_as_file

    with standard_input_as_file(args) as stdin_copy:
        args.stdin_copy = stdin_copy
        return _run_recorded(args, argv)


def _run_recorded(args: argparse.Namespace, argv: Sequence[str]) -> int:
    path = getattr(args, "project", None)
    describe = RECORDED.get(args.command)
    if not path or describe is None:
        return args.run(args)
    from bpe_desktop.core.project import Project, recorded_run
    from bpe_desktop.core.project.commands import command_record

    _check_not_written(path, args)
    config, inputs, preset = describe(args)  # bad options fail here, before a run exists
    project = Project(path, verify=False)  # (a damaged file is named when written)
    try:
        with recorded_run(project, args.command, config=config, inputs=inputs,
                          command=command_record(argv), preset=preset,
                          language=args.language,
                          stand_ins=_stdin_stand_in(args.stdin_copy)) as run:
            args.recorded_run = run
            code = args.run(args)
            if code == EXIT_INTERRUPTED:
                run.end_as("cancelled", "cancelled")
            elif code != EXIT_OK:
                run.end_as("failed", f"ended with exit status {code}")
    finally:
        project.close()
    return code


def _stdin_stand_in(copy: str | None) -> dict[str, str]:
    """The copy of standard input is recorded as standard input (it is gone after)."""
    from bpe_desktop.cli.standard_input import STDIN_NAME

    return {} if copy is None else {copy: STDIN_NAME}


def _train(args):
    from bpe_desktop.cli.options import config_from_args
    from bpe_desktop.cli.train import tables_as_languages
    from bpe_desktop.core.project.recording import training_inputs, training_side_inputs

    tables_as_languages(args)
    train_config = config_from_args(args)
    config = {**train_config.to_dict(), "word_counts": args.word_counts,
              "encoding_errors": args.encoding_errors}
    inputs = [*training_inputs(train_config, args.files, word_counts=args.word_counts),
              *training_side_inputs(train_config)]
    return config, inputs, args.preset or ""


def _count(args):
    from bpe_desktop.cli.count import TEXT_OPTIONS
    from bpe_desktop.cli.options import config_from_args

    full = config_from_args(args).to_dict()
    config = {**{k: full[k] for k in TEXT_OPTIONS}, "merge": args.merge,
              "dask": args.dask or "", "encoding_errors": args.encoding_errors}
    files = [("corpus", f) for f in args.inputs if os.path.isfile(f)]
    return config, files, args.preset or ""


def _evaluate(args):
    config = {"format": args.format, "gold_format": args.gold_format or "",
              "parity_mode": args.parity_mode, "sweep": args.sweep}
    inputs = [("model", args.model), *(("gold", g) for g in args.gold),
              *(("text", t) for t in args.text), *(("parallel", p) for p in args.parallel)]
    if args.reference:
        inputs.append(("reference", args.reference))
    return config, inputs, ""


def _compare(args):
    config = {"formats": args.formats or ["model"], "parity_dev": args.parity_dev,
              "parity_dev_documents": args.parity_dev_documents}
    return config, [*(("model", m) for m in args.models), *(("text", t) for t in args.text)], ""


def _extend(args):
    from bpe_desktop.core.project.recording import source_inputs

    config = {"format": args.format or "", "out_format": args.out_format or "",
              "merges": args.merges, "vocab_size": args.vocab_size,
              "min_frequency": args.min_frequency, "unknown": args.unknown,
              "new_ids": args.new_ids, "encoding_errors": args.encoding_errors}
    return config, [*source_inputs(args.model, args.format or ""),
                    *(("corpus", f) for f in args.files)], ""


def _trim(args):
    from bpe_desktop.core.project.recording import trim_record

    config, inputs = trim_record(args.model, args.format or "", args.text,
                                 out_format=args.out_format or "",
                                 drop_alphabet=args.drop_alphabet,
                                 drop_specials=args.drop_specials)
    return config, inputs, ""


#: The recorded commands: what of their arguments is the run's configuration, which
#: files it reads (role, path), and its preset.
RECORDED: dict[str, Callable[[argparse.Namespace], tuple[dict, list, str]]] = {
    "train": _train, "extend": _extend, "count": _count, "evaluate": _evaluate,
    "compare": _compare, "trim": _trim,
}
