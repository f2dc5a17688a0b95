"""The application killed while an autosave is being written: the previous autosave
stays until the new one is complete, is offered at the next start, and the killed
write's temporary file is removed then. The kill is real (SIGKILL in a child process,
at the moment the new copy is complete but not yet in place)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

from bpe_desktop.core import load_model
from bpe_desktop.ui.window.autosave import autosave_dir
from bpe_desktop.ui.window.main_window import MainWindow

pytest_plugins = ["tests.ui.window_fixtures"]

KILLED_DURING_SECOND_AUTOSAVE = textwrap.dedent("""
    import os, signal
    from PySide6.QtCore import QTimer
    from bpe_desktop.app import create_application
    app = create_application()
    from bpe_desktop.core import safe_write
    from bpe_desktop.ui.window.main_window import MainWindow
    window = MainWindow()
    window.show()
    window.training.load_example(window.training.example("toy"))

    def killed_before_the_rename(target, tmp):  # the new copy written, not yet renamed
        os.kill(os.getpid(), signal.SIGKILL)

    def on_saved(path):
        print(path, flush=True)
        window.autosave.saved.disconnect(on_saved)
        safe_write.copy_mode = killed_before_the_rename
        window.document.set_edited(window.document.model.truncated(4))

    window.autosave.saved.connect(on_saved)
    assert window.train()
    QTimer.singleShot(60_000, lambda: os._exit(3))
    app.exec()
""")


def test_a_kill_during_an_autosave_keeps_the_previous_one(qtbot, ui, tmp_path):
    data = tmp_path / "killed"
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", BPE_DESKTOP_DATA_DIR=str(data),
               XDG_CONFIG_HOME=str(tmp_path / "config"))
    done = subprocess.run([sys.executable, "-c", KILLED_DURING_SECOND_AUTOSAVE], env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == -9, done.stderr
    first = done.stdout.strip()
    folder = data / "autosave"
    temporary = [p for p in folder.iterdir() if p.name.endswith(".tmp")]
    assert len(temporary) == 1  # the killed write's complete but unrenamed copy
    assert len(load_model(first).merges) == 10  # the previous autosave, whole

    # this test's data folder: the killed session's files
    for p in folder.iterdir():
        os.replace(p, autosave_dir() / p.name)
    win = MainWindow()
    qtbot.addWidget(win)
    win.show()
    win.first_run_hint()
    [(title, _)] = ui.questions
    assert title == "Recover unsaved model"
    assert len(win.document.model.merges) == 10
    assert not [p for p in autosave_dir().iterdir() if p.name.endswith(".tmp")]
    ui.save_answer = "discard"
    win.close()
