"""``bpe-desktop compare``: two to four tokenizers on the same text, side by side.

Shares everything with the Compare panel through :mod:`bpe_desktop.core.comparison`;
this module only parses options and prints (readable tables, or one JSON object).
"""

from __future__ import annotations

import argparse
import os
import sys

from bpe_desktop.cli.options import add_model_option
from bpe_desktop.cli.recording import add_project_option, recording
from bpe_desktop.core.comparison import MAX_TOKENIZERS, MIN_TOKENIZERS, model_formats


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "compare", help="compare tokenizers on the same text",
        description=f"Compare {MIN_TOKENIZERS} to {MAX_TOKENIZERS} tokenizers (ours or any "
        "imported format) on a text: boundary agreement of each pair (B's cuts against "
        "A's, as the morphology metrics), the share of words cut identically, token "
        "counts, vocabulary overlap with markers normalised, and the evaluation's text "
        "statistics. Definitions: Help > Comparison.",
    )
    add_model_option(p, "a tokenizer", "repeat: 2 to 4", action="append", dest="models")
    p.add_argument("--format", action="append", default=[], choices=model_formats(),
                   dest="formats", metavar="FMT",
                   help="how to read each MODEL, in order (default: model, a BPE Desktop "
                   f"model file; choices: {', '.join(model_formats())}); one --format "
                   "applies to every MODEL")
    p.add_argument("--text", action="append", default=[], metavar="FILE",
                   help="the text, read line by line (repeatable; - for standard input; "
                   "required unless --parity-dev gives a parallel set)")
    p.add_argument("--parity-dev", nargs="+", action="extend", default=[],
                   metavar="CODE=PATH",
                   help="a parallel set, as train's --parity-dev (line-aligned files per "
                   "language, a folder of files named by language, or one TSV): each "
                   "tokenizer's tokens per line for each language, side by side with the "
                   "max/min ratio and the Gini coefficient (e.g. plain BPE against "
                   "parity-aware); without --text the comparison runs on its lines")
    p.add_argument("--parity-dev-documents", action="store_true",
                   help="the --parity-dev files are whole parallel documents: costs are "
                   "tokens per document")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    add_project_option(p)
    p.set_defaults(run=cmd_compare)


def cmd_compare(args: argparse.Namespace) -> int:
    from bpe_desktop.cli._common import (
        EXIT_OK,
        CliError,
        UsageError,
        load_model_file,
        print_json,
    )
    from bpe_desktop.core.comparison import compare, open_model, read_text_lines

    models = args.models
    if not MIN_TOKENIZERS <= len(models) <= MAX_TOKENIZERS:
        raise UsageError(f"give {MIN_TOKENIZERS} to {MAX_TOKENIZERS} models (-m); "
                         f"got {len(models)}")
    formats = args.formats or ["model"]
    if len(formats) == 1:
        formats = formats * len(models)
    if len(formats) != len(models):
        raise UsageError(f"give one --format for all models or one per model; got "
                         f"{len(formats)} for {len(models)} models")
    if not args.text and not args.parity_dev:
        raise UsageError("give the text to compare on (--text FILE) or a parallel set "
                         "(--parity-dev CODE=PATH…)")
    if args.parity_dev_documents and not args.parity_dev:
        raise UsageError("--parity-dev-documents needs --parity-dev")
    for name in [*models, *args.text]:
        if not os.path.exists(name):
            raise CliError(f"{name}: no such file")
    dev = None
    if args.parity_dev:
        from bpe_desktop.core.parity_dev import load_dev_set

        dev = load_dev_set(args.parity_dev, documents=args.parity_dev_documents)
    loaded = [(name, load_model_file(m, "--format") if f == "model" and os.path.exists(m)
               else open_model(m, f))
              for name, m, f in zip(display_names(models), models, formats)]
    if dev is not None:
        dev = dev.in_order_of(training_languages(model for _, model in loaded))
    if dev is not None and not args.text:
        from bpe_desktop.core.comparison.parity_pair import compare_on_parallel

        result = compare_on_parallel(loaded, dev)
    else:
        lines = read_text_lines(args.text)
        if not any(line.split() for line in lines):  # (all statistics would be 0)
            raise CliError(f"{', '.join(args.text)}: no words to compare on (the text is "
                           "empty)")
        result = compare(loaded, lines)
        if dev is not None:
            import dataclasses

            from bpe_desktop.core.comparison.parity_pair import language_costs

            result = dataclasses.replace(result, language_costs=language_costs(loaded, dev))
    if (run := recording(args)) is not None:
        from bpe_desktop.core.project.metrics import comparison_metrics

        run.add_metrics(comparison_metrics(result))
    if args.json:
        print_json(result.to_json())
    else:
        sys.stdout.write(format_comparison(result))
    sys.stdout.flush()
    from bpe_desktop.cli.evaluate import warn_approximations

    warn_approximations(zip(result.names, result.approximations))
    return EXIT_OK


def training_languages(models) -> list[str]:
    """The training languages of the first model that records some, in their order
    (none: the parallel set's own order)."""
    from bpe_desktop.core.languages import language_paths

    return next((list(codes) for model in models if (codes := language_paths(model.config))),
                [])


def display_names(paths: list[str]) -> list[str]:
    """Each model's file name; the whole path where file names clash, numbered where
    the same path is given twice."""
    bases = [os.path.basename(p.rstrip("/\\")) or p for p in paths]
    names = [b if bases.count(b) == 1 else p for b, p in zip(bases, paths)]
    return [n if names.count(n) == 1 else f"{n} #{k}" for k, n in enumerate(names, 1)]


def format_comparison(result) -> str:
    from bpe_desktop.cli.evaluate import _table

    names = result.names
    out = []
    head = ("measure", *names)
    stats = [s.summary() for s in result.stats]
    rows = [("vocab_size", *result.vocab_sizes)]
    rows += [(key, *(s[key] for s in stats)) for key in stats[0]]
    out.append(_table("Tokenizers", head, rows))
    rows = []
    for p, o in zip(result.pairs, result.overlaps):
        ov = o.summary()
        rows.append((f"{p.a} → {p.b}", p.precision, p.recall, p.f1, p.identical_share,
                     p.skipped, p.tokens_a, p.tokens_b, ov["both"], ov["only_a"],
                     ov["only_b"]))
    out.append(_table("Pairs (B against A)", ("A → B", "precision", "recall", "F1",
                                              "identical", "skipped", "tokens A",
                                              "tokens B", "both", "only A", "only B"), rows))
    costs = result.language_costs
    if costs is not None:
        out.append(_table(f"Languages (tokens per {costs.unit} of the parallel set)",
                          ("language", *names), costs.rows()))
    return "\n".join(out)
