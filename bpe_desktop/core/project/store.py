"""A project file opened for reading and recording runs.

Several processes may use one project at once (the window and command-line runs): the
database is in WAL mode (readers never wait for a writer), every connection waits up to
:data:`BUSY_TIMEOUT_MS` for a lock instead of failing, and each write is one short
``BEGIN IMMEDIATE`` transaction. A run is inserted as ``running`` with its process id
before any work starts and completed in one transaction with its metrics and model, so
a killed process leaves either nothing or a ``running`` row, never half a result; the
next open marks such rows failed once their process is gone.

One :class:`Project` per thread: its connection is not shared.
"""

from __future__ import annotations

import collections
import json
import os
import socket
import sqlite3
import threading
import time
import zlib
from contextlib import contextmanager
from typing import Iterable, Sequence

from bpe_desktop.core.errors import BpeError
from bpe_desktop.core.project import moves, schema
from bpe_desktop.core.project.corpus_hash import file_identity, sha256_of
from bpe_desktop.core.project.processes import process_alive
# Re-exported: the modules reading runs import them with Project from here.
from bpe_desktop.core.project.records import (  # noqa: F401
    SUMMARY_COLUMNS,
    Metric,
    RunDetails,
    RunInput,
    RunSummary,
    summary_columns,
)

#: How many open projects of this process have each file (device, inode) open. Such a
#: file is not opened again outside SQLite: closing any descriptor of a file drops every
#: lock this process holds on it (POSIX), and without them another program's SQLite
#: would delete the journal this process still writes to, losing runs.
_OPEN_FILES: collections.Counter = collections.Counter()
_OPEN_FILES_LOCK = threading.Lock()

#: How long a writer waits for another's transaction before giving up.
BUSY_TIMEOUT_MS = 30_000
PROJECT_SUFFIX = ".bpeproj"
_SQLITE_MAGIC = b"SQLite format 3\x00"
DIED_MESSAGE = "the process ended before the run finished (killed or crashed)"


class ProjectError(BpeError):
    """A project file that cannot be used: not a project, damaged, or too new."""


class Project:
    """An open project file. Opening creates, migrates (after a backup copy) or refuses
    it, and marks runs left ``running`` by a process that is gone as failed."""

    def __init__(self, path: str | os.PathLike[str], *, verify: bool = True) -> None:
        """``verify``: read every page once (SQLite's quick check) so a damaged file is
        named now; 0.15 s for 100,000 runs, so a command that only records a run leaves it
        out and finds damage, named as well, where its writes meet it."""
        #: Where the file was copied before an update of its format (None: no update).
        self.backup_path: str | None = None
        #: Why the project cannot be written any more (its file moved out of reach).
        self._lost: str | None = None
        self._identity: moves.Identity = None
        self._open(os.path.abspath(os.fspath(path)), verify)

    def _open(self, path: str, verify: bool) -> None:
        self.path = path
        _check_is_sqlite(self.path)
        try:
            # Opened in a worker, used in the GUI thread after: one thread at a time.
            self.conn = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_MS / 1000,
                                        isolation_level=None, check_same_thread=False)
        except sqlite3.Error as exc:
            raise _no_write_access(self.path, exc) or ProjectError(
                f"{self.path}: cannot open the project ({exc})") from None
        try:
            self._prepare_when_free()
            if verify:
                problem = self.conn.execute("PRAGMA quick_check(1)").fetchone()[0]
                if problem != "ok":
                    raise sqlite3.DatabaseError(problem)
            self.mark_abandoned_runs()
        except sqlite3.OperationalError as exc:  # no access, a locked or full disk, …
            self.conn.close()
            if _is_busy(exc):  # still, after BUSY_TIMEOUT_MS
                raise ProjectError(
                    f"{self.path}: cannot open the project: another program holds it "
                    "locked (a database tool, or a BPE Desktop command still writing to "
                    "it); close that program and open the project again") from None
            raise _no_write_access(self.path, exc) or ProjectError(
                f"{self.path}: cannot open the project ({exc})") from None
        except sqlite3.DatabaseError as exc:
            self.conn.close()
            raise ProjectError(f"{self.path}: the project file is damaged ({exc}); "
                               "restore a backup copy") from None
        except BaseException:
            self.conn.close()
            raise
        self._identity = moves.identity(self.path)
        with _OPEN_FILES_LOCK:
            _OPEN_FILES[self._identity] += 1

    def has_moved(self) -> bool:
        """The file at :attr:`path` is not the one opened (renamed, moved or deleted)."""
        return moves.identity(self.path) != self._identity

    def follow_move(self) -> str | None:
        """When the file was renamed, moved or deleted since it was opened: write all this
        connection recorded into it (:mod:`.moves`) and open it again where it is now.
        Returns the new path (None: it did not move); a ProjectError when it is gone.

        No other connection of this process may have the file open by then: SQLite would
        give the new one the old name's journal (the window closes its others first).
        """
        if self._lost:
            raise ProjectError(self._lost)
        if not self.has_moved():
            return None
        old = self.path
        try:
            self.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        except sqlite3.Error as exc:
            unsaved = f" (writing its latest runs into it failed: {exc})"
        else:
            unsaved = ""
        new = moves.current_path(self._identity)
        self.close()
        moves.remove_left_journal(old)
        if new is None:
            self._lost = (f"{old}: the project file was moved, renamed or deleted while it "
                          f"was open{unsaved}; open it where it is now to record runs "
                          "in it")
            raise ProjectError(self._lost)
        try:
            self._open(new, verify=False)
        except ProjectError as exc:
            self._lost = str(exc)
            raise
        return new

    # -- opening --------------------------------------------------------------------------

    def _prepare_when_free(self) -> None:
        """:meth:`_prepare`, tried again while another process holds a lock it needs.

        SQLite answers "locked" at once, without waiting, where waiting could deadlock:
        two processes creating the same new project both switch it to WAL, each holding
        the read lock the other's switch must wait for. The switch is then retried here
        (every step of preparing is idempotent) until :data:`BUSY_TIMEOUT_MS`.
        """
        deadline = time.monotonic() + BUSY_TIMEOUT_MS / 1000
        pause = 0.005
        while True:
            try:
                return self._prepare()
            except sqlite3.OperationalError as exc:
                if not _is_busy(exc) or time.monotonic() + pause > deadline:
                    raise
            time.sleep(pause)
            pause = min(pause * 2, 0.1)

    def _prepare(self) -> None:
        c = self.conn
        c.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        c.execute("PRAGMA foreign_keys = ON")
        version, app_id, tables = self._version()
        self._check_ours(version, app_id, tables)  # before anything writes to another's file
        if c.execute("PRAGMA journal_mode = WAL").fetchone()[0].lower() != "wal":
            raise ProjectError(f"{self.path}: cannot use write-ahead logging here "
                               "(a read-only or network folder?)")
        c.execute("PRAGMA synchronous = NORMAL")  # WAL: durable at checkpoints, never torn
        if version == schema.SCHEMA_VERSION and app_id == schema.APPLICATION_ID:
            return
        if 0 < version < schema.SCHEMA_VERSION:
            self._backup(version)
        with self.transaction():
            version, app_id, tables = self._version()  # another may have done it meanwhile
            self._check_ours(version, app_id, tables)
            if version < schema.SCHEMA_VERSION:
                schema.migrate(c, version)

    def _version(self) -> tuple[int, int, int]:
        """The schema version, application id and number of tables, read in one statement
        so all three come from one state of the file: read one by one, another process
        creating the project between the reads would make it look like another program's.
        """
        return self.conn.execute(
            "SELECT (SELECT user_version FROM pragma_user_version),"
            " (SELECT application_id FROM pragma_application_id),"
            " (SELECT count(*) FROM sqlite_master)").fetchone()

    def _check_ours(self, version: int, app_id: int, tables: int) -> None:
        if app_id == 0 and version == 0:
            if tables:
                raise ProjectError(f"{self.path}: an SQLite database of another program, "
                                   "not a BPE Desktop project")
            return
        if app_id != schema.APPLICATION_ID:
            raise ProjectError(f"{self.path}: an SQLite database of another program, "
                               "not a BPE Desktop project")
        if version > schema.SCHEMA_VERSION:
            raise ProjectError(
                f"{self.path}: made by a newer BPE Desktop (project format {version}; this "
                f"version reads up to {schema.SCHEMA_VERSION}); update BPE Desktop to open it")

    def _backup(self, version: int) -> None:
        """A copy of the file as it was, before a migration changes it."""
        target = f"{self.path}.v{version}.bak"
        tmp = target + ".tmp"
        try:
            copy = sqlite3.connect(tmp)
            try:
                self.conn.backup(copy)
            finally:
                copy.close()
            os.replace(tmp, target)
        except (OSError, sqlite3.Error) as exc:
            raise ProjectError(f"{self.path}: cannot write the backup copy {target} before "
                               f"updating the project format ({exc}); nothing was changed"
                               ) from None
        self.backup_path = target

    def close(self) -> None:
        self.conn.close()
        with _OPEN_FILES_LOCK:
            if self._identity is not None and _OPEN_FILES[self._identity] > 0:
                _OPEN_FILES[self._identity] -= 1
        self._identity = None

    def __enter__(self) -> "Project":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def transaction(self):
        return _Transaction(self.conn)

    def mark_abandoned_runs(self) -> int:
        """Runs left ``running`` by a process of this computer that no longer exists
        become ``failed``; returns how many."""
        host = socket.gethostname()
        rows = self.conn.execute(
            "SELECT id, pid FROM runs WHERE status = 'running' AND host = ?", (host,)
        ).fetchall()
        gone = [run_id for run_id, pid in rows if not process_alive(pid)]
        if gone:
            with self.transaction():
                self.conn.executemany(
                    "UPDATE runs SET status = 'failed', message = ? "
                    "WHERE id = ? AND status = 'running'", [(DIED_MESSAGE, i) for i in gone])
        return len(gone)

    # -- corpora ----------------------------------------------------------------------------

    def corpus_id(self, path: str, name: str | None = None) -> int:
        """The corpus row of a file as it is now, hashing its content only if this size
        and modification time were not seen before; ``name``: what the row calls the
        file instead of its path (a temporary copy of standard input: ``<stdin>``)."""
        path, size, mtime_ns = file_identity(path)
        if name is not None:
            return self._named_corpus_id(name, size, mtime_ns, sha256_of(path))
        row = self.conn.execute(
            "SELECT id FROM corpora WHERE path = ? AND size = ? AND mtime_ns = ?",
            (path, size, mtime_ns)).fetchone()
        if row is not None:
            return row[0]
        digest = sha256_of(path)  # outside any transaction: it may take seconds
        with self.transaction():
            self.conn.execute(
                "INSERT OR IGNORE INTO corpora (path, size, mtime_ns, sha256, language) "
                "VALUES (?, ?, ?, ?, '')", (path, size, mtime_ns, digest))
        return self.conn.execute(
            "SELECT id FROM corpora WHERE path = ? AND size = ? AND mtime_ns = ?",
            (path, size, mtime_ns)).fetchone()[0]

    def _named_corpus_id(self, name: str, size: int, mtime_ns: int, digest: str) -> int:
        """The row of a content recorded under ``name``: one name stands for many
        contents, so rows are told apart by their SHA-256 (a row of the same name, size
        and time but another content moves the new one's time on)."""
        while True:
            row = self.conn.execute(
                "SELECT id, sha256 FROM corpora WHERE path = ? AND size = ? AND mtime_ns = ?",
                (name, size, mtime_ns)).fetchone()
            if row is None:
                break
            if row[1] == digest:
                return row[0]
            mtime_ns += 1
        with self.transaction():
            cur = self.conn.execute(
                "INSERT INTO corpora (path, size, mtime_ns, sha256, language) "
                "VALUES (?, ?, ?, ?, '')", (name, size, mtime_ns, digest))
        return cur.lastrowid

    # -- recording ----------------------------------------------------------------------------

    def start_run(self, *args, **kwargs) -> int:
        with self._named_errors():
            return self._start_run(*args, **kwargs)

    def finish_run(self, *args, **kwargs) -> None:
        with self._named_errors():
            self._finish_run(*args, **kwargs)

    @contextmanager
    def _named_errors(self):
        self.follow_move()
        try:
            yield
        except sqlite3.OperationalError as exc:
            raise _no_write_access(self.path, exc, "write to") or ProjectError(
                f"{self.path}: cannot write to the project ({exc})") from None
        except sqlite3.DatabaseError as exc:
            raise ProjectError(f"{self.path}: the project file is damaged ({exc}); "
                               "restore a backup copy") from None

    def _start_run(self, kind: str, *, config: dict | None = None,
                  command: dict | None = None,
                  inputs: Iterable[tuple[str, ...]] = (), preset: str = "",
                  engine_version: str = "", app_version: str = "",
                  language: str = "", stand_ins: dict[str, str] | None = None) -> int:
        """Insert a ``running`` run; ``inputs`` are (role, path) of the files it reads, or
        (role, path, language) for a corpus file of a known language, ``command`` the
        ``bpe-desktop`` command that does the same (see
        :mod:`~bpe_desktop.core.project.commands`), ``language`` a label for its other
        corpus files, ``stand_ins`` the names recorded for some paths instead."""
        if kind not in schema.RUN_KINDS:
            raise ValueError(f"unknown run kind {kind!r}")
        inputs = [(item[0], item[1], item[2] if len(item) > 2 else language)
                  for item in inputs]
        stand_ins = stand_ins or {}
        ids = [(role, self.corpus_id(p, stand_ins.get(p)), lang) for role, p, lang in inputs
               if os.path.isfile(p)]
        label = ", ".join(os.path.basename(stand_ins.get(p, p)) for role, p, _ in inputs
                          if role in ("corpus", "text", "gold"))
        with self.transaction():
            self.conn.executemany("UPDATE corpora SET language = ? WHERE id = ?",
                                  [(lang, c) for role, c, lang in ids
                                   if role == "corpus" and lang])
            cur = self.conn.execute(
                "INSERT INTO runs (kind, status, config, command, engine_version, "
                "app_version, started, pid, host, preset, corpus_label) "
                "VALUES (?, 'running', ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (kind, json.dumps(config or {}, ensure_ascii=False, sort_keys=True),
                 None if command is None else json.dumps(command, ensure_ascii=False),
                 engine_version, app_version, time.time(), os.getpid(),
                 socket.gethostname(), preset, label[:200]))
            run_id = cur.lastrowid
            positions: dict[str, int] = {}
            for role, corpus, _ in ids:
                positions[role] = positions.get(role, -1) + 1
                self.conn.execute("INSERT INTO run_inputs VALUES (?, ?, ?, ?)",
                                  (run_id, corpus, role, positions[role]))
        return run_id

    def _finish_run(self, run_id: int, status: str, *, message: str = "",
                   metrics: Iterable[Metric] = (), model_path: str | None = None,
                   model_data: bytes | None = None, model_size: tuple[int, int] | None = None,
                   log: str = "", peak_memory: int | None = None,
                   config_added: dict | None = None, command: dict | None = None) -> None:
        """Complete a run in one transaction: status, duration, metrics and model.

        ``model_data`` is the model file's text (stored compressed); ``model_size`` is
        (vocabulary size, merges) of the model, when the run made one; ``config_added``
        joins the run's configuration (what only the work itself learned), and
        ``command``, when given, replaces the one it started with (the work changed how
        it ran).
        """
        if status not in schema.RUN_STATUSES or status == "running":
            raise ValueError(f"a run cannot finish as {status!r}")
        metrics = list(metrics)
        written = model_path is not None and model_size is not None and \
            os.path.isfile(model_path)
        model_sha256 = sha256_of(model_path) if written else None  # outside the transaction
        with self.transaction():
            started = self.conn.execute("SELECT started, kind FROM runs WHERE id = ?",
                                        (run_id,)).fetchone()
            if started is None:
                raise ProjectError(f"{self.path}: run {run_id} is not in the project")
            vocab, f1, fertility = summary_columns(started[1], metrics, model_size)
            if config_added:
                config = json.loads(self.conn.execute(
                    "SELECT config FROM runs WHERE id = ?", (run_id,)).fetchone()[0])
                self.conn.execute("UPDATE runs SET config = ? WHERE id = ?", (json.dumps(
                    {**config, **config_added}, ensure_ascii=False, sort_keys=True), run_id))
            if command is not None:
                self.conn.execute("UPDATE runs SET command = ? WHERE id = ?",
                                  (json.dumps(command, ensure_ascii=False), run_id))
            self.conn.execute(
                "UPDATE runs SET status = ?, message = ?, duration = ?, peak_memory = ?, "
                "log = ?, vocab_size = ?, f1 = ?, fertility = ? WHERE id = ?",
                (status, message, time.time() - started[0], peak_memory, log, vocab, f1,
                 fertility, run_id))
            self.conn.executemany(
                "INSERT INTO metrics (run_id, metric, value, source, vocab_size) "
                "VALUES (?, ?, ?, ?, ?)",
                [(run_id, m.metric, float(m.value), m.source, m.vocab_size) for m in metrics])
            if model_size is not None:
                self.conn.execute(
                    "INSERT INTO models (run_id, path, data, vocab_size, merges, sha256) "
                    "VALUES (?, ?, ?, ?, ?, ?)",
                    (run_id, model_path,
                     None if model_data is None else zlib.compress(model_data, 6),
                     model_size[0], model_size[1], model_sha256))
        self._write_through()

    def _write_through(self) -> None:
        """Copy what was committed into the project file itself (SQLite holds it in
        ``-wal`` beside it until then), so the file alone, copied or sent while a program
        has it open, holds every finished run. Passive: it waits for no one."""
        self.conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()

    # -- reading ------------------------------------------------------------------------------

    def run_details(self, run_id: int) -> RunDetails:
        row = self.conn.execute(
            f"SELECT {', '.join(SUMMARY_COLUMNS)}, config, command, engine_version, "
            "app_version, peak_memory, log FROM runs WHERE id = ?", (run_id,)).fetchone()
        if row is None:
            raise ProjectError(f"{self.path}: there is no run {run_id}")
        n = len(SUMMARY_COLUMNS)
        config, command, engine_version, app_version, peak, log = row[n:]
        inputs = tuple(RunInput(*r) for r in self.conn.execute(
            "SELECT i.role, c.path, c.size, c.sha256, c.language FROM run_inputs i "
            "JOIN corpora c ON c.id = i.corpus_id WHERE i.run_id = ? "
            "ORDER BY i.role, i.position", (run_id,)))
        metrics = tuple(Metric(*r) for r in self.conn.execute(
            "SELECT metric, value, source, vocab_size FROM metrics WHERE run_id = ? "
            "ORDER BY rowid", (run_id,)))
        model = self.conn.execute(
            "SELECT path, data IS NOT NULL, sha256 FROM models WHERE run_id = ?",
            (run_id,)).fetchone()
        return RunDetails(RunSummary(*row[:n]), json.loads(config),
                          None if command is None else json.loads(command), engine_version,
                          app_version, peak, log, inputs, metrics,
                          model[0] if model else None, bool(model and model[1]),
                          model[2] if model else None)

    def stored_model(self, run_id: int) -> bytes | None:
        """The model file's text kept in the project for this run, or None."""
        row = self.conn.execute("SELECT data FROM models WHERE run_id = ?",
                                (run_id,)).fetchone()
        return None if row is None or row[0] is None else zlib.decompress(row[0])

    def run_ids(self) -> list[int]:
        return [r[0] for r in self.conn.execute(
            "SELECT id FROM runs WHERE hidden = 0 ORDER BY id")]

    # -- deleting (undoable while the deleting window is open) ----------------------------

    def data_version(self) -> int:
        """Changes whenever another connection (another program) commits a change."""
        return self.conn.execute("PRAGMA data_version").fetchone()[0]

    def set_language(self, run_id: int, language: str) -> None:
        """Label the corpus files of a run with their language (e.g. ``de``, ``Hindi``)."""
        with self.transaction():
            self.conn.execute(
                "UPDATE corpora SET language = ? WHERE id IN (SELECT corpus_id FROM "
                "run_inputs WHERE run_id = ? AND role = 'corpus')", (language, run_id))
        self._write_through()

    def hide_runs(self, ids: Sequence[int], hidden: bool = True) -> None:
        with self.transaction():
            self.conn.executemany("UPDATE runs SET hidden = ? WHERE id = ?",
                                  [(int(hidden), i) for i in ids])

    def delete_runs(self, ids: Sequence[int]) -> None:
        """Remove runs for good, with their metrics, inputs and models."""
        with self.transaction():
            self.conn.executemany("DELETE FROM runs WHERE id = ?", [(i,) for i in ids])
        self._write_through()


class _Transaction:
    """``BEGIN IMMEDIATE`` … ``COMMIT`` (``ROLLBACK`` on an error): the write lock is
    taken at the start, so a transaction never fails half-way for another's lock."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    def __enter__(self) -> sqlite3.Connection:
        self.conn.execute("BEGIN IMMEDIATE")
        return self.conn

    def __exit__(self, kind, value, tb) -> None:
        if kind is None:
            self.conn.execute("COMMIT")
        else:
            self.conn.execute("ROLLBACK")


def _check_is_sqlite(path: str) -> None:
    if not os.path.exists(path):
        directory = os.path.dirname(path)
        if not os.path.isdir(directory):
            raise ProjectError(f"{path}: the folder {directory} does not exist")
        return
    if os.path.isdir(path):
        raise ProjectError(f"{path}: is a folder, not a project file")
    with _OPEN_FILES_LOCK:
        if _OPEN_FILES[moves.identity(path)]:  # checked when it was opened first
            return
    try:
        with open(path, "rb") as fh:
            head = fh.read(len(_SQLITE_MAGIC))
    except OSError as exc:
        raise ProjectError(f"{path}: cannot read the project ({exc.strerror})") from None
    if head and head != _SQLITE_MAGIC:
        raise ProjectError(f"{path}: not a BPE Desktop project (not an SQLite database)")


def _no_write_access(path: str, exc: sqlite3.Error, doing: str = "open"
                     ) -> ProjectError | None:
    """The error for a project SQLite may not write, or create its journal files beside
    (every command records its runs, so such a project cannot be used where it is); None
    for any other error."""
    code = getattr(exc, "sqlite_errorcode", None)
    if code is None or code & 0xFF not in (sqlite3.SQLITE_CANTOPEN, sqlite3.SQLITE_READONLY):
        return None
    folder = os.path.dirname(path)
    if os.path.exists(path) and not os.access(path, os.W_OK):
        why = "the project file is read-only"
    elif not os.access(folder, os.W_OK | os.X_OK):
        why = f"you may not write to the folder {folder}"
    else:
        why = ("the file, or the journal files SQLite keeps beside it, cannot be written "
               "(a read-only folder, disk or share?)")
    return ProjectError(f"{path}: cannot {doing} the project: {why}; a project must be "
                        "writable: copy the project to a folder you may write to and open "
                        "the copy")


def _is_busy(exc: sqlite3.OperationalError) -> bool:
    return exc.sqlite_errorcode & 0xFF in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED)
