"""``bpe-desktop extend`` and ``trim``: adapt an existing tokenizer, keeping its ids."""

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
    _check_output,
    _check_tokenizer_path,
    _fail,
    _in_worker,
    _lines,
    _report_stream,
)
from bpe_desktop.cli.options import (
    add_encoding_errors_option,
    add_model_option,
    whole_number,
)
from bpe_desktop.cli.progress import ProgressBar
from bpe_desktop.cli.recording import add_project_option, recording
from bpe_desktop.core.errors import TrainingCancelled

_IN_FORMATS = ("model", "hf", "gpt2", "subword-nmt", "sentencepiece", "tiktoken", "fastbpe",
               "youtokentome")
_OUT_HELP = ("where to write: a file, or a folder for gpt2 and transformers (hf: a "
             "folder gets the transformers files)")


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "extend", help="continue training an existing tokenizer on a new corpus",
        description="Continue training an existing tokenizer on new text, keeping every "
        "existing token's id, piece and rank: the corpus is counted with the tokenizer's "
        "own normalizer and pre-tokenizer and segmented exactly as it encodes it, "
        "characters it cannot represent become new tokens first, then new merges are "
        "learned on top and appended. Written in the source's format unless --out-format "
        "says otherwise.",
    )
    _add_source(p)
    p.add_argument("files", nargs="+", metavar="CORPUS",
                   help="corpus files (UTF-8, may be .gz; - for standard input)")
    size = p.add_mutually_exclusive_group(required=True)
    size.add_argument("--merges", type=whole_number(1), metavar="N",
                      help="learn at most N new merges")
    size.add_argument("--vocab-size", type=whole_number(1), metavar="N",
                      help="grow the vocabulary to N tokens")
    p.add_argument("--min-frequency", type=whole_number(1), default=2, metavar="K",
                   help="a new pair must occur at least K times (default 2)")
    _add_extend_options(p)
    p.add_argument("--keep-unknown", dest="unknown", action="store_const", const="keep",
                   default="add", help="the same as --unknown keep")
    add_encoding_errors_option(p)
    _add_output(p)
    add_project_option(p)
    p.set_defaults(run=cmd_extend)

    p = sub.add_parser(
        "trim", help="shrink a tokenizer to what a target text needs",
        description="Drop the tokens that the target text never produces and no kept merge "
        "needs; the trimmed model segments the target text identically. Writes the model "
        "and an old-id -> new-id map (JSON and CSV) for the embedding matrix.",
    )
    _add_source(p)
    p.add_argument("--text", nargs="+", required=True, metavar="TARGET",
                   help="the target text files (- for standard input)")
    p.add_argument("--id-map", required=True, metavar="MAP",
                   help="where to write the id map as JSON ({\"old_id\": new_id}, e.g. "
                   "map.json); the CSV (old_id,new_id,piece) goes beside it with the "
                   "ending .csv (a MAP ending in .csv gets the CSV, and the JSON goes "
                   "beside it)")
    p.add_argument("--drop-alphabet", action="store_true",
                   help="also drop base characters the target text does not need (byte-"
                   "level models keep all 256 bytes)")
    p.add_argument("--drop-specials", action="store_true",
                   help="also drop special tokens the target text does not produce")
    _add_output(p)
    add_project_option(p, "with --project: the language of the target texts, recorded "
                       "with them (any label: de, Hindi, …)")
    p.set_defaults(run=cmd_trim)


def _add_extend_options(p: argparse.ArgumentParser) -> None:
    """A flag per :class:`ExtendOptions` field, from its declaration."""
    from bpe_desktop.core.extend_options import ExtendOptions
    from bpe_desktop.core.options import option_specs

    defaults = ExtendOptions()
    for name, spec in option_specs(ExtendOptions).items():
        default = getattr(defaults, name)
        choices = list(spec.choices) or None
        help_text = spec.help + (f" (default {default})" if default else "")
        p.add_argument("--" + name.replace("_", "-"), default=default, choices=choices,
                       metavar=None if choices else spec.metavar, help=help_text)


def _add_source(p: argparse.ArgumentParser) -> None:
    add_model_option(p, "the tokenizer", "a transformers folder: its tokenizer.json; gpt2: "
                     "the folder, either file, or the prefix", metavar="SOURCE")
    p.add_argument("--format", choices=_IN_FORMATS, dest="format",
                   help="its format, as in 'import' (model: a BPE Desktop model); detected "
                   "when left out")


def _add_output(p: argparse.ArgumentParser) -> None:
    from bpe_desktop.core.adapted_output import output_formats

    p.add_argument("-o", "--output", required=True, metavar="OUT", help=_OUT_HELP)
    p.add_argument("--out-format", choices=output_formats(), metavar="F",
                   help="the output format (default: the source's; model: BPE Desktop "
                   "JSON; transformers: a folder for transformers.AutoTokenizer); one of "
                   + ", ".join(output_formats()))
    p.add_argument("--verify", nargs="+", metavar="FILE",
                   help="then load the written files with the format's own library and "
                   "compare its ids and decoded text on each line of FILE with this "
                   "model's (exit 1 on a difference)")
    p.add_argument("--held-out", nargs="+", metavar="FILE",
                   help="report before/after on these texts: tokens per word, bytes per "
                   "token, unknown tokens, lines whose ids are unchanged")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress or summary")


def _load_source(args):
    from bpe_desktop.core.formats.detect import load_tokenizer

    _check_tokenizer_path(args.model, args.format)
    return load_tokenizer(args.model, args.format)


def _read_lines(names) -> list[str]:
    return [text for name in names or () for _, text in _lines(name)]


#: The files of a transformers folder.
_TRANSFORMERS_FILES = ("tokenizer.json", "tokenizer_config.json", "special_tokens_map.json")


def _check_adapted_output(args, source, fmt: str, inputs: list[str], what: str):
    """Fail before the work when the output cannot be written, cannot hold the source's
    pre-tokenizer (GPT-2 files) or would overwrite an input
    (GPT-2 files and a transformers folder may go into a folder that exists already).
    Returns (the files the source is read from, the files the model goes to)."""
    from bpe_desktop.core.formats import FORMATS, export_files, import_files
    from bpe_desktop.core.formats.gpt2 import file_pair, pattern_problem
    from bpe_desktop.core.safe_write import output_target

    out_format = _output_format(args, fmt)
    if out_format == "gpt2" and source.config.byte_level and (why := pattern_problem(source)):
        raise CliError(f"cannot export as {FORMATS['gpt2'].label.rstrip('…')}: {why}")
    sources = [str(p) for p in import_files(fmt, args.model)] if fmt != "model" else \
        [args.model]
    if fmt == "hf" and os.path.isdir(args.model):  # a transformers folder: all its files
        sources = [os.path.join(args.model, name) for name in _TRANSFORMERS_FILES]
    targets = [args.output]
    if out_format == "gpt2" and not (args.output.endswith((os.sep, "/"))
                                     and not os.path.exists(args.output)):
        targets = [str(p) for p in file_pair(args.output)]
    elif out_format == "transformers" and os.path.isdir(args.output):
        targets = [os.path.join(args.output, name) for name in _TRANSFORMERS_FILES]
    elif out_format == "tiktoken" and output_target(args.output).kind != "stream":
        targets = [str(p) for p in export_files(out_format, args.output)]  # + settings
    for target in targets:
        _check_output(target, sources, "the source tokenizer")
        _check_output(target, inputs, what)
        _check_output(target, _texts(args), "a --verify or --held-out text")
    return sources, targets


def _texts(args) -> list[str]:
    """The texts that --verify and --held-out read (after writing: never overwritten)."""
    return [*(args.verify or ()), *(args.held_out or ())]


def _output_format(args, fmt: str) -> str:
    out = args.out_format or fmt
    if out == "hf" and (os.path.isdir(args.output) or args.output.endswith(os.sep)
                        or not args.out_format and os.path.isdir(args.model)):
        return "transformers"  # a transformers folder source is written back as one
    return out


def cmd_extend(args: argparse.Namespace) -> int:
    from bpe_desktop.core.extend import extend
    from bpe_desktop.core.extend_options import ExtendOptions
    from bpe_desktop.core.new_ids import new_ids_from
    from bpe_desktop.core.options import option_specs
    from bpe_desktop.core.training import CancelToken, Corpus

    for name in args.files:
        if not os.path.isfile(name):
            raise CliError(f"{name}: no such corpus file")
    source, fmt = _load_source(args)
    _check_adapted_output(args, source, fmt, args.files, "a corpus file")
    options = ExtendOptions(**{name: getattr(args, name)
                               for name in option_specs(ExtendOptions)})
    new_ids = new_ids_from(options.new_ids)
    verify, held_out = _read_lines(args.verify), _held_out(args.held_out)
    progress = None if args.quiet else ProgressBar(sys.stderr)
    cancel = CancelToken()
    started = time.perf_counter()
    try:
        result = _in_worker(lambda: extend(
            source, Corpus.from_files(args.files, errors=args.encoding_errors),
            merges=args.merges,
            vocab_size=args.vocab_size, min_frequency=args.min_frequency,
            unknown=options.unknown, new_ids=new_ids,
            on_progress=progress,
            cancel=cancel), cancel)
    except TrainingCancelled:
        _fail("extending cancelled; nothing was written")
        return EXIT_INTERRUPTED
    finally:
        if progress:
            progress.clear()
    from bpe_desktop.cli.standard_input import relabel_corpus

    model = relabel_corpus(result.model, getattr(args, "stdin_copy", None))
    reports = _reports(source, model, held_out)  # before writing: Ctrl-C here keeps the old
    _write(args, model, source, fmt, verify)
    if (run := recording(args)) is not None:
        from bpe_desktop.core.project.metrics import extension_metrics

        run.set_model(model, path=args.output, fmt=_output_format(args, fmt))
        run.add_metrics(extension_metrics(result, reports))
    if not args.quiet:
        report = _report_stream(args.output)
        print(f"{result.new_merges:,} new merges, vocabulary {source.vocab_size:,} -> "
              f"{model.vocab_size:,} tokens, {time.perf_counter() - started:.1f} s",
              file=report)
        if new_ids is not None and result.new_ids:
            reserved = model.vocab_size - source.vocab_size - len(result.new_ids)
            print(f"new tokens at ids {result.new_ids[0]:,} ... {result.new_ids[-1]:,}"
                  + (f"; {reserved:,} ids left free before them are reserved tokens"
                     if reserved else ""), file=report)
        if result.new_characters:
            frequent = sorted(result.new_characters, key=lambda item: -item[1])
            shown = ", ".join(f"{c!r} {n:,}" for c, n in frequent[:20])
            more = len(result.new_characters) - 20
            print(f"{len(result.new_characters):,} new characters: {shown}"
                  + (f" and {more:,} more" if more > 0 else ""), file=report)
        if result.unknown_characters:
            print(f"{len(result.unknown_characters):,} characters left unknown", file=report)
        if result.byte_characters:
            print(f"{len(result.byte_characters):,} characters spelled in byte tokens "
                  "(byte fallback)", file=report)
        _print_reports(reports, report)
    return EXIT_OK


def cmd_trim(args: argparse.Namespace) -> int:
    from bpe_desktop.core.trim import trim, write_id_map

    for name in args.text:
        if not os.path.isfile(name):
            raise CliError(f"{name}: no such text file")
    source, fmt = _load_source(args)
    sources, targets = _check_adapted_output(args, source, fmt, args.text,
                                             "a target text file")
    _check_id_map(args, sources, targets)
    texts = _read_lines(args.text)
    if not any(line.strip() for line in texts):
        raise CliError(f"{', '.join(args.text)}: the target text is empty (nothing but "
                       "spaces and line breaks): there is nothing to keep")
    verify, held_out = _read_lines(args.verify), _held_out(args.held_out)
    result = trim(source, texts, keep_alphabet=not args.drop_alphabet,
                  keep_specials=not args.drop_specials)
    reports = _reports(source, result.model, held_out, result.id_map)
    _write(args, result.model, source, fmt, verify)
    maps = write_id_map(result, args.id_map)
    if (run := recording(args)) is not None:
        from bpe_desktop.core.project.metrics import trim_metrics

        run.set_model(result.model, path=args.output, fmt=_output_format(args, fmt))
        run.add_metrics(trim_metrics(result, reports))
    if not args.quiet:
        report = _report_stream(args.output)
        print(f"kept {len(result.id_map):,} of {source.vocab_size:,} tokens "
              f"({result.dropped:,} dropped); id map: {', '.join(map(str, maps))}",
              file=report)
        _print_reports(reports, report)
    return EXIT_OK


def _check_id_map(args, sources: list[str], targets: list[str]) -> None:
    """The id map's two files (JSON and CSV) can be written, and on neither the model nor
    an input."""
    from bpe_desktop.core.safe_write import output_target
    from bpe_desktop.core.trim import id_map_paths

    id_map, texts = args.id_map, args.text
    if output_target(id_map).kind == "stream":
        raise CliError(f"--id-map {id_map}: the id map is two files (JSON and CSV); give "
                       "a file name")
    model_files = {os.path.realpath(target) for target in targets}
    for path in map(str, id_map_paths(id_map)):
        if os.path.realpath(path) in model_files:
            raise CliError(f"{path}: the id map (--id-map) would overwrite the trimmed "
                           "model (-o); give it another name")
        _check_output(path, sources, "the source tokenizer")
        _check_output(path, texts, "a target text file")
        _check_output(path, _texts(args), "a --verify or --held-out text")


def _held_out(names) -> list[tuple[str, list[str]]]:
    """Each held-out file's lines, read as the Extend form and Evaluate read texts."""
    from bpe_desktop.core.comparison import read_text_lines

    return [(name, read_text_lines([name])) for name in names or ()]


def _write(args, model, source, fmt: str, verify: list[str]) -> None:
    from bpe_desktop.cli.interop import report_verification
    from bpe_desktop.core.adapted_output import (
        TRANSFORMERS_FOLDER,
        verify_transformers_folder,
        write_model,
    )
    from bpe_desktop.core.formats import export_notes, verify_export

    out_format = _output_format(args, fmt)
    paths = write_model(model, out_format, args.output, source=source,
                        source_path=args.model, source_format=fmt)
    report = _report_stream(args.output)
    if not args.quiet:
        print("wrote " + ", ".join(str(p) for p in paths), file=report)
    checked = "hf" if out_format == TRANSFORMERS_FOLDER else out_format
    for note in export_notes(model, checked) if out_format != "model" else ():
        sys.stderr.write(f"{PROG}: warning: {note}\n")
    if verify and out_format != "model":
        files = paths[:1] if out_format == TRANSFORMERS_FOLDER else paths
        try:
            report_verification(verify_export(model, checked, files, verify), args.quiet,
                                report)
            if out_format == TRANSFORMERS_FOLDER:
                report_verification(verify_transformers_folder(model, paths[0].parent,
                                                               verify), args.quiet, report)
        except KeyboardInterrupt:  # the files are in place: say so, not just "interrupted"
            raise KeyboardInterrupt("interrupted while verifying; the files were written: "
                                    + ", ".join(str(p) for p in paths)) from None


def _reports(before, after, held_out, id_map=None) -> list:
    """How ``before`` and ``after`` encode each held-out text (``id_map``: a trim's)."""
    from bpe_desktop.core.adaptation_report import held_out_report

    return [held_out_report(before, after, lines, name, id_map) for name, lines in held_out]


def _print_reports(reports, stream) -> None:
    from bpe_desktop.core.adaptation_report import format_report

    for report in reports:
        print(format_report(report), file=stream)
