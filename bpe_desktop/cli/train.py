"""``bpe-desktop train``: learn a model from text files or word-count tables."""

from __future__ import annotations

import argparse
import os
import sys
import time

from bpe_desktop.cli._common import (
    EXIT_INTERRUPTED,
    EXIT_OK,
    PROG,
    CliError,
    UsageError,
    _check_output,
    _fail,
    _in_worker,
    _report_stream,
    _without_empty,
)
from bpe_desktop.cli.options import (
    add_encoding_errors_option,
    add_train_options,
    config_from_args,
)
from bpe_desktop.cli.progress import ProgressBar, SegmenterProgressBar
from bpe_desktop.cli.recording import add_project_option, recording
from bpe_desktop.core.errors import TrainingCancelled
from bpe_desktop.core.formatting import describe_config, format_bytes
from bpe_desktop.core.model_file import save_model


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "train", help="learn a BPE model from text files",
        description="Learn a BPE model from text files (plain or .gz) and save it as JSON. "
        "A --preset sets defaults; options given explicitly override them.",
    )
    p.add_argument("files", nargs="*", metavar="FILE",
                   help="corpus files (UTF-8, may be .gz; - for standard input); or give the "
                   "languages with --lang")
    p.add_argument("-o", "--output", required=True, metavar="MODEL",
                   help="where to write the model (JSON; - for standard output)")
    p.add_argument("--word-counts", action="store_true",
                   help="the files are word<TAB>count tables, not running text (several "
                   "are summed; made by 'bpe-desktop count' or any other tool)")
    add_train_options(p)
    add_encoding_errors_option(p)
    p.add_argument("--save-segmentation", metavar="FILE",
                   help="with --morfessor: also save Morfessor's segmentation of the corpus "
                   "words as word<TAB>morphs (review or edit it, then reuse it with "
                   "--gold-boundaries)")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress or summary")
    add_project_option(p)
    p.set_defaults(run=cmd_train)


def cmd_train(args: argparse.Namespace) -> int:
    from bpe_desktop.core.training import CancelToken

    tables_as_languages(args)
    config = config_from_args(args)
    if args.save_segmentation and not config.morfessor:
        raise UsageError("--save-segmentation needs --morfessor (it saves Morfessor's "
                         "segmentation)")
    _check_parity_flags(config)
    if config.lang:
        what, work = _languages_run(args, config)
    else:
        what, work = _files_run(args, config)
    if not args.quiet:
        sys.stderr.write(f"{PROG}: training on {what}: {describe_config(config)}\n")
        sys.stderr.flush()
    progress = None if args.quiet else ProgressBar(sys.stderr)
    cancel = CancelToken()
    on_progress = progress
    if os.environ.get(HOLD_FOR_CANCEL_ENV) == "1":
        on_progress = _held_until_cancelled(progress, cancel)
    started = time.perf_counter()
    try:
        result = _in_worker(lambda: work(on_progress, cancel), cancel)
    except TrainingCancelled:
        _fail("training cancelled; nothing was written")
        return EXIT_INTERRUPTED
    finally:
        if progress:
            progress.clear()
    from bpe_desktop.cli.standard_input import relabel_corpus

    model = relabel_corpus(result.model,  # type: ignore[attr-defined]
                           getattr(args, "stdin_copy", None))
    save_model(model, args.output)
    if (run := recording(args)) is not None:
        from bpe_desktop.core.project.metrics import training_metrics

        # Written to standard output, it is in no file: the project keeps it.
        run.set_model(model, path=None if args.output == "-" else args.output)
        run.add_metrics(training_metrics(model, result.timings))  # type: ignore[attr-defined]
    if args.save_segmentation:
        from bpe_desktop.core.constraints import write_segmentation

        write_segmentation(args.save_segmentation, sorted(result.segmentation.items()))
    seconds = time.perf_counter() - started
    from bpe_desktop.core.protected import unfound_protected, unfound_warning

    matches = result.gold_matches  # type: ignore[attr-defined]
    for warning in (*(match.warning() for match in matches),
                    unfound_warning(unfound_protected(model))):
        if warning:
            sys.stderr.write(f"{PROG}: warning: {warning}\n")
    if not args.quiet:
        for match in matches:
            print(match.summary(), file=_report_stream(args.output))
        if result.languages is not None:  # type: ignore[attr-defined]
            from bpe_desktop.core.multilingual import describe_languages

            for line in describe_languages(result.languages):  # type: ignore[attr-defined]
                print(line, file=_report_stream(args.output))
        print(f"{model.merge_count:,} merges, vocabulary of {model.vocab_size:,} tokens, "
              f"{seconds:.1f} s; saved {args.output}", file=_report_stream(args.output))
    return EXIT_OK


def _check_parity_flags(config) -> None:
    """The parity-aware options do nothing without a development set: saying so beats
    a plain training the user did not ask for."""
    from bpe_desktop.core.config import TrainConfig

    if config.parity_dev:
        return
    default = TrainConfig()
    for flag, name in (("--parity-window", "parity_window"),
                       ("--parity-measure", "parity_measure"),
                       ("--parity-dev-documents", "parity_dev_documents")):
        if getattr(config, name) != getattr(default, name):
            raise UsageError(f"{flag} needs --parity-dev (the development set parity-aware "
                             "training compares the languages on)")


def tables_as_languages(args: argparse.Namespace) -> None:
    """Word-count tables given as files, with balancing or a development set, are the
    languages their labels (written by ``count``) name: ``--lang CODE=TABLE`` each."""
    if not (args.word_counts and args.files and not args.lang
            and (args.weight or args.temperature or args.parity_dev)):
        return
    from bpe_desktop.core.multilingual import languages_of_tables

    args.lang, args.files = list(languages_of_tables(args.files)), []


def _files_run(args: argparse.Namespace, config):
    """Checks of a run on corpus files; (what it trains on, the work)."""
    from bpe_desktop.core.training import Corpus, train

    if not args.files:
        raise UsageError("no corpus files given (or --lang CODE=PATH per language)")
    for name in args.files:
        if not os.path.exists(name):
            raise CliError(f"{name}: no such file")
        if os.path.isdir(name):
            raise CliError(f"{name}: is a directory, not a corpus file")
    from bpe_desktop.core.constraints import FILE_LIST_OPTIONS

    gold = [path for option in FILE_LIST_OPTIONS for path in getattr(config, option)]
    for name in gold:
        if not os.path.isfile(name):
            raise CliError(f"{name}: no such gold file")
    _check_outputs(args, args.files, gold)
    args.files = _without_empty(args.files)
    # Warn (and go on) before a run that may not fit in memory, not an hour into it.
    from bpe_desktop.core.memory import memory_warning

    warning = memory_warning(args.files, config, word_counts=args.word_counts)
    if warning:
        sys.stderr.write(f"{PROG}: warning: {warning}\n")
        sys.stderr.flush()
    corpus = Corpus.from_files(args.files, word_counts=args.word_counts,
                               errors=args.encoding_errors)
    size = sum(os.path.getsize(name) for name in args.files)
    segmenter = None if args.quiet else SegmenterProgressBar(sys.stderr)

    def work(on_progress, cancel):
        return train(corpus, config, on_progress=on_progress, cancel=cancel,
                     on_segmenter=segmenter)

    return f"{len(args.files)} file(s), {format_bytes(size)}", work


def _check_outputs(args: argparse.Namespace, corpus: list[str], others: list[str]) -> None:
    """Before the work: the model and Morfessor's segmentation can be written, over no
    input (``corpus``, ``others`` and the protected strings' files) nor each other."""
    inputs = [*others, *(args.protect_files or ())]
    for output in filter(None, (args.output, args.save_segmentation)):
        _check_output(output, corpus)
        _check_output(output, inputs, "an input file")
    if args.save_segmentation and \
            os.path.realpath(args.save_segmentation) == os.path.realpath(args.output):
        raise CliError(f"{args.save_segmentation}: is also the model's output (-o); give "
                       "the segmentation another name")


def _languages_run(args: argparse.Namespace, config):
    """Checks of a multilingual run (balanced, parity-aware with a development set)."""
    from bpe_desktop.core.languages import language_paths
    from bpe_desktop.core.multilingual import check_inputs, train_multilingual

    if args.files:
        raise UsageError("give the corpus either as files or as --lang CODE=PATH per "
                         "language, not both")
    files = language_paths(config)
    check_inputs(config)  # bad files and development sets before anything is printed
    if args.word_counts:
        from bpe_desktop.core.multilingual import relabelled_tables

        for table, label, code in relabelled_tables(config):
            sys.stderr.write(f"{PROG}: warning: {table} is labelled {label!r} (by count) "
                             f"but given as --lang {code}; training it as {code}\n")
    from bpe_desktop.core.parity_dev import dev_set_files

    _check_outputs(args, [path for paths in files.values() for path in paths],
                   dev_set_files(config.parity_dev))

    def work(on_progress, cancel):
        return train_multilingual(config, on_progress=on_progress, cancel=cancel,
                                  word_counts=args.word_counts, errors=args.encoding_errors)

    return f"{len(files)} languages ({', '.join(files)})", work


#: Test hook: training stops at its first merging report until it is cancelled, so a
#: test of Ctrl-C cannot be outrun by a machine fast enough to finish first.
HOLD_FOR_CANCEL_ENV = "BPE_DESKTOP_TEST_HOLD_FOR_CANCEL"


def _held_until_cancelled(progress, cancel):
    def on_progress(p) -> None:
        if progress is not None:
            progress(p)
        if p.stage == "merging":
            while not cancel.cancelled:
                time.sleep(0.01)

    return on_progress
