"""The core is the Qt-free layer: importing it (and the CLI) must not import Qt."""

import subprocess
import sys

FORBIDDEN = ("PySide6", "pyqtgraph", "bpe_desktop.ui")


def test_core_and_cli_import_no_qt():
    code = (
        "import sys, bpe_desktop.core, bpe_desktop.cli\n"
        f"bad = [m for m in sys.modules if m.split('.')[0] in {FORBIDDEN!r} "
        f"or m.startswith('bpe_desktop.ui')]\n"
        "print(','.join(bad))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""
