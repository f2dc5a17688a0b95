"""``bpe-desktop history`` and ``bpe-desktop report``: a project's recorded runs, listed
or written up as an HTML or PDF report (see :mod:`bpe_desktop.core.project`)."""

from __future__ import annotations

import argparse
import os
import sys

from bpe_desktop.cli._common import EXIT_OK, CliError, print_json
from bpe_desktop.cli.options import whole_number
from bpe_desktop.core.project.schema import RUN_KINDS, RUN_STATUSES


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "history", help="list the runs recorded in a project",
        description="List the runs recorded in a project file (by --project, or by the "
        "window): id, kind, status, start, duration, preset, corpus and main metrics; "
        "with --json, every run's configuration, files, command, model and metrics.")
    p.add_argument("project", metavar="FILE", help="the project (.bpeproj)")
    p.add_argument("--kind", choices=RUN_KINDS, help="only runs of this kind")
    p.add_argument("--status", choices=RUN_STATUSES, help="only runs with this status")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(run=cmd_history)

    r = sub.add_parser(
        "report", help="write a report (HTML or PDF) of recorded runs",
        description="Write a self-contained report of runs of a project: a comparison of "
        "the runs, then each run's settings, files, command to reproduce it and metrics, "
        "with plots. The file name's ending chooses the format: .html or .pdf.")
    r.add_argument("project", metavar="FILE", help="the project (.bpeproj)")
    r.add_argument("--run", type=whole_number(1), nargs="+", action="extend", required=True,
                   metavar="ID", dest="runs", help="the runs to report on (see 'history')")
    r.add_argument("-o", "--output", required=True, metavar="REPORT",
                   help="where to write the report (.html or .pdf)")
    r.add_argument("--title", default="", help="the report's title")
    r.set_defaults(run=cmd_report)


def _open(path: str):
    from bpe_desktop.core.project import Project

    if not os.path.exists(path):
        raise CliError(f"{path}: no such project")
    return Project(path)


def cmd_history(args: argparse.Namespace) -> int:
    from bpe_desktop.core.project.queries import RunQuery, all_runs
    from bpe_desktop.core.project.report import seconds, when

    with _open(args.project) as project:
        runs = all_runs(project, RunQuery(kind=args.kind or "", status=args.status or "",
                                          descending=False, order_by="id"))
        if args.json:
            details = [project.run_details(r.id) for r in runs]
            print_json({"project": project.path, "runs": [run_json(d) for d in details]})
            return EXIT_OK
    from bpe_desktop.cli.evaluate import _table

    if not runs:
        print(f"0 run(s) in {args.project}")
        return EXIT_OK
    rows = [(r.id, r.kind, r.status, when(r.started), seconds(r.duration), r.preset or "—",
             r.corpus_label or "—", "—" if r.vocab_size is None else r.vocab_size,
             "—" if r.f1 is None else r.f1, "—" if r.fertility is None else r.fertility)
            for r in runs]
    sys.stdout.write(_table(f"{len(runs):,} run(s) in {args.project}",
                            ("id", "kind", "status", "started", "duration", "preset",
                             "corpus", "vocabulary", "F1", "fertility"), rows))
    return EXIT_OK


def run_json(d) -> dict:
    from bpe_desktop.core.project.commands import shell_command

    s = d.summary
    return {"id": s.id, "kind": s.kind, "status": s.status, "message": s.message,
            "started": s.started, "duration": s.duration, "preset": s.preset,
            "peak_memory": d.peak_memory, "engine_version": d.engine_version,
            "app_version": d.app_version, "config": d.config,
            "command": shell_command(d.command),
            "inputs": [{"role": i.role, "path": i.path, "size": i.size, "sha256": i.sha256,
                        "language": i.language} for i in d.inputs],
            "model": ({"path": d.model_path, "stored": d.has_stored_model,
                       "sha256": d.model_sha256}
                      if d.model_path or d.has_stored_model else None),
            "metrics": [{"metric": m.metric, "value": _number(m.value), "source": m.source,
                         "vocab_size": m.vocab_size} for m in d.metrics]}


def _number(value: float) -> float | int:
    """A metric's value; a whole number as an integer: counts (tokens, words, merges) are
    stored as reals, and the JSON gives them as the commands' own --json does."""
    return int(value) if float(value).is_integer() else value


def cmd_report(args: argparse.Namespace) -> int:
    from bpe_desktop.core.project.report import build_report

    kind = os.path.splitext(args.output)[1].lower()
    if kind not in (".html", ".htm", ".pdf"):
        raise CliError(f"{args.output}: give a name ending in .html or .pdf")
    directory = os.path.dirname(os.path.abspath(args.output))
    if not os.path.isdir(directory):
        raise CliError(f"{args.output}: the folder {directory} does not exist")
    with _open(args.project) as project:
        known = set(project.run_ids())
        missing = [i for i in args.runs if i not in known]
        if missing:
            raise CliError(f"{args.project}: no run {', '.join(map(str, missing))} "
                           "(see 'bpe-desktop history')")
        report = build_report(project, args.runs, args.title)
    if kind == ".pdf":
        from bpe_desktop.ui.history.pdf_report import write_pdf_offscreen

        write_pdf_offscreen(report, args.output)
    else:
        from bpe_desktop.core.project.report_html import write_html

        write_html(report, args.output)
    print(f"wrote {args.output}: {len(report.sections)} sections")
    return EXIT_OK
