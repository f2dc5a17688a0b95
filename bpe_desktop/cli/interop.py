"""``bpe-desktop export`` and ``import``: models in other tools' formats."""

from __future__ import annotations

import argparse
import os
import sys

from bpe_desktop.cli._common import (
    EXIT_INTERRUPTED,
    EXIT_OK,
    PROG,
    CliError,
    UsageError,
    _check_output,
    _check_tokenizer_path,
    _fail,
    _in_worker,
    _lines,
    _refuse_overwriting,
    _report_stream,
    load_model_file,
)
from bpe_desktop.cli.options import (
    add_encoding_errors_option,
    add_model_option,
    probability,
    whole_number,
)
from bpe_desktop.cli.progress import ProgressBar
from bpe_desktop.core.adapted_output import TRANSFORMERS_FOLDER
from bpe_desktop.core.errors import TrainingCancelled
from bpe_desktop.core.formats import FORMATS
from bpe_desktop.core.model_file import save_model
from bpe_desktop.core.safe_write import output_target


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "export", help="write a model in another tool's format",
        description="Write a model as a Hugging Face tokenizer.json (hf), GPT-2 vocab.json + "
        "merges.txt (gpt2: -o is a folder, a prefix, or the vocab.json name), a "
        "folder for transformers.AutoTokenizer (transformers: tokenizer.json with "
        "tokenizer_config.json and special_tokens_map.json), subword-nmt codes, a sentencepiece .model, tiktoken ranks (plus PATH.json with the pattern "
        "and special tokens), fastBPE codes (left right count), a YouTokenToMe model or a "
        "vocabulary list (vocab: piece, id, count). A model whose settings a format "
        "cannot express is refused, with the reason.",
    )
    add_model_option(p)
    p.add_argument("--format", required=True, choices=(*FORMATS, TRANSFORMERS_FOLDER),
                   dest="format")
    p.add_argument("-o", "--output", required=True, metavar="PATH",
                   help="where to write (- for standard output, for a format of one file)")
    p.add_argument("--legacy-merges", action="store_true",
                   help="hf: write merges as \"left right\" strings (for old readers)")
    p.add_argument("--no-settings", action="store_true",
                   help="tiktoken: do not write PATH.json (pattern and special tokens)")
    p.add_argument("--with-vocab", action="store_true",
                   help="fastbpe: also write the vocabulary file PATH.vocab (token count)")
    p.add_argument("--dropout", type=probability, metavar="P",
                   help="hf: write BPE-dropout P into the model (Hugging Face then samples)")
    p.add_argument("--verify", metavar="FILE",
                   help="then load the files with the format's own library and compare its "
                   "segmentation and decoding of each line of FILE with this model's (exit 1 "
                   "on a difference)")
    p.add_argument("--verify-lines", type=whole_number(1), metavar="N",
                   help="verify on the first N lines of FILE only")
    p.add_argument("-q", "--quiet", action="store_true", help="no summary")
    p.set_defaults(run=cmd_export)

    p = sub.add_parser(
        "import", help="read another tool's tokenizer as a model",
        description="Read a tokenizer written by another tool (its merges, vocabulary, "
        "special tokens and text settings) and save it as a BPE Desktop model. Formats "
        "store no merge counts; --recount fills them in by replaying the merges over a "
        "corpus.",
    )
    p.add_argument("--format", required=True, dest="format",
                   choices=tuple(n for n, f in FORMATS.items() if f.can_import))
    p.add_argument("path", metavar="PATH",
                   help="the file (gpt2: the folder, either file, or the prefix)")
    p.add_argument("-o", "--output", required=True, metavar="MODEL",
                   help="where to write the model (JSON; - for standard output)")
    p.add_argument("--recount", nargs="+", metavar="CORPUS",
                   help="corpus files (UTF-8, may be .gz) to count the merges on")
    add_encoding_errors_option(p)
    p.add_argument("-q", "--quiet", action="store_true", help="no progress or summary")
    p.set_defaults(run=cmd_import)


def cmd_export(args: argparse.Namespace) -> int:
    from bpe_desktop.core.adapted_output import (
        model_files,
        verify_transformers_folder,
        write_transformers_folder,
    )
    from bpe_desktop.core.formats import (
        export_model,
        export_notes,
        verify_export,
    )
    from bpe_desktop.core.formats.verify import verifiable_format

    options: dict[str, object] = {}
    if args.legacy_merges:
        if args.format != "hf":
            raise UsageError("--legacy-merges is an option of --format hf")
        options["legacy_merges"] = True
    if args.no_settings:
        if args.format != "tiktoken":
            raise UsageError("--no-settings is an option of --format tiktoken")
        options["sidecar"] = False
    if args.with_vocab:
        if args.format != "fastbpe":
            raise UsageError("--with-vocab is an option of --format fastbpe")
        options["vocab"] = True
    if args.dropout is not None:
        if args.format != "hf":
            raise UsageError("--dropout is an option of --format hf")
        options["dropout"] = args.dropout
    if args.verify_lines is not None and args.verify is None:
        raise UsageError("--verify-lines needs --verify FILE")
    folder = args.format == TRANSFORMERS_FOLDER
    checked = "hf" if folder else args.format  # a transformers folder holds a tokenizer.json
    if args.verify is not None:
        verifiable_format(checked)
    if folder and output_target(args.output).kind == "stream":
        raise CliError(f"{args.output}: is a stream, but a transformers folder is three "
                       "files; give a folder")
    if args.verify is not None and output_target(args.output).kind == "stream":
        raise CliError(f"--verify reads the written files back, but {args.output} is a "
                       "stream; give a file name with -o")
    if output_target(args.output).kind != "stream":
        for path in map(str, model_files(args.format, args.output, **options)):
            _refuse_overwriting(path, [args.model], "the model file itself")
            _refuse_overwriting(path, [args.verify] if args.verify else [],
                                "the --verify text")
    model = load_model_file(args.model)
    sample = None
    if args.verify is not None:  # read before writing: a bad FILE leaves nothing behind
        limit = args.verify_lines
        sample = []
        for number, text in _lines(args.verify):
            if limit is not None and number > limit:
                break
            sample.append(text)
    report = _report_stream(args.output)
    if folder:
        paths = write_transformers_folder(model, args.output)
    else:
        paths = export_model(model, args.format, args.output, **options)
    if not args.quiet:
        print("wrote " + ", ".join(str(p) for p in paths), file=report)
    for note in export_notes(model, checked):
        sys.stderr.write(f"{PROG}: warning: {note}\n")
    if sample is not None:
        report_verification(verify_export(model, checked, paths[:1] if folder else paths,
                                          sample), args.quiet, stream=report)
        if folder:
            report_verification(verify_transformers_folder(model, paths[0].parent, sample),
                                args.quiet, stream=report)
    return EXIT_OK


def report_verification(result, quiet: bool, stream=None) -> None:
    """Print a verification's summary (to ``stream``, standard output by default); a
    CliError saying where the first differing line differs."""
    if result.differs:
        raise CliError(f"{result.summary()}; the files were written, but "
                       f"{result.mismatch_text()}")
    if not quiet:
        print(result.summary(), file=stream or sys.stdout)


def cmd_import(args: argparse.Namespace) -> int:
    from bpe_desktop.core.formats import import_files, import_model, recount
    from bpe_desktop.core.training import CancelToken, Corpus

    _check_tokenizer_path(args.path, args.format)
    corpus_files = args.recount or []
    if args.encoding_errors != "strict" and not corpus_files:
        raise UsageError("--encoding-errors needs --recount (it says how the corpus is "
                         "read)")
    for name in corpus_files:
        if not os.path.isfile(name):
            raise CliError(f"{name}: no such corpus file")
    _check_output(args.output, [str(p) for p in import_files(args.format, args.path)],
                  "the imported tokenizer")
    _check_output(args.output, corpus_files)
    model = import_model(args.format, args.path)
    if corpus_files:
        progress = None if args.quiet else ProgressBar(sys.stderr)
        cancel = CancelToken()
        try:
            corpus = Corpus.from_files(corpus_files, errors=args.encoding_errors)
            model = _in_worker(lambda: recount(model, corpus, progress=progress,
                                               cancel=cancel), cancel)
        except TrainingCancelled:
            _fail("recounting cancelled; nothing was written")
            return EXIT_INTERRUPTED
        finally:
            if progress:
                progress.clear()
    save_model(model, args.output)
    if not args.quiet:
        counted = " with counts" if corpus_files else ""
        report = _report_stream(args.output)
        print(f"{model.merge_count:,} merges{counted}, vocabulary of {model.vocab_size:,} "
              f"tokens; saved {args.output}", file=report)
        print(model.description, file=report)
    return EXIT_OK
