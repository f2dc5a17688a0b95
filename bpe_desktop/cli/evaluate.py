"""``bpe-desktop evaluate``: judge a tokenizer against gold segmentations and texts.

Shares everything with the Evaluate panel through :mod:`bpe_desktop.core.evaluation`;
this module only parses options and prints (readable tables, or one JSON object).
"""

from __future__ import annotations

import argparse
import os
import sys

from bpe_desktop.cli._common import (
    EXIT_OK,
    CliError,
    UsageError,
    load_model_file,
    print_json,
)
from bpe_desktop.cli.options import add_model_option, whole_number
from bpe_desktop.cli.recording import add_project_option, recording
from bpe_desktop.core.errors import ConfigError
from bpe_desktop.core.evaluation.coverage import CHARACTER_MAPS
from bpe_desktop.core.evaluation.gold import GOLD_FORMATS
from bpe_desktop.core.evaluation.parity import PARITY_MODES
from bpe_desktop.core.evaluation.sweep import DEFAULT_SWEEP_POINTS
from bpe_desktop.core.evaluation.tables import (
    GOLD_HEADERS,
    MORPHOLOGY_HEADERS,
    PARITY_HEADERS,
    gold_notes,
    gold_rows,
    morphology_rows,
    parity_rows,
    text_table,
)
from bpe_desktop.core.formats import FORMATS
from bpe_desktop.views.approximations import approximation_warning

#: --format values: our own model files, or any format an importer reads.
MODEL_FORMATS = ("model", *(n for n, f in FORMATS.items() if f.can_import))


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "evaluate", help="score a tokenizer: morphology, fertility, parity, vocabulary size",
        description="Score a model (ours or any imported format) against gold morph "
        "segmentations (boundary precision, recall, F1, MorphScore), on texts (fertility, "
        "characters and bytes per token, unknown rate, utilisation, Rényi efficiency), "
        "across translations (parity), and, with --sweep, at many vocabulary sizes cut "
        "from the same model. Definitions: Help > Evaluation.",
    )
    add_model_option(p, "the tokenizer")
    p.add_argument("--format", choices=MODEL_FORMATS, default="model", dest="format",
                   help="how to read MODEL (default: a BPE Desktop model file)")
    p.add_argument("--gold", action="append", default=[], metavar="FILE",
                   help="gold segmentations (repeatable; - for standard input)")
    p.add_argument("--gold-format", choices=GOLD_FORMATS,
                   help="format of the gold files (default: recognised from the lines)")
    p.add_argument("--char-map", metavar="MAP",
                   help="rewrite the gold files' spelling before scoring: "
                   f"{', '.join(CHARACTER_MAPS)}, or FROM=TO pairs separated by commas "
                   "(e.g. C=ç,I=ı)")
    p.add_argument("--text", action="append", default=[], metavar="FILE",
                   help="evaluation text, read line by line (repeatable; - for standard "
                   "input)")
    p.add_argument("text", nargs="*", action="extend", metavar="FILE",
                   help="evaluation texts, as --text")
    p.add_argument("--parallel", nargs="+", default=[], metavar="FILE",
                   help="translations of one text, for parity (named by file name, or by folder and "
                        "file name where names repeat: de/udhr.txt fr/udhr.txt)")
    p.add_argument("--reference", metavar="FILE",
                   help="the reference language's file for --parallel")
    p.add_argument("--parity-mode", choices=PARITY_MODES, default="document",
                   help="document: ratio of whole texts (default); lines: mean ratio of "
                   "aligned lines")
    p.add_argument("--sweep", nargs="?", type=whole_number(2), const=DEFAULT_SWEEP_POINTS,
                   default=0, metavar="N",
                   help=f"also evaluate N vocabulary sizes (default {DEFAULT_SWEEP_POINTS}), "
                   "log-spaced from the alphabet to the full model")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    add_project_option(p)
    p.set_defaults(run=cmd_evaluate)


def cmd_evaluate(args: argparse.Namespace) -> int:
    from bpe_desktop.core.evaluation import (
        EvaluationRequest,
        evaluate,
        parse_character_map,
        read_gold,
    )

    if not (args.gold or args.text or args.parallel):
        raise UsageError("nothing to evaluate: give --gold, --text or --parallel")
    if args.parallel and not args.reference:
        raise UsageError("--parallel needs --reference (the reference language's file)")
    if args.reference and not args.parallel:
        raise UsageError("--reference needs --parallel")
    for name in [*args.gold, *args.text, *args.parallel, *filter(None, [args.reference])]:
        if not os.path.isfile(name):
            raise CliError(f"{name}: no such file")
    if args.char_map and not args.gold:
        raise UsageError("--char-map needs --gold (it rewrites the gold files)")
    try:
        character_map = parse_character_map(args.char_map) if args.char_map else {}
    except ConfigError as exc:
        raise UsageError(str(exc)) from None
    model = _load(args.model, args.format)
    request = EvaluationRequest(
        character_map=character_map,
        gold=[read_gold(g, args.gold_format) for g in args.gold], text_files=args.text,
        parallel_files=args.parallel, reference=args.reference,
        parity_mode=args.parity_mode, sweep=args.sweep)
    report = evaluate(model, request)
    _check_words(report, args.text, alone=not (args.gold or args.parallel))
    if (run := recording(args)) is not None:
        from bpe_desktop.core.project.metrics import evaluation_metrics

        run.add_metrics(evaluation_metrics(report))
        run.add_model_config(model)
    if args.json:  # the model's size first, as the text's first line gives it
        print_json({"vocab_size": report.vocab_size, "merges": report.merges,
                    **report.to_json()})
    else:
        sys.stdout.write(format_report(report))
    sys.stdout.flush()
    for name, g in report.gold.items():
        if g.warning:
            print(f"bpe-desktop: warning: {g.warning}", file=sys.stderr)
    warn_approximations([(args.model, report.approximations)])
    return EXIT_OK


def warn_approximations(models) -> None:
    """A warning per ``(name, notes)`` model with notes: its figures describe an
    approximation of the tokenizer it was imported from (after the figures, as the
    other warnings, so a reader of both streams sees it last)."""
    for name, notes in models:
        if notes:
            print(f"bpe-desktop: warning: {approximation_warning(notes, name)}",
                  file=sys.stderr)


def _check_words(report, files: list[str], alone: bool) -> None:
    """A text without a word (an empty file, or nothing on standard input) scores 0 in
    every statistic, which reads as a result: an error when texts are all there is to
    evaluate and none has a word, else a warning naming each."""
    texts = report.texts or ({files[0]: report.text} if report.text is not None else {})
    empty = [name for name, stats in texts.items() if stats.words == 0]
    if alone and empty and len(empty) == len(texts):
        raise CliError(f"{', '.join(empty)}: no words to evaluate (the text is empty)")
    for name in empty:
        print(f"bpe-desktop: warning: {name}: no words (the text is empty); its "
              "statistics are 0", file=sys.stderr)


def _load(path: str, fmt: str):
    if not os.path.exists(path):
        raise CliError(f"{path}: no such model")
    if fmt == "model":
        return load_model_file(path, "--format")
    from bpe_desktop.core.formats import import_model

    return import_model(fmt, path)


def format_report(report) -> str:
    """Readable tables: one per section."""
    out = [f"model: {report.vocab_size:,} tokens, {report.merges:,} merges\n"]
    if report.morphology:
        out.append(_table("Morphology", MORPHOLOGY_HEADERS,
                          morphology_rows(report.morphology)))
    if report.gold:
        notes = [line for g in report.gold.values() for line in gold_notes(g)]
        out.append(_table("Gold files", GOLD_HEADERS, gold_rows(report.gold))
                   + "".join(f"  {line}\n" for line in notes))
    if report.text is not None:
        head, rows = text_table(report)
        out.append(_table("Text", head, rows))
    if report.parity is not None:
        out.append(_table(f"Parity ({report.parity.mode})", PARITY_HEADERS,
                          parity_rows(report.parity)))
    if report.sweep:
        head = ["vocab size", "merges"]
        for name in report.sweep[0].morphology:
            head += [f"F1 {name}", f"MorphScore {name}"]
        if report.sweep[0].text is not None:
            head += ["fertility", "Rényi eff."]
        rows = []
        for p in report.sweep:
            row = [p.vocab_size, p.merges]
            for r in p.morphology.values():
                row += [r.f1, r.morphscore]
            if p.text is not None:
                row += [p.text.fertility, p.text.renyi_efficiency]
            rows.append(row)
        out.append(_table("Vocabulary sizes", head, rows))
    return "\n".join(out)


def _table(title: str, head, rows) -> str:
    cells = [[_cell(v) for v in row] for row in rows]
    widths = [max(len(str(h)), *(len(r[i]) for r in cells)) for i, h in enumerate(head)]
    line = lambda vals: "  ".join(
        v.ljust(w) if i == 0 else v.rjust(w) for i, (v, w) in enumerate(zip(vals, widths)))
    return "\n".join([title, line([str(h) for h in head]),
                      *(line(r) for r in cells)]) + "\n"


def _cell(value) -> str:
    if isinstance(value, float):
        return f"{value:.4f}"
    if isinstance(value, int):
        return f"{value:,}"
    return str(value)
