"""Paths shared by the benchmark scripts."""

from __future__ import annotations

import argparse
import atexit
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
CACHE = HERE / ".cache"
RESULTS = HERE / "results"
#: The shared corpora: ``shared/`` beside the repository, or BPE_DESKTOP_CORPORA.
#: The benchmarks need the large corpora, which do not ship with the repository (the tests
#: read their own small copies in tests/data).
CORPORA_DIR = Path(os.environ.get("BPE_DESKTOP_CORPORA") or ROOT.parent / "shared" / "corpora")


_CLOCK_TICK_MS = 1000 / os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 10.0
_proc_stat: int | None = None


def host_stolen_ms() -> float:
    """CPU time the hypervisor gave other guests on this machine's vCPUs (all of them;
    Linux counts it in clock ticks, 10 ms here) since boot; 0 where it is not known. A
    stall that spans stolen time is the host's, whatever the process did. Read through an
    open descriptor: ~3 µs here, cheap enough for every tick of a GUI probe."""
    global _proc_stat
    try:
        if _proc_stat is None:
            _proc_stat = os.open("/proc/stat", os.O_RDONLY)
        first = os.pread(_proc_stat, 256, 0).split(b"\n", 1)[0].split()
        return int(first[8]) * _CLOCK_TICK_MS
    except (OSError, ValueError, IndexError):
        return 0.0


def require_corpora() -> Path:
    """The corpora folder, or a clear stop when it is missing (called by each benchmark's
    main, not on import: the tests import these modules without the corpora)."""
    if not CORPORA_DIR.is_dir():
        raise SystemExit(
            f"benchmarks: the corpora folder {CORPORA_DIR} does not exist; the benchmarks "
            "read the large corpora (gutenberg-100M.txt.gz and others, see "
            "benchmarks/README.md) from there. Set BPE_DESKTOP_CORPORA to the folder that "
            "holds them."
        )
    return CORPORA_DIR


def isolate_app_state() -> Path:
    """Give this process its own empty settings and data folders, never the user's.

    A benchmark must measure the same thing on every machine: the user's saved training
    defaults (a "word-count lists" default once made the GUI benchmark fail), window
    state or autosaves must not reach it. Call it after the QApplication is created
    (``create_application`` names the organization, whose settings this replaces) and
    before any window. Returns the temporary folder, removed at exit.
    """
    from PySide6.QtCore import QCoreApplication, QSettings

    folder = Path(tempfile.mkdtemp(prefix="bpe-desktop-benchmark-"))
    atexit.register(shutil.rmtree, folder, True)
    os.environ["BPE_DESKTOP_DATA_DIR"] = str(folder / "data")
    QCoreApplication.setOrganizationName("bpe-desktop-benchmark")
    QCoreApplication.setApplicationName("bpe-desktop-benchmark")
    QSettings.setDefaultFormat(QSettings.Format.IniFormat)
    QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope,
                      str(folder / "settings"))
    return folder


def add_child_options(ap: argparse.ArgumentParser) -> None:
    """The hidden options with which a benchmark runs one measurement in a child process."""
    ap.add_argument("--timeout", type=float, default=1800, help="seconds per run")
    ap.add_argument("--out", type=Path, default=RESULTS, help="folder for the JSON results")
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    ap.add_argument("--corpus-file", help=argparse.SUPPRESS)
    ap.add_argument("--result", help=argparse.SUPPRESS)


def comma_list(ap: argparse.ArgumentParser, text: str, allowed, what: str) -> list[str]:
    """The items of a comma-separated option, each one checked against ``allowed``."""
    items = [item.strip() for item in text.split(",") if item.strip()]
    for item in items:
        if item not in allowed:
            ap.error(f"unknown {what} {item!r}")
    return items


def compile_bytecode() -> None:
    """Compile BPE Desktop's bytecode, as installing it does (pip compiles every module),
    so that a whole-process timing does not include compiling its sources: with
    PYTHONDONTWRITEBYTECODE set, an editable checkout would compile them in every process,
    while the peers, installed, never do."""
    import compileall
    import importlib.util

    spec = importlib.util.find_spec("bpe_desktop")
    for folder in (spec.submodule_search_locations or []) if spec else []:
        compileall.compile_dir(folder, quiet=1)


def in_child_process(fn, *args):
    """``fn(*args)`` in a spawned process, for work that needs much memory before
    :func:`run_child` measures anything: a child's ``ru_maxrss`` is never below its
    parent's peak (Linux copies the parent's high-water mark when the child starts), so a
    parent that once held 700 MB (writing a 1 GB corpus) made every tool measure 710 MB."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as pool:
        return pool.submit(fn, *args).result()


def parent_peak_mb() -> float:
    """This process's peak RSS: the floor under every ``maxrss_wait4_mb`` it measures."""
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def run_child(cmd: list[str], env: dict, log_path: Path, timeout: float,
              result_arg: bool = True) -> dict:
    """Run one measurement in a child process that writes its JSON result to the file
    named after ``--result`` (not given to a command that takes no such option:
    ``result_arg=False``); kill it (its whole group) after ``timeout`` seconds.

    Returns the child's result merged with ``wall`` (s, seen from here),
    ``maxrss_wait4_mb``, ``returncode``, ``timed_out`` and ``log``.
    """
    with tempfile.NamedTemporaryFile("r", suffix=".json", delete=False) as tmp:
        result_path = tmp.name
    if result_arg:
        cmd = [*cmd, "--result", result_path]
    timed_out = threading.Event()
    with open(log_path, "w") as log:
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd, env=env, stdout=log, stderr=subprocess.STDOUT,
                                start_new_session=True)

        def kill() -> None:
            timed_out.set()
            try:
                os.killpg(proc.pid, signal.SIGKILL)  # our own child's process group only
            except ProcessLookupError:
                pass

        timer = threading.Timer(timeout, kill)
        timer.start()
        try:
            _, status, usage = os.wait4(proc.pid, 0)
        finally:
            timer.cancel()
        wall = time.perf_counter() - t0
    floor = parent_peak_mb()
    if floor >= 100:
        print(f"warning: this benchmark's own peak is {floor:.0f} MB, a floor under the "
              "RSS it measures for its children", file=sys.stderr)
    rec = {"wall": wall, "maxrss_wait4_mb": usage.ru_maxrss / 1024.0,
           "parent_peak_mb": floor,
           "returncode": os.waitstatus_to_exitcode(status), "timed_out": timed_out.is_set(),
           "log": str(log_path)}
    try:
        with open(result_path) as f:
            rec["result"] = json.load(f) if result_arg else None
    except (OSError, ValueError):
        rec["result"] = None
    finally:
        os.unlink(result_path)
    return rec


#: How much text the evaluation and comparison benchmarks read.
TEXT_BYTES = 1_000_000


def first_megabyte() -> list[str]:
    """The first megabyte of tiny-shakespeare, whole lines."""
    data = (require_corpora() / "tinyshakespeare.txt").read_bytes()[:TEXT_BYTES]
    return data[: data.rfind(b"\n") + 1].decode("utf-8").splitlines()


def best(fn, repeat: int) -> float:
    """The best of ``repeat`` timed calls, after one warm-up call."""
    fn()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)
