"""A damaged text given to Evaluate or Compare is named with where it is damaged, and
the results shown before stay."""

from __future__ import annotations

import gzip
import os

import pytest

from tests.ui.window_helpers import compare_on_typed_text, evaluate_typed_text, train_toy

pytest_plugins = ["tests.ui.window_fixtures"]

DATA = os.path.join(os.path.dirname(__file__), "..", "data")
ENGLISH = os.path.join(DATA, "ud_english.txt")
GOLD = os.path.join(DATA, "morph", "eng.word.dev.tsv")


def truncated_gzip(source: str, target) -> int:
    """``source`` gzip-compressed and cut in half into ``target``; its length."""
    with open(source, "rb") as fh:
        packed = gzip.compress(fh.read())
    target.write_bytes(packed[:len(packed) // 2])
    return len(packed) // 2


def damage_message(path, end: int) -> str:
    # the whole truncated file was read when its end was found: the offset is its length
    return (f"{path}: the compressed data is truncated or corrupt (Compressed file ended "
            f"before the end-of-stream marker was reached) near byte offset {end} of the "
            "compressed file")


@pytest.mark.parametrize("role", ["text", "gold"])
def test_evaluate_names_a_truncated_gzip_and_keeps_its_results(window, qtbot, ui, tmp_path,
                                                               role):
    train_toy(window, qtbot)
    evaluate_typed_text(window, qtbot)
    panel = window.evaluate
    shown = panel.report
    damaged = tmp_path / f"{role}.txt.gz"
    end = truncated_gzip(ENGLISH if role == "text" else GOLD, damaged)
    (panel.text_files if role == "text" else panel.gold_files).add_paths([str(damaged)])
    with qtbot.waitSignal(panel.runner.stopped, timeout=20_000):
        panel.start()
    assert ui.errors == [("Cannot evaluate", damage_message(damaged, end))]
    assert panel.report is shown
    assert panel.text_model.rowCount() > 0 and panel.evaluate_button.isEnabled()


def test_compare_names_a_truncated_gzip_and_keeps_its_results(window, qtbot, ui, tmp_path):
    train_toy(window, qtbot)
    compare_on_typed_text(window, qtbot)
    panel = window.compare
    shown = panel.comparison
    damaged = tmp_path / "text.txt.gz"
    end = truncated_gzip(ENGLISH, damaged)
    panel.set_text_file(str(damaged))
    with qtbot.waitSignal(panel.runner.stopped, timeout=20_000):
        panel.start()
    assert ui.errors == [("Cannot compare", damage_message(damaged, end))]
    assert panel.comparison is shown


@pytest.mark.parametrize("role", ["text", "gold"])
def test_evaluate_names_the_line_of_a_bad_byte_and_how_to_fix_it(window, qtbot, ui,
                                                                 tmp_path, role):
    train_toy(window, qtbot)
    panel = window.evaluate
    bad = tmp_path / "latin1.txt"
    bad.write_bytes("low\tlow\nnewest café\tnew est café\n".encode("latin-1"))
    (panel.text_files if role == "text" else panel.gold_files).add_paths([str(bad)])
    with qtbot.waitSignal(panel.runner.stopped, timeout=20_000):
        panel.start()
    assert ui.errors == [("Cannot evaluate", (f"{bad} line 2: not valid UTF-8 (byte 11 of the "
                                              "line); save the file as UTF-8"))]
    assert panel.report is None and panel.evaluate_button.isEnabled()
