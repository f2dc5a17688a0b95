"""What a report says, independent of how it is written (HTML here, PDF in the window's
layer): sections of headings, tables, commands and plots, made from the runs chosen.

The first section compares the runs (one row each, and when several have metrics, the
metrics side by side and plotted against vocabulary size); then one section per run:
what it was (kind, status, versions, time, memory), what it read (files with their
content hashes), its full configuration, the command that reproduces it, and every
metric, with a plot of its vocabulary-size sweep if it has one.
"""

from __future__ import annotations

import datetime as _dt
from dataclasses import dataclass, field
from typing import Sequence

from bpe_desktop import __version__
from bpe_desktop.core.formatting import format_bytes
from bpe_desktop.core.project.commands import shell_command
from bpe_desktop.core.project.store import Project, RunDetails

#: Series colours: distinguishable also in grey print (Okabe-Ito).
COLOURS_FOR_PLOTS = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9",
                     "#000000")

#: Metrics plotted against vocabulary size, when a run measured them.
PLOTTED = ("f1", "morphscore", "fertility", "renyi_efficiency", "chars_per_token")


@dataclass
class Table:
    head: tuple[str, ...]
    rows: list[tuple]


@dataclass
class Series:
    label: str
    points: list[tuple[float, float]]


@dataclass
class Plot:
    title: str
    x_label: str
    y_label: str
    series: list[Series]


@dataclass
class Section:
    title: str
    blocks: list = field(default_factory=list)  # Table | Plot | Code | Paragraph


@dataclass
class Code:
    text: str


@dataclass
class Paragraph:
    text: str


@dataclass
class Report:
    title: str
    subtitle: str
    sections: list[Section]


def build_report(project: Project, run_ids: Sequence[int], title: str = "") -> Report:
    runs = [project.run_details(i) for i in run_ids]
    if not runs:
        raise ValueError("a report needs at least one run")
    now = _dt.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M %Z")
    subtitle = (f"{len(runs)} run(s) of {project.path}; written {now} by BPE Desktop "
                f"{__version__}")
    title = title or (f"Run {runs[0].summary.id}: {runs[0].summary.kind}" if len(runs) == 1
                      else f"{len(runs)} runs compared")
    sections = [overview(runs)] + [run_section(r) for r in runs]
    return Report(title, subtitle, sections)


def overview(runs: list[RunDetails]) -> Section:
    section = Section("Overview")
    section.blocks.append(Table(
        ("run", "kind", "status", "started", "duration", "preset", "corpus", "vocabulary",
         "F1", "fertility"),
        [(s.id, s.kind, s.status, when(s.started), seconds(s.duration), s.preset or "—",
          s.corpus_label or "—", s.vocab_size, s.f1, s.fertility)
         for s in (r.summary for r in runs)]))
    measured = [r for r in runs if r.summary.kind == "evaluate" and r.metrics]
    if len(measured) > 1:
        names = sorted({m.metric for r in measured for m in r.metrics
                        if m.vocab_size is None and m.metric in PLOTTED})
        section.blocks.append(Table(
            ("run", "vocabulary", *names),
            [(r.summary.id, r.summary.vocab_size,
              *(_mean_of(r, n) for n in names)) for r in measured]))
        for name in names:
            series = [Series(f"run {r.summary.id}", sweep_points(r, name)) for r in measured]
            series = [x for x in series if x.points]
            if series:
                section.blocks.append(Plot(f"{name} against vocabulary size",
                                           "vocabulary size", name, series))
    return section


def run_section(run: RunDetails) -> Section:
    s = run.summary
    section = Section(f"Run {s.id}: {s.kind}")
    rows = [("status", s.status + (f" — {s.message}" if s.message else "")),
            ("started", when(s.started)), ("duration", seconds(s.duration)),
            ("peak memory", format_bytes(run.peak_memory) if run.peak_memory else "—"),
            ("BPE Desktop", run.app_version), ("engine", run.engine_version)]
    if s.preset:
        rows.append(("preset", s.preset))
    if run.model_path or run.has_stored_model:
        rows.append(("model", run.model_path or "kept in the project"))
    section.blocks.append(Table(("", ""), rows))
    if run.inputs:
        section.blocks.append(Table(("role", "file", "language", "size", "SHA-256"), [
            (i.role, i.path, i.language or "—", format_bytes(i.size), i.sha256)
            for i in run.inputs]))
    if run.config:
        section.blocks.append(Table(("option", "value"), [
            (k, _plain(v)) for k, v in sorted(run.config.items())]))
    command = shell_command(run.command)
    if command:
        section.blocks.append(Paragraph("To reproduce:"))
        section.blocks.append(Code(command))
    full = [m for m in run.metrics if m.vocab_size is None]
    if full:
        section.blocks.append(Table(("metric", "of", "value"), [
            (m.metric, m.source or "—", m.value) for m in full]))
    sizes = sorted({m.vocab_size for m in run.metrics if m.vocab_size is not None})
    if len(sizes) > 1:
        names = [n for n in PLOTTED if any(m.metric == n and m.vocab_size for m in run.metrics)]
        sources = sorted({m.source for m in run.metrics if m.metric in names})
        columns = [(name, src) for name in names for src in sources
                   if any(m.metric == name and m.source == src for m in run.metrics)]
        values = {(m.metric, m.source, m.vocab_size): m.value for m in run.metrics}
        section.blocks.append(Table(
            ("vocabulary size", *(f"{name} ({src})" for name, src in columns)),
            [(size, *(values.get((name, src, size)) for name, src in columns))
             for size in sizes]))
        for name in names:
            series = [Series(src, sorted((m.vocab_size, m.value) for m in run.metrics
                                         if m.metric == name and m.source == src
                                         and m.vocab_size is not None))
                      for src in sources]
            series = [x for x in series if x.points]
            if series:
                section.blocks.append(Plot(f"{name} against vocabulary size",
                                           "vocabulary size", name, series))
    if run.log:
        section.blocks.append(Paragraph("Log:"))
        section.blocks.append(Code(run.log))
    return section


def metric_names(runs: Sequence[RunDetails]) -> list[str]:
    """Every metric the runs measured of their whole model, in a stable order."""
    return sorted({m.metric for r in runs for m in r.metrics if m.vocab_size is None})


def sweep_points(run: RunDetails, metric: str) -> list[tuple[float, float]]:
    """(vocabulary size, mean over sources) of a run's sweep, or its one full-model
    point when it has no sweep."""
    by_size: dict[int, list[float]] = {}
    for m in run.metrics:
        if m.metric == metric and m.vocab_size is not None:
            by_size.setdefault(m.vocab_size, []).append(m.value)
    if not by_size:
        value = _mean_of(run, metric)
        if value is None or run.summary.vocab_size is None:
            return []
        return [(run.summary.vocab_size, value)]
    return sorted((size, sum(v) / len(v)) for size, v in by_size.items())


def _mean_of(run: RunDetails, metric: str) -> float | None:
    values = [m.value for m in run.metrics if m.metric == metric and m.vocab_size is None]
    return sum(values) / len(values) if values else None


def when(timestamp: float | None) -> str:
    if timestamp is None:
        return "—"
    return _dt.datetime.fromtimestamp(timestamp).astimezone().strftime("%Y-%m-%d %H:%M:%S")


def seconds(value: float | None) -> str:
    return "—" if value is None else f"{value:.2f} s"


def _plain(value) -> str:
    if isinstance(value, list):
        return ", ".join(_plain(v) for v in value) or "—"
    if isinstance(value, dict):
        return " ".join(f"{k}={_plain(v)}" for k, v in value.items())
    return "—" if value is None or value == "" else str(value)

