"""Opening a project file: created, migrated after a backup, refused with a clear
message when it is not a project, damaged or too new; runs left running by a process
that is gone become failed."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys

import pytest

from bpe_desktop.core.errors import BpeError
from bpe_desktop.core.project import Metric, Project, ProjectError, schema
from bpe_desktop.core.project.store import DIED_MESSAGE


def test_a_new_project_is_a_wal_database_with_foreign_keys(tmp_path):
    with Project(tmp_path / "p.bpeproj") as project:
        c = project.conn
        assert c.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert c.execute("PRAGMA foreign_keys").fetchone()[0] == 1
        assert c.execute("PRAGMA user_version").fetchone()[0] == schema.SCHEMA_VERSION
        assert c.execute("PRAGMA application_id").fetchone()[0] == schema.APPLICATION_ID
        assert project.conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        with pytest.raises(sqlite3.IntegrityError):  # a metric of no run
            c.execute("INSERT INTO metrics (run_id, metric, value) VALUES (99, 'f1', 1)")


def test_deleting_a_run_deletes_its_metrics_inputs_and_model(tmp_path):
    corpus = tmp_path / "c.txt"
    corpus.write_text("a b\n")
    with Project(tmp_path / "p.bpeproj") as project:
        run = project.start_run("train", inputs=[("corpus", str(corpus))])
        project.finish_run(run, "finished", metrics=[Metric("vocab_size", 5)],
                           model_path="m.json", model_size=(5, 2))
        project.delete_runs([run])
        for table in ("runs", "metrics", "run_inputs", "models"):
            assert project.conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0] == 0
        assert project.conn.execute("SELECT count(*) FROM corpora").fetchone()[0] == 1


@pytest.mark.parametrize("content, words", [
    (b"this is plain text\n", "not an SQLite database"),
    (b"\x00" * 200, "not an SQLite database"),
])
def test_a_file_that_is_not_a_database_is_named(tmp_path, content, words):
    path = tmp_path / "notes.bpeproj"
    path.write_bytes(content)
    with pytest.raises(ProjectError) as caught:
        Project(path)
    assert str(path) in str(caught.value) and words in str(caught.value)
    assert path.read_bytes() == content  # untouched


def test_another_programs_database_is_refused_unchanged(tmp_path):
    path = tmp_path / "other.db"
    with sqlite3.connect(path) as c:
        c.execute("CREATE TABLE notes (text TEXT)")
    before = path.read_bytes()
    with pytest.raises(ProjectError, match="another program"):
        Project(path)
    assert path.read_bytes() == before


def test_a_project_of_a_newer_version_is_refused(tmp_path):
    path = tmp_path / "new.bpeproj"
    Project(path).close()
    with sqlite3.connect(path) as c:
        c.execute(f"PRAGMA user_version = {schema.SCHEMA_VERSION + 1}")
    with pytest.raises(ProjectError) as caught:
        Project(path)
    message = str(caught.value)
    assert "newer BPE Desktop" in message and str(path) in message
    assert f"format {schema.SCHEMA_VERSION + 1}" in message


def _version_1_project(path) -> None:
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("BEGIN")
    schema.migrate(conn, 0, 1)
    conn.execute("INSERT INTO runs (kind, status, started) VALUES ('evaluate', 'finished', 1)")
    conn.executemany("INSERT INTO metrics (run_id, metric, value, source) VALUES (1, ?, ?, ?)",
                     [("f1", 0.5, "a.txt"), ("f1", 0.7, "b.txt"), ("fertility", 1.25, "text")])
    conn.execute("COMMIT")
    conn.close()


def test_an_older_project_is_migrated_after_a_backup_copy(tmp_path):
    path = tmp_path / "old.bpeproj"
    _version_1_project(path)
    with Project(path) as project:
        run = project.run_details(1)
        assert project.backup_path == f"{path}.v1.bak"
    # The columns the new version adds are filled from what the old one stored.
    assert run.summary.f1 == pytest.approx(0.6) and run.summary.fertility == 1.25
    with sqlite3.connect(f"{path}.v1.bak") as backup:
        assert backup.execute("PRAGMA user_version").fetchone()[0] == 1
        assert backup.execute("SELECT count(*) FROM metrics").fetchone()[0] == 3
    with Project(path) as again:  # migrated once: no second backup needed
        assert again.backup_path is None


def test_a_version_2_project_keeps_its_runs_and_records_trims(tmp_path):
    path = tmp_path / "v2.bpeproj"
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA foreign_keys = ON")
    conn.execute("BEGIN")
    schema.migrate(conn, 0, 2)
    conn.execute("INSERT INTO runs (kind, status, started) VALUES ('extend', 'finished', 1)")
    conn.execute("INSERT INTO metrics (run_id, metric, value) VALUES (1, 'new_merges', 20)")
    conn.execute("COMMIT")
    conn.close()
    with Project(path) as project:
        trim = project.start_run("trim")
        assert project.backup_path == f"{path}.v2.bak"
        assert project.run_details(1).metrics == (Metric("new_merges", 20.0),)
        assert project.run_details(trim).summary.kind == "trim"
        assert project.conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        with pytest.raises(sqlite3.IntegrityError):  # the table still checks its kinds
            project.conn.execute("INSERT INTO runs (kind, status, started) "
                                 "VALUES ('nonsense', 'finished', 1)")


def test_a_damaged_project_is_named(tmp_path):
    path = tmp_path / "broken.bpeproj"
    with Project(path) as project:
        for i in range(200):
            project.start_run("count", config={"n": "x" * 500})
        project.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    data = bytearray(path.read_bytes())
    data[4096:12288] = b"\xff" * 8192  # pages of the schema and tables overwritten
    path.write_bytes(bytes(data))
    with pytest.raises(BpeError) as caught:
        with Project(path) as project:
            assert project.conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert str(path) in str(caught.value)


def test_runs_of_a_process_that_is_gone_become_failed_on_open(tmp_path):
    path = tmp_path / "p.bpeproj"
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)
    with Project(path) as project:
        dead = project.start_run("train")
        alive = project.start_run("train")
        project.conn.execute("UPDATE runs SET pid = ? WHERE id = ?",
                             (int(gone.stdout), dead))
        project.conn.execute("UPDATE runs SET pid = ? WHERE id = ?", (os.getppid(), alive))
    with Project(path) as project:
        assert project.run_details(dead).summary.status == "failed"
        assert project.run_details(dead).summary.message == DIED_MESSAGE
        assert project.run_details(alive).summary.status == "running"


def test_a_missing_folder_is_named(tmp_path):
    with pytest.raises(ProjectError, match="does not exist"):
        Project(tmp_path / "nowhere" / "p.bpeproj")


def test_a_folder_without_write_access_is_named(tmp_path):
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        target = "/proc/p.bpeproj"  # root may write anywhere but there
    else:
        folder = tmp_path / "locked"
        folder.mkdir(mode=0o500)
        target = str(folder / "p.bpeproj")
    with pytest.raises(ProjectError) as caught:
        Project(target)
    message = str(caught.value)
    assert target in message and "cannot open the project" in message


def test_recording_into_a_damaged_project_names_it(tmp_path):
    """A command that records opens without reading every page; the damage is named
    where its writes meet it."""
    from bpe_desktop.core.project import Metric

    path = tmp_path / "broken.bpeproj"
    with Project(path) as project:
        run = project.start_run("evaluate")
        project.finish_run(run, "finished", metrics=[Metric(f"m{i}", i) for i in range(3000)])
        project.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    data = bytearray(path.read_bytes())
    data[-8192:] = b"\xff" * 8192
    path.write_bytes(bytes(data))
    with pytest.raises(ProjectError, match="damaged"):
        Project(path)
    with Project(path, verify=False) as project:
        with pytest.raises(ProjectError) as caught:
            run = project.start_run("evaluate")
            project.finish_run(run, "finished",
                               metrics=[Metric(f"m{i}", i) for i in range(3000)])
    assert str(path) in str(caught.value) and "damaged" in str(caught.value)


def _open_and_record(path: str, barrier, results) -> None:
    barrier.wait()  # every process opens the new file at the same moment
    try:
        with Project(path) as project:
            project.start_run("train", config={})
        results.put("")
    except BpeError as exc:
        results.put(str(exc))


def test_processes_creating_one_project_at_once_all_open_it(tmp_path):
    # Two races once turned a new project away: both creators switching it to WAL at once
    # ("database is locked", SQLite refusing to wait where waiting could deadlock), and one
    # reading the schema version and the table count in two steps around another's commit
    # ("another program's database").
    import multiprocessing

    # forkserver: children forked from a fresh single-threaded server, not from pytest
    ctx = multiprocessing.get_context("spawn" if sys.platform == "win32" else "forkserver")
    for attempt in range(25):
        path = str(tmp_path / f"p{attempt}.bpeproj")
        barrier, results = ctx.Barrier(6), ctx.Queue()
        procs = [ctx.Process(target=_open_and_record, args=(path, barrier, results))
                 for _ in range(6)]
        for p in procs:
            p.start()
        errors = [results.get(timeout=60) for _ in procs]
        for p in procs:
            p.join(timeout=60)
        assert errors == [""] * 6
        with Project(path) as project:
            assert len(project.run_ids()) == 6
            assert project.conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


def test_a_version_3_project_keeps_its_models_with_their_checksums_unknown(tmp_path):
    path = tmp_path / "v3.bpeproj"
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("BEGIN")
    schema.migrate(conn, 0, 3)
    conn.execute("INSERT INTO runs (kind, status, started) VALUES ('train', 'finished', 1)")
    conn.execute("INSERT INTO models (run_id, path, vocab_size, merges) "
                 "VALUES (1, '/m.json', 40, 10)")
    conn.execute("COMMIT")
    conn.close()
    with Project(path) as project:
        run = project.run_details(1)
        assert project.backup_path == f"{path}.v3.bak"
    assert (run.model_path, run.summary.vocab_size, run.model_sha256) == ("/m.json", None, None)


def _real_connect_failing(monkeypatch, tmp_path):
    """sqlite3.connect raising the real error SQLite gives where it may not create the
    file or its journal (a read-only folder or disk): root may write anywhere else."""
    real_connect = sqlite3.connect
    monkeypatch.setattr(sqlite3, "connect", lambda *a, **k: real_connect(
        tmp_path / "no-such-folder" / "x.db", *a[1:], **k))


def test_a_project_in_a_folder_one_may_not_write_to_says_what_to_do(tmp_path, monkeypatch):
    path = tmp_path / "p.bpeproj"
    Project(path).close()
    _real_connect_failing(monkeypatch, tmp_path)
    with pytest.raises(ProjectError) as caught:
        Project(path)
    message = str(caught.value)
    assert message.startswith(f"{path}: cannot open the project: ")
    assert "unable to open database file" not in message
    assert "copy the project to a folder you may write to" in message


def test_a_read_only_project_file_says_what_to_do(tmp_path, monkeypatch):
    path = tmp_path / "p.bpeproj"
    with Project(path) as p:
        p.finish_run(p.start_run("count"), "finished")
    real_connect = sqlite3.connect
    # A connection SQLite opened read-only, as it does for a file one may not write to.
    monkeypatch.setattr(sqlite3, "connect", lambda target, **k: real_connect(
        f"{path.as_uri()}?mode=ro", **{**k, "uri": True}))
    with pytest.raises(ProjectError) as caught, Project(path) as project:
        project.start_run("count")  # opened read-only: its first write fails
    message = str(caught.value)
    assert message.startswith(f"{path}: cannot write to the project: ")
    assert "readonly database" not in message
    assert "copy the project to a folder you may write to" in message


def test_the_file_alone_copied_while_open_holds_every_finished_run(tmp_path):
    # SQLite keeps new writes in NAME-wal until a checkpoint: a copy of the file alone
    # (sent to a colleague while the window had it open) lacked every recent run.
    import shutil

    path = tmp_path / "p.bpeproj"
    with Project(path) as project:
        for kind in ("train", "evaluate", "count"):
            project.finish_run(project.start_run(kind), "finished",
                               metrics=[Metric("vocab_size", 300)])
        project.set_language(1, "en")
        project.delete_runs([3])
        shutil.copy(path, tmp_path / "sent.bpeproj")
    with Project(tmp_path / "sent.bpeproj") as copy:
        assert copy.run_ids() == [1, 2]
        assert copy.run_details(2).metrics == (Metric("vocab_size", 300.0),)
