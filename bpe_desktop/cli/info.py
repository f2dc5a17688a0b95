"""``bpe-desktop info``: a model's summary, or its merges; as text, or with ``--json`` as
one JSON object (the fields of :func:`~bpe_desktop.core.model_summary.model_summary`)."""

from __future__ import annotations

import argparse
import sys

from bpe_desktop.cli._common import EXIT_OK, load_model_file, print_json
from bpe_desktop.cli.options import add_model_option
from bpe_desktop.cli.standard_input import shown_names
from bpe_desktop.core.formatting import counted
from bpe_desktop.core.languages import describe_language_options
from bpe_desktop.core.model_file import created_time


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "info", help="describe a model",
        description="Summarize a model; with --merges, list its merges instead.",
    )
    add_model_option(p)
    p.add_argument("--merges", action="store_true",
                   help="print left<TAB>right<TAB>count per merge, in rank order (a "
                   "backslash, tab, line feed or carriage return in a piece written as "
                   "\\\\ \\t \\n \\r, as in a vocab export)")
    p.add_argument("--json", action="store_true",
                   help="print one JSON object: the summary's facts, or with --merges "
                   "{\"model\", \"merges\": [[left, right, count], ...]} (fields: Help > "
                   "Model files)")
    p.set_defaults(run=cmd_info)


def cmd_info(args: argparse.Namespace) -> int:
    model = load_model_file(args.model)
    out = sys.stdout
    name = shown_names(args.model)  # (standard input's copy: <stdin>)
    if args.json:
        from bpe_desktop.core.model_summary import merge_rows, model_summary

        print_json({"model": name, "merges": merge_rows(model)} if args.merges
                   else {"model": name, **model_summary(model)})
        out.flush()
        return EXIT_OK
    if args.merges:
        from bpe_desktop.core.formats.vocab_list import escape

        # Escaped, so that a piece holding a tab (--pretokenizer space keeps tabs in
        # words) cannot shift the columns.
        out.writelines(f"{escape(m.left)}\t{escape(m.right)}\t"
                       f"{'' if m.count is None else m.count}\n" for m in model.merges)
        out.flush()
        return EXIT_OK
    cfg = model.config
    specials = cfg.special_tokens
    merged = model.vocab_size - len(specials) - len(model.alphabet)
    rows = [
        ("model", name),
        ("created", created_time(model) or "unknown"),
        ("vocabulary", f"{model.vocab_size:,} tokens ({len(specials):,} special, "
                       f"{len(model.alphabet):,} alphabet, {merged:,} from merges)"),
        ("merges", f"{model.merge_count:,}"),
    ]
    if model.description:
        rows.append(("description", model.description))
    target = (f"vocab_size={cfg.vocab_size}" if cfg.vocab_size is not None else
              f"merges={cfg.merges}" if cfg.merges is not None else "no target (until exhausted)")
    rows.append(("training", f"{target}, min_frequency={cfg.min_frequency}"))
    rows.append(("pre-tokenizer", f"{cfg.pretokenizer}, boundary {cfg.boundary}, "
                                  f"ties {cfg.ties}"))
    rows.append(("text", f"normalize {cfg.normalize}"
                         + (", lowercase" if cfg.lowercase else "")
                         + (f", character coverage {cfg.character_coverage}"
                            if cfg.character_coverage != 1 else "")
                         + (f", initial alphabet {cfg.initial_alphabet!r}"
                            if cfg.initial_alphabet else "")))
    rows.append(("special tokens", ", ".join(f"{t.piece} = {t.id} ({t.role})"
                                             for t in specials) or "none"))
    rows.extend(constraint_rows(model))
    if languages := describe_language_options(cfg):
        rows.append(("languages", languages))
    c = model.corpus
    if c is None:
        rows.append(("corpus", "unknown"))
    else:
        rows.append(("corpus", f"{c.kind}: {c.total_words:,} words ({c.distinct_words:,} "
                               f"distinct), {c.characters:,} characters, "
                               f"{c.unknown_characters:,} unknown"
                               + ("; invalid UTF-8 read as U+FFFD"
                                  if c.encoding_errors == "replace" else "")))
        for f in c.files:
            digest = f"sha256 {f.sha256}" if f.sha256 else "no checksum"
            rows.append(("  file", f"{f.path} ({f.size:,} bytes, {digest})"))
    width = max(len(k) for k, _ in rows)
    out.writelines(f"{k + ':':<{width + 1}} {v}\n" for k, v in rows)
    out.flush()
    return EXIT_OK


def constraint_rows(model) -> list[tuple[str, str]]:
    """The linguistic constraints a model was trained with, and what knockout removed."""
    report = model.constraints
    if report is None:
        return [("constraints", "none (plain BPE)")]
    rows = [("constraints", report.method)]
    if report.segmented_words:
        rows.append(("  segmented", f"{report.segmented_words:,} words given boundaries"))
    if report.knocked_out:
        rows.append(("  knocked out", f"{len(report.knocked_out):,} merges "
                                      "(crossings > respects on the gold words)"))
        rows.extend(("  merge", f"{left!r} + {right!r}: {counted(crossings, 'crossing')}, "
                                f"{counted(respects, 'respect')} (round {round_number})")
                    for left, right, crossings, respects, round_number in report.knocked_out)
    return rows
