"""Exports that fail part-way (a disk that fills up) leave the earlier file of that name
as it was and say which file could not be written, why in words, and what to do next."""

from __future__ import annotations

import contextlib
import errno
import os
import resource
import signal

import pytest

from tests.ui.window_helpers import compare_on_typed_text, evaluate_typed_text, train_toy

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


def _nothing(window, qtbot) -> None:
    pass


#: (file name, what the panel needs first, how the user asks for the export).
EXPORTS = {
    "vocabulary table": ("vocabulary.csv", _nothing, lambda w: w.vocab._ask_export_table()),
    "vocabulary plot": ("merges.png", _nothing, lambda w: w.vocab._ask_export_plot()),
    "File ▸ Export vocabulary table": ("table.csv", _nothing,
                                       lambda w: w.interop.ask_export_table()),
    "evaluation table": ("text.csv", evaluate_typed_text,
                         lambda w: w.evaluate._ask_export_csv("text")),
    "evaluation plot": ("parity.svg", evaluate_typed_text,
                        lambda w: w.evaluate._ask_export_plot("parity")),
    "comparison list": ("only-a.csv", compare_on_typed_text,
                        lambda w: w.compare._ask_export_csv()),
    "HTML report": ("report.html", _nothing, lambda w: w.projects.export_report(None)),
}


@pytest.mark.parametrize("export", EXPORTS)
def test_a_full_disk_is_named_in_words_with_a_next_step(window, qtbot, ui, tmp_path, export):
    name, prepare, ask = EXPORTS[export]
    train_toy(window, qtbot)
    prepare(window, qtbot)
    window.projects.recorder.wait()
    target = tmp_path / name
    target.write_bytes(EARLIER)
    ui.save_path = str(target)
    with disk_fills_up_after(len(EARLIER)):  # every export is longer
        ask(window)
    [(_, message)] = ui.errors
    assert message.startswith(f"Could not write {target}: File too large.")
    assert "Errno" not in message and "'" not in message
    assert "An earlier file of that name, if any, is unchanged." in message
    assert "Free some space" in message
    assert target.read_bytes() == EARLIER
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []


def test_a_segmentation_that_cannot_be_saved_keeps_the_earlier_file(qtbot, ui, tmp_path):
    from bpe_desktop.ui.training.segmentation import SegmentationDialog

    dialog = SegmentationDialog({"walking": ("walk", "ing"), "talks": ("talk", "s")})
    qtbot.addWidget(dialog)
    target = tmp_path / "morfessor.tsv"
    target.write_bytes(EARLIER)
    with disk_fills_up_after(len(EARLIER)):
        assert not dialog.save(str(target))
    [(_, message)] = ui.errors
    assert message.startswith(f"Could not write {target}: File too large.")
    assert "Errno" not in message and "Free some space" in message
    assert target.read_bytes() == EARLIER


def test_a_trimmed_model_that_cannot_be_written_keeps_the_earlier_file(window, qtbot, ui,
                                                                       tmp_path):
    train_toy(window, qtbot)
    target = tmp_path / "target.txt"
    target.write_text("low lower\n", encoding="utf-8")
    trimmed = tmp_path / "trimmed.json"
    trimmed.write_bytes(EARLIER)
    dialog = window.ask_trim()
    dialog.set_targets([str(target)])
    dialog.output.setText(str(trimmed))
    dialog.id_map.setText(str(tmp_path / "map.json"))
    with disk_fills_up_after(len(EARLIER)):
        assert dialog.start()
        qtbot.waitUntil(lambda: not dialog.running, timeout=10_000)
    [(title, message)] = ui.errors
    assert title == "Cannot trim"
    assert message.startswith(f"Could not write {trimmed}: File too large.")
    assert "Errno" not in message and "Free some space" in message
    assert trimmed.read_bytes() == EARLIER and not (tmp_path / "map.json").exists()
    dialog.close()


def test_a_file_held_open_elsewhere_keeps_its_content_and_the_message_says_so(
        window, qtbot, ui, tmp_path, monkeypatch):
    train_toy(window, qtbot)
    target = tmp_path / "vocabulary.csv"
    target.write_bytes(EARLIER)

    def held_open(src, dst):  # Windows: a file another program holds cannot be replaced
        raise PermissionError(errno.EACCES, "Permission denied", dst)

    monkeypatch.setattr(os, "replace", held_open)
    ui.save_path = str(target)
    window.vocab._ask_export_table()
    [(_, message)] = ui.errors
    assert message.startswith(f"Could not write {target}: Permission denied.")
    assert "If another program has the file open, close it there" in message
    assert target.read_bytes() == EARLIER
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []
