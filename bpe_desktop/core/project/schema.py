"""The project file's tables and their migrations.

A project is one SQLite database. ``PRAGMA application_id`` marks it as ours (so another
program's database is refused, not altered) and ``PRAGMA user_version`` is its schema
version. Each migration takes a database from version ``n - 1`` to ``n``; a new project
runs all of them, so the path an old file takes is the path every file has taken.
"""

from __future__ import annotations

import sqlite3

#: "BPEP": tells a BPE Desktop project from any other SQLite database.
APPLICATION_ID = 0x42504550

#: What a run can be (version 1 had all but ``trim``; version 3 adds it).
RUN_KINDS = ("train", "extend", "evaluate", "compare", "count", "trim")
_V1_KINDS = RUN_KINDS[:5]
RUN_STATUSES = ("running", "finished", "cancelled", "failed")

_V1 = f"""
CREATE TABLE corpora (
    id INTEGER PRIMARY KEY,
    path TEXT NOT NULL,
    size INTEGER NOT NULL,
    mtime_ns INTEGER NOT NULL,
    sha256 TEXT NOT NULL,
    language TEXT NOT NULL DEFAULT '',
    UNIQUE (path, size, mtime_ns)
);
CREATE TABLE runs (
    id INTEGER PRIMARY KEY,
    kind TEXT NOT NULL CHECK (kind IN {_V1_KINDS!r}),
    status TEXT NOT NULL CHECK (status IN {RUN_STATUSES!r}),
    message TEXT NOT NULL DEFAULT '',
    config TEXT NOT NULL DEFAULT '{{}}',
    command TEXT,
    engine_version TEXT NOT NULL DEFAULT '',
    app_version TEXT NOT NULL DEFAULT '',
    started REAL NOT NULL,
    duration REAL,
    peak_memory INTEGER,
    pid INTEGER,
    host TEXT NOT NULL DEFAULT '',
    log TEXT NOT NULL DEFAULT ''
);
CREATE TABLE run_inputs (
    run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    corpus_id INTEGER NOT NULL REFERENCES corpora(id),
    role TEXT NOT NULL,
    position INTEGER NOT NULL,
    PRIMARY KEY (run_id, role, position)
);
CREATE TABLE models (
    id INTEGER PRIMARY KEY,
    run_id INTEGER NOT NULL UNIQUE REFERENCES runs(id) ON DELETE CASCADE,
    path TEXT,
    data BLOB,
    vocab_size INTEGER NOT NULL,
    merges INTEGER NOT NULL
);
CREATE TABLE metrics (
    run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    metric TEXT NOT NULL,
    value REAL NOT NULL,
    source TEXT NOT NULL DEFAULT '',
    vocab_size INTEGER
);
CREATE INDEX metrics_by_run ON metrics (run_id);
CREATE INDEX inputs_by_corpus ON run_inputs (corpus_id);
CREATE INDEX runs_by_started ON runs (started);
CREATE INDEX runs_by_status ON runs (status) WHERE status = 'running';
"""

# Version 2: the columns History shows and sorts by, kept on the run itself (one indexed
# column each, and each number with the kind: a kind's runs sorted by a number another
# kind has, say trainings by F1, would read the others first) so a list of 100,000 runs
# sorts and filters without joining metrics; and
# a flag for runs deleted in a window that can still undo the deletion.
_V2 = """
ALTER TABLE runs ADD COLUMN preset TEXT NOT NULL DEFAULT '';
ALTER TABLE runs ADD COLUMN corpus_label TEXT NOT NULL DEFAULT '';
ALTER TABLE runs ADD COLUMN vocab_size INTEGER;
ALTER TABLE runs ADD COLUMN f1 REAL;
ALTER TABLE runs ADD COLUMN fertility REAL;
ALTER TABLE runs ADD COLUMN hidden INTEGER NOT NULL DEFAULT 0;
UPDATE runs SET vocab_size = (SELECT vocab_size FROM models WHERE models.run_id = runs.id);
UPDATE runs SET f1 = (SELECT avg(value) FROM metrics m WHERE m.run_id = runs.id
                      AND m.metric = 'f1' AND m.vocab_size IS NULL);
UPDATE runs SET fertility = (SELECT avg(value) FROM metrics m WHERE m.run_id = runs.id
                             AND m.metric = 'fertility' AND m.vocab_size IS NULL);
CREATE INDEX runs_by_kind ON runs (kind, started);
CREATE INDEX runs_by_preset ON runs (preset, started);
CREATE INDEX runs_by_corpus ON runs (corpus_label, started);
CREATE INDEX runs_by_vocab ON runs (vocab_size);
CREATE INDEX runs_by_f1 ON runs (f1);
CREATE INDEX runs_by_fertility ON runs (fertility);
CREATE INDEX runs_by_duration ON runs (duration);
CREATE INDEX runs_by_status_all ON runs (status, started);
CREATE INDEX runs_hidden ON runs (id) WHERE hidden = 1;
CREATE INDEX runs_by_kind_vocab ON runs (kind, vocab_size);
CREATE INDEX runs_by_kind_f1 ON runs (kind, f1);
CREATE INDEX runs_by_kind_fertility ON runs (kind, fertility);
CREATE INDEX runs_by_kind_duration ON runs (kind, duration);
CREATE INDEX runs_by_kind_status ON runs (kind, status, started);
CREATE INDEX runs_by_kind_preset ON runs (kind, preset, started);
CREATE INDEX runs_by_kind_corpus ON runs (kind, corpus_label, started);
"""


def _sql_text(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


# Version 3: ``trim`` runs. Only the runs table's CHECK widens, which changes nothing
# stored, so the table's text is rewritten in place (SQLite's documented way for such a
# change): rebuilding the table would cascade-delete every run's metrics, inputs and model
# while foreign keys are on, and they cannot be turned off inside the migration's
# transaction. Incrementing schema_version makes every connection re-read the schema.
_V3 = f"""
PRAGMA writable_schema = ON;
UPDATE sqlite_master SET sql = replace(sql, {_sql_text(f"CHECK (kind IN {_V1_KINDS!r})")},
                                       {_sql_text(f"CHECK (kind IN {RUN_KINDS!r})")})
WHERE type = 'table' AND name = 'runs';
PRAGMA writable_schema = OFF;
"""

# Version 4: the SHA-256 of the model file a run wrote, so a file written over since (the
# next run given the same -o) is told from the run's own model. NULL: not known.
_V4 = """
ALTER TABLE models ADD COLUMN sha256 TEXT;
"""

#: MIGRATIONS[n - 1] takes a database from version n - 1 to n.
MIGRATIONS = (_V1, _V2, _V3, _V4)
SCHEMA_VERSION = len(MIGRATIONS)


def migrate(conn: sqlite3.Connection, start: int, stop: int = SCHEMA_VERSION) -> None:
    """Run the migrations from version ``start`` to ``stop`` inside the caller's
    transaction (statement by statement: executescript would commit first)."""
    for version in range(start + 1, stop + 1):
        rewrites_schema = "writable_schema" in MIGRATIONS[version - 1]
        if rewrites_schema and hasattr(conn, "setconfig"):  # (an SQLite built defensive)
            conn.setconfig(sqlite3.SQLITE_DBCONFIG_DEFENSIVE, False)
        for statement in _statements(MIGRATIONS[version - 1]):
            conn.execute(statement)
        if rewrites_schema:
            schema_version = conn.execute("PRAGMA schema_version").fetchone()[0]
            conn.execute(f"PRAGMA schema_version = {schema_version + 1}")
        conn.execute(f"PRAGMA user_version = {version}")
    conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")


def _statements(script: str) -> list[str]:
    out, current = [], ""
    for line in script.splitlines(keepends=True):
        current += line
        if sqlite3.complete_statement(current):
            out.append(current.strip())
            current = ""
    return [s for s in out if s]
