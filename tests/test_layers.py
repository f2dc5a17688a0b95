"""The layers hold: engine → core (the domain) → views (Qt-free presentation) → ui and cli.
Core, the views and the CLI never load Qt, and no layer imports one above it.

Every module is imported, not only the package roots: a module that only some code path
imports (as the vocabulary loader once imported the Qt plot widget) would otherwise hide.
"""

import ast
import pkgutil
import subprocess
import sys
from pathlib import Path

import bpe_desktop

QT_MODULES = ("PySide6", "shiboken6", "pyqtgraph")
PACKAGE_DIR = Path(bpe_desktop.__file__).parent
#: Each layer and the layers it must never import (the engine is below all of them).
FORBIDDEN_ABOVE = {
    "bpe_desktop.core": ("bpe_desktop.views", "bpe_desktop.ui", "bpe_desktop.cli",
                         "bpe_desktop.app"),
    "bpe_desktop.views": ("bpe_desktop.ui", "bpe_desktop.cli", "bpe_desktop.app"),
    "bpe_desktop.cli": ("bpe_desktop.ui", "bpe_desktop.app"),
}
#: The CLI's two doors to Qt, imported only when used (the first test proves it): starting
#: the application when given no command, and laying out a PDF report with Qt's printing.
LAZY_QT_DOORS = {("cli/__init__.py", "bpe_desktop.app"),
                 ("cli/history.py", "bpe_desktop.ui.history.pdf_report")}


def _modules_of(package: str) -> list[str]:
    path = PACKAGE_DIR.joinpath(*package.split(".")[1:])
    names = [package]
    for info in pkgutil.walk_packages([str(path)], prefix=package + "."):
        if not info.name.endswith(".__main__"):  # running it would start the program
            names.append(info.name)
    return names


def _loaded_after_importing(modules: list[str]) -> list[str]:
    code = (
        "import importlib, sys\n"
        f"for name in {modules!r}:\n"
        "    importlib.import_module(name)\n"
        f"print('\\n'.join(m for m in sys.modules if m.split('.')[0] in {QT_MODULES!r} "
        "or m.startswith('bpe_desktop.ui')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, timeout=120)
    return out.stdout.split()


def test_every_core_views_and_cli_module_imports_without_qt():
    modules = (_modules_of("bpe_desktop.core") + _modules_of("bpe_desktop.views")
               + _modules_of("bpe_desktop.cli"))
    assert len(modules) > 40  # every module, not the roots only
    assert _loaded_after_importing(modules) == []


def _imported_names(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def test_no_module_imports_a_layer_above_its_own():
    offenders = []
    for layer, above in FORBIDDEN_ABOVE.items():
        root = PACKAGE_DIR.joinpath(*layer.split(".")[1:])
        for path in sorted(root.rglob("*.py")):
            where = str(path.relative_to(PACKAGE_DIR))
            for name in _imported_names(path):
                if (where, name) in LAZY_QT_DOORS:
                    continue
                if name.startswith(above) or name.split(".")[0] in QT_MODULES:
                    offenders.append(f"{where} imports {name}")
    assert offenders == []
