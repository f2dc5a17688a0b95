#!/usr/bin/env python3
"""Vocabulary table benchmark: sorting and filtering 100,000 tokens in the GUI's model.

Every operation goes through :class:`VocabTableModel`'s public API (``sort`` emits
layoutAboutToBeChanged/layoutChanged, a filter resets the model) and is followed by
``view.viewport().repaint()`` of a shown ``QTableView`` (offscreen, 1000×700 pixels), so the
time includes what the user waits for. The goal is <= 50 ms per operation.

The Vocabulary tab computes a large table's filter in a worker thread (issue 17): the GUI
thread makes the job (``filter_job``), the worker runs it, and the GUI thread swaps the
rows in (``apply_filter_result``) and repaints. Each filter is timed that way, the GUI
thread's part and the worker's part apart, and in the same run all on the GUI thread
(``set_filter``, as before), as a peer measured under the same load.

The model: ``TrainConfig.preset("gpt2", vocab_size=--vocab)`` trained on gutenberg-100M
(real byte-level pieces; trained once, then cached in ``benchmarks/.cache/``), or with
``--synthetic`` (or when the corpus is missing) a model built from random merges.

Measured, ``--repeat`` times each (median and p95; "first" is the first call, which for
a sort also computes that column's permutation of all ids):

* sort by each column, ascending and descending, starting from another order;
* filters, each applied to the unfiltered table: substrings (case-insensitive and
  -sensitive), regexes (searched in the readable piece; a regex that few tokens match is
  run once over all pieces joined by newlines when that is exact, else once per token),
  a length range;
* typing ``there`` into the filter one keystroke at a time (each keystroke refines the
  previous result), and deleting it again;
* a filter while sorted by count (the filter keeps the sort);
* typing ``there`` and the regex ``^␣th.*s$`` into the Vocabulary tab itself, a keystroke
  every 40 ms, with the filter in the worker and all on the GUI thread: the longest the
  GUI thread stalled.

One-time costs per model are reported apart: building the table (``load_table``) and
segmenting the training words (``load_words``) run in the Vocabulary tab's worker thread;
what the GUI thread does is swap the table in (``set_columns``, a model reset) and paint it.

Output: a Markdown table on stdout, progress on stderr, JSON in
``benchmarks/results/gui_table.json``.
"""

from __future__ import annotations

import argparse
import gc
import itertools
import json
import os
import platform
import random
import statistics
import sys
import time

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from common import CACHE, CORPORA_DIR, RESULTS, ROOT, isolate_app_state, require_corpora  # noqa: E402

try:
    import bpe_desktop.ui  # noqa: F401  (PySide6 before pyqtgraph)
except ImportError:
    sys.path.insert(0, str(ROOT))
    import bpe_desktop.ui  # noqa: F401

import numpy as np  # noqa: E402
from PySide6.QtCore import Qt  # noqa: E402
from PySide6.QtWidgets import QApplication, QTableView  # noqa: E402

from bpe_desktop.core import (  # noqa: E402
    BPEModel,
    Corpus,
    Merge,
    TrainConfig,
    load_model,
    save_model,
    train,
)
from bpe_desktop.views.vocab_loading import load_table, load_words  # noqa: E402
from bpe_desktop.views.vocab_table import make_filter_spec  # noqa: E402
from bpe_desktop.ui.vocabulary.table_model import HEADERS, VocabTableModel  # noqa: E402

GOAL_MS = 50.0
ASC, DESC = Qt.SortOrder.AscendingOrder, Qt.SortOrder.DescendingOrder
FILTERS = [
    ("substring 'the'", dict(text="the")),
    ("substring 'e' (most rows)", dict(text="e")),
    ("substring 'ing', case-sensitive", dict(text="ing", case_sensitive=True)),
    ("substring ' the' (typed space)", dict(text=" the")),
    ("regex '^␣th.*s$'", dict(text="^␣th.*s$", regex=True)),
    ("regex 'ing$'", dict(text="ing$", regex=True)),
    ("regex '[0-9]+'", dict(text="[0-9]+", regex=True)),
    ("regex 'e' (most rows)", dict(text="e", regex=True)),
    ("regex 'The', case-sensitive", dict(text="The", regex=True, case_sensitive=True)),
    ("regex 'q[^u]' (no one-scan: [^u] matches a newline)", dict(text="q[^u]", regex=True)),
    ("length 3–5", dict(min_length=3, max_length=5)),
    ("length >= 10", dict(min_length=10)),
    ("substring 'the' + length 4–6", dict(text="the", min_length=4, max_length=6)),
]
TYPED = "there"
#: What the panel typing benchmark types (text, regex) and a fast typist's pace.
PANEL_TYPED = [(TYPED, False), ("^␣th.*s$", True)]
KEY_INTERVAL_MS = 40


# -- the model ---------------------------------------------------------------------------


def gutenberg_model(vocab: int) -> tuple[BPEModel, str]:
    cached = CACHE / f"gui-table-gpt2-{vocab}.json"
    if cached.is_file():
        log(f"loading the cached model {cached.name}")
        return load_model(str(cached)), f"gpt2 preset, vocab {vocab}, gutenberg-100M (cached)"
    plain = CACHE / "gutenberg-100M.txt"
    source = plain if plain.is_file() else CORPORA_DIR / "gutenberg-100M.txt.gz"
    if not source.is_file():
        raise FileNotFoundError(source)
    log(f"training a {vocab}-token gpt2 model on {source} (cached afterwards)")
    start = time.perf_counter()
    model = train(Corpus.from_files([str(source)]),
                  TrainConfig.preset("gpt2", vocab_size=vocab)).model
    log(f"  trained in {time.perf_counter() - start:.1f} s")
    CACHE.mkdir(parents=True, exist_ok=True)
    save_model(model, str(cached))
    return model, f"gpt2 preset, vocab {vocab}, gutenberg-100M"


def synthetic_model(vocab: int, seed: int = 0) -> tuple[BPEModel, str]:
    """Random merges of earlier tokens over a printable alphabet (counts decreasing)."""
    rng = random.Random(seed)
    alphabet = tuple(sorted({chr(c) for c in range(33, 127)} | set("éüßçñ")))
    pieces, seen, merges = list(alphabet), set(alphabet), []
    count = 10_000_000
    while len(pieces) < vocab - 1:  # <unk> is the last id to fill
        left = pieces[min(int(rng.paretovariate(1.2)) - 1, len(pieces) - 1)]
        right = rng.choice(pieces[: 200 + len(pieces) // 4])
        if len(left) + len(right) > 16 or left + right in seen:
            continue
        seen.add(left + right)
        pieces.append(left + right)
        count = max(2, count - rng.randint(0, 200))
        merges.append(Merge(left, right, count))
    return (BPEModel(config=TrainConfig(), alphabet=alphabet, merges=tuple(merges)),
            f"synthetic, {vocab} tokens")


# -- timing ------------------------------------------------------------------------------


def timed(action, view) -> float:
    start = time.perf_counter()
    action()
    view.viewport().repaint()
    return (time.perf_counter() - start) * 1000


def summary(name: str, times: list[float], rows: int, worker: list[float] | None = None,
            inline: list[float] | None = None) -> dict:
    """``times``: the GUI thread's; ``worker``: the filter in the worker thread;
    ``inline``: the same filter all on the GUI thread (``set_filter``)."""
    out = {"operation": name, "rows": rows, "first_ms": times[0],
           "median_ms": statistics.median(times),
           "p95_ms": float(np.percentile(times, 95)), "max_ms": max(times),
           "runs": len(times)}
    if worker is not None:
        out["worker_median_ms"] = statistics.median(worker)
        out["worker_p95_ms"] = float(np.percentile(worker, 95))
    if inline is not None:
        out["inline_median_ms"] = statistics.median(inline)
        out["inline_p95_ms"] = float(np.percentile(inline, 95))
    return out


class FilterTimes:
    """One filter's times, three ways (see the module's docstring)."""

    def __init__(self) -> None:
        self.gui: list[float] = []
        self.worker: list[float] = []
        self.inline: list[float] = []
        self.swap: list[float] = []  # the GUI thread's part without the repaint

    def inline_run(self, vm, view, settings: dict) -> None:
        self.inline.append(timed(lambda: vm.set_filter(**settings), view))

    def split_run(self, vm, view, settings: dict) -> None:
        start = time.perf_counter()
        job = vm.filter_job(make_filter_spec(**settings))
        made = time.perf_counter()
        result = job()  # in the app: the worker thread
        computed = time.perf_counter()
        assert vm.apply_filter_result(result) and vm.filter_error is None
        swapped = time.perf_counter()
        view.viewport().repaint()
        self.gui.append((made - start + time.perf_counter() - computed) * 1000)
        self.swap.append((made - start + swapped - computed) * 1000)
        self.worker.append((computed - made) * 1000)

    def summary(self, name: str, rows: int) -> dict:
        out = summary(name, self.gui, rows, self.worker, self.inline)
        out["swap_median_ms"] = statistics.median(self.swap)
        return out


def log_filter(row: dict) -> None:
    log(f"  {row['operation']}: GUI thread {row['median_ms']:.1f} ms + worker "
        f"{row['worker_median_ms']:.1f} ms (all on the GUI thread "
        f"{row['inline_median_ms']:.1f} ms), {row['rows']:,} rows")


def bench_sorts(vm, view, repeat: int) -> list[dict]:
    out = []
    for column, name in enumerate(HEADERS):
        for order in (ASC, DESC):
            times = []
            for _ in range(repeat):
                other = (column + 1) % len(HEADERS)
                vm.sort(other, DESC if order == ASC else ASC)  # start from another order
                view.viewport().repaint()
                times.append(timed(lambda: vm.sort(column, order), view))
            label = f"sort {name} {'↑' if order == ASC else '↓'}"
            out.append(summary(label, times, vm.rowCount()))
            log(f"  {label}: {out[-1]['median_ms']:.1f} ms")
    vm.sort(-1, ASC)
    return out


def bench_filters(vm, view, repeat: int) -> list[dict]:
    out = []
    for label, spec in FILTERS:
        times = FilterTimes()
        for _ in range(repeat):
            for run in (times.inline_run, times.split_run):
                vm.set_filter("")
                view.viewport().repaint()
                run(vm, view, spec)
        out.append(times.summary(f"filter {label}", vm.rowCount()))
        log_filter(out[-1])
    vm.set_filter("")
    return out


def bench_typing(vm, view, repeat: int) -> list[dict]:
    steps = [TYPED[:i] for i in range(1, len(TYPED) + 1)]
    steps += [TYPED[:i] for i in range(len(TYPED) - 1, -1, -1)]  # and deleting it again
    times: dict[str, FilterTimes] = {}
    rows: dict[str, int] = {}
    for _ in range(repeat):
        for run in ("inline_run", "split_run"):
            vm.set_filter("")
            view.viewport().repaint()
            for i, text in enumerate(steps):
                key = f"{'type' if i < len(TYPED) else 'delete to'} '{text}'"
                getattr(times.setdefault(key, FilterTimes()), run)(vm, view, {"text": text})
                rows[key] = vm.rowCount()
    out = [t.summary(f"keystroke: {key}", rows[key]) for key, t in times.items()]
    for r in out:
        log_filter(r)
    return out


def bench_panel_typing(model: BPEModel, repeat: int) -> list[dict]:
    """Typing into the Vocabulary tab's filter bar (PANEL_TYPED), a keystroke every
    KEY_INTERVAL_MS, then deleting it: the longest the GUI thread did not answer (the
    largest gap between ticks of a 1 ms timer), with the filter in the worker and, as a
    peer, all on the GUI thread (as before)."""
    from PySide6.QtCore import QEventLoop, QTimer

    from bpe_desktop.ui.vocabulary import filtering
    from bpe_desktop.ui.vocabulary.panel import VocabPanel

    panel = VocabPanel()
    panel.resize(1200, 700)
    panel.show()
    panel.set_model(model)
    app = QApplication.instance()
    while panel.is_loading():
        app.processEvents(QEventLoop.ProcessEventsFlag.WaitForMoreEvents, 50)
    default = filtering.INLINE_FILTER_ROWS
    out = []
    for (typed, regex), (label, inline_rows) in itertools.product(
            PANEL_TYPED, (("in the worker", default), ("all on the GUI thread", 10**9))):
        filtering.INLINE_FILTER_ROWS = inline_rows
        panel.filter_edit.setText("")
        panel.regex_check.setChecked(regex)
        while panel.is_filtering():
            app.processEvents(QEventLoop.ProcessEventsFlag.WaitForMoreEvents, 50)
        steps = [typed[:i] for i in range(1, len(typed) + 1)]
        steps += [typed[:i] for i in range(len(typed) - 1, -1, -1)]
        stalls, totals = [], []
        for _ in range(repeat):
            ticks: list[float] = []
            loop = QEventLoop()
            timer = QTimer()
            timer.setInterval(1)
            timer.timeout.connect(lambda: ticks.append(time.perf_counter()))
            pending = list(steps)

            def next_key():
                if pending:
                    panel.filter_edit.setText(pending.pop(0))
                    QTimer.singleShot(KEY_INTERVAL_MS, next_key)
                elif panel.is_filtering():
                    QTimer.singleShot(1, next_key)
                else:
                    loop.quit()

            start = time.perf_counter()
            timer.start()
            QTimer.singleShot(0, next_key)
            loop.exec()
            timer.stop()
            totals.append((time.perf_counter() - start) * 1000)
            stalls.append(max(np.diff(ticks)) * 1000 if len(ticks) > 1 else 0.0)
            assert panel.table_model.rowCount() == model.vocab_size
        kind = "regex" if regex else "text"
        row = summary(f"panel: typing {kind} '{typed}' and deleting it, filter {label}: "
                      f"longest GUI-thread stall", stalls, model.vocab_size)
        row["total_median_ms"] = statistics.median(totals)
        out.append(row)
        log(f"  {row['operation']}: {row['median_ms']:.1f} ms (p95 {row['p95_ms']:.1f}), "
            f"all keystrokes {row['total_median_ms']:.0f} ms")
    filtering.INLINE_FILTER_ROWS = default
    panel.close()
    return out


def bench_sorted_filter(vm, view, repeat: int) -> list[dict]:
    vm.sort(HEADERS.index("Count"), DESC)
    times = FilterTimes()
    for _ in range(repeat):
        for run in (times.inline_run, times.split_run):
            vm.set_filter("")
            view.viewport().repaint()
            run(vm, view, {"text": "the"})
    row = times.summary("filter 'the' while sorted by count ↓", vm.rowCount())
    log_filter(row)
    vm.set_filter("")
    vm.sort(-1, ASC)
    return [row]


# -- main --------------------------------------------------------------------------------


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def markdown(rows: list[dict]) -> str:
    lines = ["| operation | rows shown | GUI thread median ms | p95 ms | first ms | ≤ 50 ms "
             "| worker median ms | all on the GUI thread (before) median ms |",
             "|---|---:|---:|---:|---:|:-:|---:|---:|"]
    for r in rows:
        ok = "yes" if r["p95_ms"] <= GOAL_MS else ("median" if r["median_ms"] <= GOAL_MS
                                                   else "**no**")
        worker = f"{r['worker_median_ms']:.1f}" if "worker_median_ms" in r else "—"
        inline = f"{r['inline_median_ms']:.1f}" if "inline_median_ms" in r else "—"
        lines.append(f"| {r['operation']} | {r['rows']:,} | {r['median_ms']:.1f} | "
                     f"{r['p95_ms']:.1f} | {r['first_ms']:.1f} | {ok} | {worker} | {inline} |")
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--vocab", type=int, default=100_000)
    ap.add_argument("--repeat", type=int, default=20)
    ap.add_argument("--synthetic", action="store_true",
                    help="random merges instead of a model trained on gutenberg-100M")
    ap.add_argument("--out", type=str, default=str(RESULTS / "gui_table.json"))
    args = ap.parse_args(argv)
    require_corpora()

    app = QApplication.instance() or QApplication([])
    isolate_app_state()  # the user's settings and data stay out of the measurement
    load_before = os.getloadavg()
    if load_before[0] > 0.5:
        log(f"warning: the machine is busy (1-min load {load_before[0]:.2f})")
    try:
        model, source = (synthetic_model(args.vocab) if args.synthetic
                         else gutenberg_model(args.vocab))
    except FileNotFoundError as exc:
        log(f"{exc} is missing: using a synthetic model")
        model, source = synthetic_model(args.vocab)
    log(f"model: {source}, {model.vocab_size:,} tokens")

    vm = VocabTableModel()
    view = QTableView()
    view.setModel(vm)
    view.resize(1000, 700)
    view.setSortingEnabled(True)
    view.horizontalHeader().setSortIndicator(-1, ASC)
    view.show()
    app.processEvents()
    setup = {}
    start = time.perf_counter()
    table = load_table(model, vm.filter_spec(), (-1, False))
    setup["load_table_ms"] = (time.perf_counter() - start) * 1000  # worker thread in the app
    start = time.perf_counter()
    vm.set_columns(table.model, table.columns, table.text_filter, table.mask)
    setup["set_columns_ms"] = (time.perf_counter() - start) * 1000  # GUI thread
    start = time.perf_counter()
    view.viewport().repaint()
    setup["first_paint_ms"] = (time.perf_counter() - start) * 1000
    start = time.perf_counter()
    load_words(table)
    setup["load_words_ms"] = (time.perf_counter() - start) * 1000  # worker thread in the app
    setup["visible_rows"] = view.rowAt(view.viewport().height() - 1) + 1
    log("setup: " + ", ".join(f"{k} {v:.0f}" for k, v in setup.items()))

    gc.collect()
    rows = (bench_sorts(vm, view, args.repeat) + bench_filters(vm, view, args.repeat)
            + bench_typing(vm, view, args.repeat) + bench_sorted_filter(vm, view, args.repeat)
            + bench_panel_typing(model, args.repeat))
    load_after = os.getloadavg()

    print(f"Vocabulary table, {model.vocab_size:,} tokens ({source}); each operation "
          f"includes the model reset/layout change and a repaint of a 1000×700 QTableView "
          f"({setup['visible_rows']} rows visible); a filter's GUI-thread time is making "
          f"the job, swapping its rows in and repainting, the worker's time computing it; "
          f"{args.repeat} runs; 1-min load before/after "
          f"{load_before[0]:.2f}/{load_after[0]:.2f}.\n")
    print(markdown(rows))
    print(f"\nOne-time costs per model: in the worker thread, building the table "
          f"{setup['load_table_ms']:.0f} ms and segmenting {len(model.words):,} training words "
          f"and computing the plots {setup['load_words_ms']:.0f} ms; on the GUI thread, "
          f"swapping the table in {setup['set_columns_ms']:.1f} ms and its first paint "
          f"{setup['first_paint_ms']:.0f} ms.")

    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w", encoding="utf-8") as f:
        json.dump({"benchmark": "gui_table", "stamp": time.strftime("%Y%m%d-%H%M%S"),
                   "model": source, "vocab": model.vocab_size, "repeat": args.repeat,
                   "goal_ms": GOAL_MS, "setup": setup, "results": rows,
                   "load_before": load_before, "load_after": load_after,
                   "python": platform.python_version(), "machine": platform.machine(),
                   "cpus": os.cpu_count()}, f, indent=1, ensure_ascii=False)
    log(f"\nresults: {args.out}")
    view.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
