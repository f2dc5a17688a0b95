"""A system library Qt needs is missing: the app names the package to install and exits
non-zero, instead of Qt's abort that names none."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from bpe_desktop import qt_libraries
from bpe_desktop.qt_libraries import (
    EXIT_MISSING_LIBRARIES,
    QT_GUI_LIBRARIES,
    XCB_LIBRARIES,
    missing_libraries,
    missing_message,
)

ROOT = Path(__file__).resolve().parents[2]


def test_the_detector_asks_for_each_library_the_platform_needs():
    asked = []

    def find(name):
        asked.append(name)
        return name != "libxcb-cursor.so.0"

    assert missing_libraries({"DISPLAY": ":0"}, platform="linux", find=find) == {
        "libxcb-cursor.so.0": "libxcb-cursor0"}
    assert set(asked) == set(QT_GUI_LIBRARIES) | set(XCB_LIBRARIES)
    asked.clear()  # offscreen and Wayland need no xcb libraries
    assert missing_libraries({"QT_QPA_PLATFORM": "offscreen"}, platform="linux",
                             find=find) == {}
    assert missing_libraries({"WAYLAND_DISPLAY": "wayland-0"}, platform="linux",
                             find=find) == {}
    assert "libxcb-cursor.so.0" not in asked
    assert missing_libraries({"QT_QPA_PLATFORM": "xcb"}, platform="linux",
                             find=find) == {"libxcb-cursor.so.0": "libxcb-cursor0"}
    assert missing_libraries({}, platform="win32", find=lambda _: False) == {}


def test_every_library_here_is_found():
    assert missing_libraries({"DISPLAY": ":0"}) == {}


def test_the_message_names_the_packages():
    text = missing_message({"libxcb-cursor.so.0": "libxcb-cursor0",
                            "libxcb-icccm.so.4": "libxcb-icccm4"})
    assert "sudo apt-get install libxcb-cursor0 libxcb-icccm4\n" in text
    assert "libxcb-cursor.so.0, libxcb-icccm.so.4" in text
    assert "libxcb-keysyms1" in text  # the whole list, as the README gives it


def test_a_missing_library_stops_the_app_with_the_package_to_install(tmp_path):
    # A file of the library's name that the loader cannot load stands for a missing one:
    # found first on LD_LIBRARY_PATH, it makes loading fail as an absent library would.
    (tmp_path / "libxcb-cursor.so.0").write_bytes(b"")
    env = dict(os.environ, QT_QPA_PLATFORM="xcb", DISPLAY=":99",
               LD_LIBRARY_PATH=str(tmp_path), XDG_CONFIG_HOME=str(tmp_path / "config"),
               XDG_DATA_HOME=str(tmp_path / "data"), PYTHONPATH=str(ROOT))
    done = subprocess.run([sys.executable, "-m", "bpe_desktop"], env=env, capture_output=True,
                          text=True, timeout=120, check=False)
    assert done.returncode == EXIT_MISSING_LIBRARIES
    assert "libxcb-cursor.so.0" in done.stderr
    assert "sudo apt-get install libxcb-cursor0\n" in done.stderr
    assert "Traceback" not in done.stderr and "Aborted" not in done.stderr


def test_no_display_is_said_plainly(capsys):
    try:
        qt_libraries.check_or_exit({"QT_QPA_PLATFORM": "xcb"})
    except SystemExit as exit_:
        assert exit_.code == EXIT_MISSING_LIBRARIES
    else:
        raise AssertionError("no exit without a display")
    assert "there is no display" in capsys.readouterr().err
