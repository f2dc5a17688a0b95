"""Help ▸ Quick start (the bundled guide, shown inside the app) and Help ▸ About."""

from __future__ import annotations

import platform

import numpy
import pyqtgraph
import PySide6
from PySide6.QtCore import QUrl, qVersion
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QTextBrowser, QVBoxLayout, QWidget

from bpe_desktop import __version__
from bpe_desktop.core import _native
from bpe_desktop.paths import resource_path
from bpe_desktop.ui import dialogs


def versions() -> dict[str, str]:
    return {
        "BPE Desktop": __version__,
        "engine": getattr(_native.engine(), "__version__", "unknown"),
        "Qt": qVersion(),
        "PySide6": PySide6.__version__,
        "pyqtgraph": pyqtgraph.__version__,
        "NumPy": numpy.__version__,
        "Python": platform.python_version(),
    }


def show_about(parent: QWidget | None) -> None:
    rows = "".join(f"<tr><td>{k}</td><td>&nbsp;{v}</td></tr>" for k, v in versions().items())
    dialogs.show_info(
        parent, "About BPE Desktop",
        "<h3>BPE Desktop</h3><p>Train, inspect, compare and export byte-pair-encoding "
        f"tokenizers, offline.</p><table>{rows}</table>"
        "<p>Example text: <i>Botchan</i> by Natsume Sōseki, Project Gutenberg eBook #8868 "
        "(public domain in the USA).</p>",
    )


class HelpDialog(QDialog):
    """A non-modal window showing a bundled Markdown page (images resolve next to it)."""

    def __init__(self, parent: QWidget | None, page: str) -> None:
        super().__init__(parent)
        self.setWindowTitle("BPE Desktop — Quick start")
        self.resize(760, 640)
        self.browser = QTextBrowser()
        self.browser.setOpenExternalLinks(True)
        path = resource_path("help", page)
        self.browser.setSearchPaths([str(path.parent)])
        self.browser.setSource(QUrl.fromLocalFile(str(path)))
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.close)
        layout = QVBoxLayout(self)
        layout.addWidget(self.browser)
        layout.addWidget(buttons)


_open: list[HelpDialog] = []


def show_quick_start(parent: QWidget | None) -> HelpDialog:
    dialog = HelpDialog(parent, "quickstart.md")
    _open[:] = [dialog]  # keep it alive while shown
    dialog.show()
    return dialog
