"""The application as a user starts it: a real X11 window under Xvfb (started here).

Runs ``python -m bpe_desktop --screenshots DIR`` (train the Botchan example, then save a
screenshot of each panel) and ``--smoke-test`` on the xcb platform, in child processes.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.shared_data import missing_system_tool

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def xvfb_display():
    xvfb = shutil.which("Xvfb")
    if xvfb is None:
        missing_system_tool("Xvfb is not installed (apt-get install xvfb; .ci/run installs it)")
    for number in range(91, 120):
        if not Path(f"/tmp/.X11-unix/X{number}").exists() and \
                not Path(f"/tmp/.X{number}-lock").exists():
            break
    proc = subprocess.Popen([xvfb, f":{number}", "-screen", "0", "1280x800x24", "-nolisten", "tcp"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    socket = Path(f"/tmp/.X11-unix/X{number}")
    deadline = time.monotonic() + 15
    while not socket.exists():
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            pytest.fail(f"Xvfb did not start: {proc.stderr.read().decode(errors='replace')}")
        time.sleep(0.05)
    yield f":{number}"
    proc.terminate()
    proc.wait(10)


def run_app(display: str, tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, DISPLAY=display, QT_QPA_PLATFORM="xcb",
               XDG_CONFIG_HOME=str(tmp_path / "config"),
               BPE_DESKTOP_DATA_DIR=str(tmp_path / "data"))
    return subprocess.run([sys.executable, "-m", "bpe_desktop", *args], env=env,
                          capture_output=True, text=True, timeout=300)


def test_screenshots_of_each_panel_after_training(xvfb_display, tmp_path):
    from PySide6.QtGui import QImage

    shots = tmp_path / "shots"
    done = run_app(xvfb_display, tmp_path, "--screenshots", str(shots), "--appearance", "light")
    assert done.returncode == 0, done.stderr
    for name in ("training", "vocabulary", "encode"):
        image = QImage(str(shots / f"{name}.png"))
        assert not image.isNull(), name
        assert image.width() >= 1000 and image.height() >= 600
        # a real rendering has many colours (text, plots, coloured pieces), not a blank window
        colours = {image.pixel(x, y) for x in range(0, image.width(), 7)
                   for y in range(0, image.height(), 7)}
        assert len(colours) > 50, (name, len(colours))


def test_smoke_test_passes_on_a_real_display(xvfb_display, tmp_path):
    done = run_app(xvfb_display, tmp_path, "--smoke-test")
    assert done.returncode == 0, done.stderr
    assert "smoke test OK" in done.stdout and "platform xcb" in done.stdout
