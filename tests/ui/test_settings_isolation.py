"""Tests and GUI benchmarks never read or write the user's own settings and data."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

from PySide6.QtCore import QSettings

from bpe_desktop.paths import user_data_dir
from bpe_desktop.ui.common.settings import Settings

ROOT = Path(__file__).resolve().parents[2]

#: The user's saved defaults: the corpus files are word<TAB>count lists.
WRITE_USER_SETTINGS = textwrap.dedent("""
    from bpe_desktop.app import create_application
    from bpe_desktop.ui.common.settings import Settings
    app = create_application()
    settings = Settings()
    settings.set_training_defaults({"word_counts": True})
    settings.sync()
""")

#: What a window sees: without isolation (control), and as the latency benchmark starts it.
READ_AS = {
    "app": """
        from bpe_desktop.app import create_application
        from bpe_desktop.ui.window.main_window import MainWindow
        app = create_application()
        window = MainWindow()
    """,
    "benchmark": """
        sys.path.insert(0, BENCHMARKS)
        import bench_gui_latency
        app, window = bench_gui_latency.start_app()
    """,
}
REPORT = """
    import json, os
    from PySide6.QtCore import QSettings
    from bpe_desktop.paths import user_data_dir
    print(json.dumps({"word_counts": window.training.options.word_counts.isChecked(),
                      "settings": QSettings().fileName(), "data": str(user_data_dir())}))
    window.close_discarding()
"""


def _run(code: str, env: dict) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                          text=True, timeout=120, cwd=ROOT, check=False)


def test_the_gui_benchmarks_use_their_own_settings_and_data(tmp_path):
    home = tmp_path / "home"
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", HOME=str(home),
               XDG_CONFIG_HOME=str(home / ".config"), XDG_DATA_HOME=str(home / ".local"),
               PYTHONPATH=str(ROOT))
    env.pop("BPE_DESKTOP_DATA_DIR", None)
    written = _run(WRITE_USER_SETTINGS, env)
    assert written.returncode == 0, written.stderr
    seen = {}
    for name, start in READ_AS.items():
        code = (f"import sys\nBENCHMARKS = {str(ROOT / 'benchmarks')!r}\n"
                + textwrap.dedent(start) + textwrap.dedent(REPORT))
        done = _run(code, env)
        assert done.returncode == 0, done.stderr
        seen[name] = json.loads(done.stdout.strip().splitlines()[-1])
    # the control: the application itself does read the user's saved default ...
    assert seen["app"]["word_counts"] is True
    assert seen["app"]["settings"].startswith(str(home))
    # ... the benchmark does not, and keeps its settings and data outside the user's home
    assert seen["benchmark"]["word_counts"] is False
    assert not seen["benchmark"]["settings"].startswith(str(home))
    assert not seen["benchmark"]["data"].startswith(str(home))


def test_gui_tests_have_their_own_settings_and_data(tmp_path):
    settings = QSettings()
    assert settings.format() == QSettings.Format.IniFormat
    assert Path(settings.fileName()).is_relative_to(tmp_path)
    assert user_data_dir().is_relative_to(tmp_path)
    Settings().set_training_defaults({"word_counts": True})
    assert Path(QSettings().fileName()).is_relative_to(tmp_path)
