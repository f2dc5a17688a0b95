"""Exports that fail part-way (a disk that fills up) leave the earlier file of that name
as it was and say which file could not be written."""

from __future__ import annotations

import contextlib
import resource
import signal

from tests.ui.window_helpers import train_toy

pytest_plugins = ["tests.ui.window_fixtures"]

EARLIER = b"an earlier export\n"


@contextlib.contextmanager
def disk_fills_up_after(limit: int):
    """Writes past ``limit`` bytes of any file fail (EFBIG), as on a full disk: the
    operating system refuses them, whichever library writes."""
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    previous = signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # an error, not a kill
    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
        signal.signal(signal.SIGXFSZ, previous)


def test_a_pdf_report_that_cannot_be_written_keeps_the_earlier_file(window, qtbot, ui,
                                                                    tmp_path):
    train_toy(window, qtbot)
    window.projects.recorder.wait()
    target = tmp_path / "report.pdf"
    target.write_bytes(EARLIER)
    ui.save_path = str(target)
    with disk_fills_up_after(4096):  # the report's PDF is larger
        window.projects.export_report(None)
    [(title, message)] = ui.errors
    assert title == "Cannot write the report" and str(target) in message
    assert target.read_bytes() == EARLIER
    assert sorted(p.name for p in tmp_path.iterdir() if "report" in p.name) == ["report.pdf"]
    window.projects.export_report(None)  # with room, it is written
    assert target.read_bytes().startswith(b"%PDF")
