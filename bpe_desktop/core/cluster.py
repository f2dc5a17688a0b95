"""Count words on a Dask cluster: the same table as :func:`counting.count_words`.

Files are cut into partitions — a ``.gz`` file or a file of at most ``partition_bytes``
whole, a larger plain file into byte ranges that end at line breaks (words never cross a
line) — and each partition is counted on a worker by the engine. Partial tables travel as
escaped table text and are merged pairwise, neighbours with neighbours, in a tree, so
first-seen order survives (the left table's words come first) and no task ever holds more
than two partial tables; only the final table reaches the client. A worker lost mid-run
has its tasks rerun elsewhere by the scheduler (``distributed.scheduler.allowed-failures``
times), and since every task is a pure function of its partition the table stays exact.

Workers must see the corpus files under the same paths (a shared or copied file system).
Dask is optional: ``pip install "bpe-desktop[cluster]"``.
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import time
import warnings
from dataclasses import dataclass
from typing import Callable, Iterator, Sequence

from bpe_desktop.core.config import TrainConfig
from bpe_desktop.core.counting import (
    CountProgress,
    WordCountTable,
    engine_count,
    expand_inputs,
)
from bpe_desktop.core.errors import ConfigError, CorpusError
from bpe_desktop.core.training import Corpus
from bpe_desktop.signals import sigint_held

#: Default partition size: large enough that a task's overhead is negligible, small
#: enough that a worker holds one comfortably.
DEFAULT_PARTITION_BYTES = 64 << 20
#: How far past a tentative cut we read, per step, looking for the next line break.
_SCAN = 1 << 16
INSTALL_COMMAND = 'pip install "bpe-desktop[cluster]"'
INSTALL_HINT = f"Dask is not installed; to count on a cluster run: {INSTALL_COMMAND}"


def dask_available() -> bool:
    """Whether Dask is installed: looked up, not imported. The import takes seconds, and
    :func:`connect` makes it with Ctrl-C held back (a Ctrl-C inside an import can land in
    a callback, where Python prints it and goes on)."""
    import importlib.util

    return importlib.util.find_spec("distributed") is not None


@dataclass(frozen=True)
class Partition:
    """A whole file (``start`` None) or the bytes ``start:stop`` of a plain file."""

    path: str
    size: int
    start: int | None = None
    stop: int | None = None


def parse_target(spec: str) -> tuple[str, int | str]:
    """``local`` / ``local:N`` -> ("local", N: 0 for one per core); else ("address", spec)."""
    if spec == "local" or spec.startswith("local:"):
        _, _, n = spec.partition(":")
        if not n:
            return "local", 0
        if not n.isdigit() or not 1 <= int(n) <= 1024:
            raise ConfigError(f"--dask local:N needs N from 1 to 1024; got {n!r}")
        return "local", int(n)
    if not spec.strip():
        raise ConfigError("--dask needs 'local', 'local:N' or a scheduler address")
    return "address", spec


@contextlib.contextmanager
def connect(spec: str, *, log_path: str | os.PathLike | None = None) -> Iterator[object]:
    """A Dask client: on a new ``LocalCluster`` (closed, its worker processes ended, on
    exit) or on the running scheduler at ``spec`` (e.g. ``tcp://host:8786``).

    Dask's own logging (a failed task's traceback, shutdown chatter) goes to
    ``log_path`` (appended), not to the terminal: the error that matters reaches the
    caller as an exception. The local workers log only what is critical.
    """
    kind, value = parse_target(spec)
    try:
        with sigint_held():  # a Ctrl-C in an import's callback would be printed and lost
            from distributed import Client, LocalCluster
    except ImportError:
        raise ConfigError(INSTALL_HINT) from None
    _route_dask_logging(log_path)
    if kind == "local":
        workers = value or (os.cpu_count() or 1)
        with _workers_without_sigint(), contextlib.ExitStack() as stack:
            # Ctrl-C waits: a half-made cluster cannot be closed cleanly. Dask warns on
            # stderr when the dashboard's usual port is taken and takes another: the
            # dashboard link names the port in use.
            with sigint_held(), warnings.catch_warnings():
                warnings.filterwarnings("ignore", "Port .* is already in use", UserWarning)
                cluster = stack.enter_context(LocalCluster(
                    n_workers=workers, threads_per_worker=1, processes=True,
                    silence_logs=logging.CRITICAL))
                client = stack.enter_context(Client(cluster))
            yield client
        return
    try:
        client = Client(value, timeout="20s")
    except (OSError, ValueError) as exc:  # (ValueError: an address Dask cannot parse)
        raise ConfigError(f"cannot reach the Dask scheduler at {value}: {exc}") from None
    with client:
        yield client


@contextlib.contextmanager
def _workers_without_sigint() -> Iterator[None]:
    """Worker processes started in the block never see Ctrl-C; the command does.

    A terminal sends Ctrl-C (SIGINT) to every process of the command, the workers too,
    and each printed its own traceback. A process inherits the signal mask of the thread
    that starts it, so each worker process is started (by multiprocessing, from Dask's
    own thread) with SIGINT blocked; the cluster ends its workers when the command
    stops. This process's handling is unchanged.
    """
    import multiprocessing.util as mp_util

    spawn = getattr(mp_util, "spawnv_passfds", None)
    if spawn is None or not hasattr(signal, "pthread_sigmask"):
        yield
        return

    def spawn_without_sigint(*args, **kwargs):
        previous = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        try:
            return spawn(*args, **kwargs)
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, previous)

    mp_util.spawnv_passfds = spawn_without_sigint
    try:
        yield
    finally:
        mp_util.spawnv_passfds = spawn


#: The loggers of Dask's packages (each is configured apart, with its own handlers).
_DASK_LOGGERS = ("distributed", "dask", "tornado", "asyncio", "bokeh")


def _route_dask_logging(log_path: str | os.PathLike | None) -> None:
    """Dask's loggers write to ``log_path`` (or nowhere) from now on.

    Not undone when the cluster closes: its last messages come as the process exits (its
    shutdown runs at exit), and they belong in the file too.
    """
    handler: logging.Handler = logging.NullHandler()
    if log_path is not None:
        try:
            handler = logging.FileHandler(log_path, encoding="utf-8", delay=True)
        except OSError:
            pass
        handler.setFormatter(logging.Formatter(
            "%(asctime)s %(levelname)s %(name)s: %(message)s"))
    for name in _DASK_LOGGERS:
        logger = logging.getLogger(name)
        logger.handlers = [handler]
        logger.propagate = False


def plan_partitions(paths: Sequence[str], partition_bytes: int) -> list[Partition]:
    """Partitions of every file, in corpus order. Cuts are placed just after the first
    line break at or after each multiple of ``partition_bytes`` (read from disk around
    the cut only)."""
    if partition_bytes < 1:
        raise ConfigError(f"partition size must be at least 1 byte; got {partition_bytes}")
    parts: list[Partition] = []
    for path in paths:
        try:
            size = os.path.getsize(path)
        except OSError as exc:
            raise CorpusError(f"{path}: {exc.strerror or exc}", path=path,
                              reason="missing" if isinstance(exc, FileNotFoundError)
                              else "unreadable") from None
        if path.endswith(".gz") or size <= partition_bytes:
            parts.append(Partition(path, size))
            continue
        start = 0
        with open(path, "rb") as fh:
            while start < size:
                cut = _line_end_after(fh, start + partition_bytes, size)
                parts.append(Partition(path, cut - start, start, cut))
                start = cut
    return parts


def _line_end_after(fh, position: int, size: int) -> int:
    """The offset just after the first ``\\n`` at or after ``position - 1`` (or ``size``)."""
    if position >= size:
        return size
    fh.seek(position - 1)
    offset = position - 1
    while offset < size:
        chunk = fh.read(_SCAN)
        found = chunk.find(b"\n")
        if found >= 0:
            return offset + found + 1
        offset += len(chunk)
        if not chunk:
            break
    return size


def _config_fields(config: TrainConfig) -> dict:
    """What a worker needs of the config (the text rules), as plain data to ship."""
    return {"normalize": config.normalize, "lowercase": config.lowercase,
            "pretokenizer": config.pretokenizer, "boundary": config.boundary}


def _config(fields: dict) -> TrainConfig:
    return TrainConfig(threads=1, **fields)


def count_partition(part: Partition, fields: dict, errors: str) -> str:
    """Count one partition on a worker; its table as escaped table text ("" when it holds
    no words). Errors name the file and the byte offset in it."""
    config = _config(fields)
    if part.start is None:
        source = Corpus("files", paths=(part.path,), errors=errors)
    else:
        source = Corpus("texts", texts=(_read_range(part, errors),))
    try:
        return engine_count(source, config, threads=1).text()
    except CorpusError as exc:
        if exc.reason == "no-words":  # other partitions may have words
            return ""
        raise


def _read_range(part: Partition, errors: str) -> str:
    with open(part.path, "rb") as fh:
        fh.seek(part.start)
        data = fh.read(part.stop - part.start)
    if len(data) != part.stop - part.start:
        raise CorpusError(f"{part.path} changed while it was being read (it is shorter now)",
                          path=part.path, offset=part.start + len(data), reason="changed")
    if part.start == 0 and data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    nul = data.find(b"\x00")
    if nul >= 0 and errors == "strict":
        offset = part.stop - len(data) + nul
        raise CorpusError(f"{part.path}: a NUL byte at byte offset {offset} (binary data?)",
                          path=part.path, offset=offset, reason="nul-byte")
    try:
        text = data.decode("utf-8", errors=errors)
    except UnicodeDecodeError as exc:
        offset = part.stop - len(data) + exc.start
        raise CorpusError(f"{part.path}: invalid UTF-8 at byte offset {offset}",
                          path=part.path, offset=offset, reason="not-utf8") from None
    return text.replace("\x00", "\ufffd") if nul >= 0 else text


def merge_partial_tables(left: str, right: str, fields: dict) -> str:
    """Two partial tables summed, ``left``'s words first (first-seen order)."""
    if not left or not right:
        return left or right
    source = Corpus.from_table_texts((left, right))
    return engine_count(source, _config(fields), threads=1).text()


def count_on_dask(
    inputs: Sequence[str | os.PathLike],
    config: TrainConfig | None,
    client,
    *,
    partition_bytes: int = DEFAULT_PARTITION_BYTES,
    errors: str = "strict",
    on_progress: Callable[[CountProgress], None] | None = None,
    count_task: Callable[[Partition, dict, str], str] = count_partition,
    language: str = "",
) -> WordCountTable:
    """Count ``inputs`` (files, folders, globs) on the cluster behind ``client``; the
    table, labelled ``language``, equals :func:`counting.count_words`'s. ``count_task``
    is the function run per partition (replaceable for tests)."""
    from distributed import as_completed

    config = config or TrainConfig()
    if errors not in ("strict", "replace"):
        raise ConfigError("errors must be 'strict' or 'replace'")
    paths = expand_inputs(inputs)
    parts = plan_partitions(paths, partition_bytes)
    fields = _config_fields(config)
    started = time.monotonic()
    total = sum(p.size for p in parts)
    counted = [client.submit(count_task, part, fields, errors, pure=False) for part in parts]
    size_of = {f.key: p.size for f, p in zip(counted, parts)}
    level = counted
    while len(level) > 1:  # the tree: neighbours merged pairwise, level by level
        level = [client.submit(merge_partial_tables, level[i], level[i + 1], fields, pure=False)
                 if i + 1 < len(level) else level[i] for i in range(0, len(level), 2)]
    final = level[0]
    del level
    done_bytes = done_parts = 0
    pending = as_completed(counted)
    del counted  # the client keeps no partial table once its merge has used it
    for future in pending:
        if future.status == "error":
            future.result()  # raises the worker's exception (a CorpusError names the place)
        done_bytes += size_of[future.key]
        done_parts += 1
        if on_progress is not None:
            on_progress(CountProgress(done_bytes, total, 0, done_parts, len(parts),
                                      time.monotonic() - started))
        del future
    text = final.result()
    del final
    if not text:
        raise CorpusError(f"the corpus files contain no words: {', '.join(paths[:10])}",
                          path=paths[0], reason="no-words")
    return engine_count(Corpus.from_table_texts((text,)), config, language=language)
