"""The check of every page of a project beside the window (core.project.check)."""

from __future__ import annotations

import pytest

from bpe_desktop.core.project import Metric, Project, ProjectError
from bpe_desktop.core.project.check import check_pages


def _project(path, evaluations: int = 1):
    with Project(path) as p:
        for _ in range(evaluations):
            run = p.start_run("evaluate")
            p.finish_run(run, "finished", metrics=[Metric(f"m{i}", i) for i in range(3000)])
        p.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return path


def test_a_sound_project_passes_while_another_connection_writes(tmp_path):
    path = _project(tmp_path / "p.bpeproj")
    called = []
    with Project(path) as writer, writer.transaction():
        writer.conn.execute("UPDATE runs SET preset = 'gpt2'")
        check_pages(str(path), lambda: called.append(True))  # neither waits for the other
    assert called == [True]


def test_a_damaged_page_is_named_with_the_file(tmp_path):
    path = _project(tmp_path / "broken.bpeproj")
    data = bytearray(path.read_bytes())
    data[-8192:] = b"\xff" * 8192  # the last pages: the metrics added last
    path.write_bytes(bytes(data))
    with pytest.raises(ProjectError, match="damaged") as caught:
        check_pages(str(path))
    assert str(path) in str(caught.value) and "restore a backup copy" in str(caught.value)


def test_the_check_writes_nothing(tmp_path):
    path = _project(tmp_path / "p.bpeproj")
    before = path.read_bytes()
    check_pages(str(path))
    assert path.read_bytes() == before
