"""``bpe-desktop --smoke-test`` passes on a good installation and fails (exit 1, never a
hang) on any problem: each case below breaks one thing in a child process."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

SCRIPT = """
from bpe_desktop.app import main
{patch}
raise SystemExit(main(["--smoke-test"]))
"""

# After each new model the vocabulary panel also does what the case says.
_ON_MODEL = """
from bpe_desktop.ui.common import dialogs
from bpe_desktop.ui.window import smoke_guard
from bpe_desktop.ui.vocabulary import panel as vocab_panel
_set_model = vocab_panel.VocabPanel.set_model
def set_model(self, model):
    _set_model(self, model)
    if model is not None:
        {action}
vocab_panel.VocabPanel.set_model = set_model
"""


def run_smoke_test(tmp_path: Path, patch: str = "") -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env.update(QT_QPA_PLATFORM="offscreen", XDG_CONFIG_HOME=str(tmp_path / "config"),
               BPE_DESKTOP_DATA_DIR=str(tmp_path / "data"), PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-c", SCRIPT.format(patch=patch)], env=env,
                          cwd=tmp_path, capture_output=True, text=True, timeout=240)


def test_passes_on_this_installation(tmp_path):
    done = run_smoke_test(tmp_path)
    assert done.returncode == 0, done.stderr
    assert "smoke test OK: 10 merges, 'lowest' -> ['low', 'est</w>'], platform offscreen" \
        in done.stdout
    assert "problem" not in done.stderr


BROKEN = {
    "missing help page": (
        'from bpe_desktop.ui.window import help_dialogs\nhelp_dialogs.HELP_PAGES["gone.md"] = "Gone"',
        "bundled resource help/gone.md is missing"),
    "missing icon": (
        'from bpe_desktop.ui.common import icons\nicons.ACTION_ICONS += ("gone",)',
        "bundled resource icons/actions/gone.svg is missing"),
    "error dialog": (
        _ON_MODEL.format(action='dialogs.show_error(self, "Broken", "it went wrong")'),
        "error dialog: Broken: it went wrong"),
    "exception in a slot": (
        _ON_MODEL.format(action='raise RuntimeError("boom")'),
        "unexpected RuntimeError: boom"),
    "Qt critical message": (
        _ON_MODEL.format(action='from PySide6.QtCore import qCritical; qCritical("cracked")'),
        "Qt: cracked"),
    "modal dialog waiting for a click": (
        "from bpe_desktop.ui.window import smoke_guard\nsmoke_guard.TIMEOUT = 3\n"
        + _ON_MODEL.format(action='dialogs.ask_yes_no(self, "Really?", "Shall I wait?")'),
        "smoke test FAILED: not finished after 3 s"),
}


@pytest.mark.parametrize("case", list(BROKEN))
def test_fails_with_exit_1_on(case, tmp_path):
    patch, message = BROKEN[case]
    done = run_smoke_test(tmp_path, patch)
    assert done.returncode == 1, (done.stdout, done.stderr)
    assert message in done.stderr
    assert "smoke test FAILED" in done.stderr and "smoke test OK" not in done.stdout
