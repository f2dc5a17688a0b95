"""Help ▸ Quick start (the bundled guide, shown inside the app) and Help ▸ About.

The guide is a set of Markdown pages in ``resources/help`` that link to each other and
show screenshots from ``resources/help/screenshots``. They are plain Markdown, so the
same files read well on a code hosting site; inside the app a QTextBrowser renders
them (Qt's Markdown support) and follows links between them.
"""

from __future__ import annotations

import platform
from pathlib import Path

import numpy
import pyqtgraph
import PySide6
import shiboken6
from PySide6.QtCore import Qt, QUrl, Slot, qVersion
from PySide6.QtGui import QImage, QPixmap, QTextCursor, QTextDocument
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QListWidget,
    QPushButton,
    QSplitter,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from bpe_desktop import __version__
from bpe_desktop.core import _native
from bpe_desktop.paths import resource_path
from bpe_desktop.ui.common import dialogs
from bpe_desktop.ui.common.icons import action_icon

#: The help pages in reading order: file name -> title in the contents list.
HELP_PAGES = {
    "quickstart.md": "Quick start",
    "training-options.md": "Training options",
    "model-files.md": "Model files",
    "command-line.md": "Command line",
    "evaluation.md": "Evaluation",
    "comparison.md": "Comparison and BPE-dropout",
    "extend-and-trim.md": "Adapting an existing tokenizer",
    "projects.md": "Projects and run history",
}
#: Screenshots wider than this are shown scaled down to it (pixels).
MAX_IMAGE_WIDTH = 640


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
    """A non-modal help window: the list of pages beside the page shown.

    Links between pages and Back/Forward work as in a web browser; links to web
    sites open in the system's browser.
    """

    def __init__(self, parent: QWidget | None, page: str = "quickstart.md") -> None:
        super().__init__(parent)
        self.setWindowTitle("BPE Desktop — Help")
        self.setWindowIcon(action_icon("help"))
        self.resize(980, 700)
        self.folder = resource_path("help")

        self.contents = QListWidget()
        self.contents.addItems(list(HELP_PAGES.values()))
        self.contents.setMaximumWidth(200)
        self.contents.currentRowChanged.connect(self._on_contents_row)

        self.browser = QTextBrowser()
        self.browser.setOpenExternalLinks(True)
        self.browser.setSearchPaths([str(self.folder)])
        self.browser.sourceChanged.connect(self._on_source_changed)

        splitter = QSplitter()
        splitter.addWidget(self.contents)
        splitter.addWidget(self.browser)
        splitter.setStretchFactor(1, 1)

        back = QPushButton("◀ Back")
        back.setEnabled(False)
        back.clicked.connect(self.browser.backward)
        self.browser.backwardAvailable.connect(back.setEnabled)
        forward = QPushButton("Forward ▶")
        forward.setEnabled(False)
        forward.clicked.connect(self.browser.forward)
        self.browser.forwardAvailable.connect(forward.setEnabled)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.close)
        row = QHBoxLayout()
        row.addWidget(back)
        row.addWidget(forward)
        row.addStretch(1)
        row.addWidget(buttons)

        layout = QVBoxLayout(self)
        layout.addWidget(splitter, 1)
        layout.addLayout(row)
        self.show_page(page)

    def show_page(self, page: str) -> None:
        """Show a page of :data:`HELP_PAGES` (raises FileNotFoundError if it is missing)."""
        self.browser.setSource(QUrl.fromLocalFile(str(resource_path("help", page))))

    def current_page(self) -> str:
        return Path(self.browser.source().toLocalFile()).name

    @Slot(int)
    def _on_contents_row(self, row: int) -> None:
        page = list(HELP_PAGES)[row] if 0 <= row < len(HELP_PAGES) else None
        if page is not None and page != self.current_page():
            self.show_page(page)

    @Slot(QUrl)
    def _on_source_changed(self, url: QUrl) -> None:
        # browser.source() may still name the previous page while this signal is emitted
        fit_images(self.browser.document(), MAX_IMAGE_WIDTH, self.devicePixelRatioF())
        pages = list(HELP_PAGES)
        page = Path(url.toLocalFile()).name
        if page in pages:
            self.contents.blockSignals(True)
            self.contents.setCurrentRow(pages.index(page))
            self.contents.blockSignals(False)


# -- what a page shows: images and links ---------------------------------------------------


def _fragments(document: QTextDocument):
    block = document.begin()
    while block.isValid():
        it = block.begin()
        while not it.atEnd():
            yield it.fragment()
            it += 1
        block = block.next()


def image_names(document: QTextDocument) -> list[str]:
    return [f.charFormat().toImageFormat().name() for f in _fragments(document)
            if f.charFormat().isImageFormat()]


def link_targets(document: QTextDocument) -> list[str]:
    return [f.charFormat().anchorHref() for f in _fragments(document)
            if f.charFormat().isAnchor() and f.charFormat().anchorHref()]


def load_image(document: QTextDocument, name: str) -> QImage:
    """The image ``name`` as the page loads it (a null QImage when it cannot)."""
    data = document.resource(QTextDocument.ResourceType.ImageResource, QUrl(name))
    if isinstance(data, QImage):
        return data
    if isinstance(data, QPixmap):
        return data.toImage()
    if isinstance(data, (bytes, bytearray)) or hasattr(data, "data"):
        return QImage.fromData(bytes(data))
    return QImage()


def fit_images(document: QTextDocument, max_width: int, pixel_ratio: float = 1.0) -> None:
    """Show images wider than ``max_width`` scaled down to it, keeping their shape.

    The smaller copy is made once with smooth scaling and added to the document under
    a new name: Qt would otherwise shrink the screenshot at every paint, without
    smoothing, and its small text would become unreadable.
    """
    changes = []
    for fragment in _fragments(document):
        fmt = fragment.charFormat()
        if not fmt.isImageFormat():
            continue
        image_format = fmt.toImageFormat()
        name = image_format.name()
        image = load_image(document, name)
        if name.startswith("fitted:") or image.isNull() or image.width() <= max_width:
            continue
        small = image.scaledToWidth(round(max_width * pixel_ratio),
                                    Qt.TransformationMode.SmoothTransformation)
        small_name = f"fitted:{name}"  # an absolute URL: Qt looks it up as given
        document.addResource(QTextDocument.ResourceType.ImageResource, QUrl(small_name), small)
        image_format.setName(small_name)
        image_format.setWidth(max_width)
        image_format.setHeight(image.height() * max_width / image.width())
        changes.append((fragment.position(), fragment.length(), image_format))
    for position, length, image_format in changes:
        cursor = QTextCursor(document)
        cursor.setPosition(position)
        cursor.setPosition(position + length, QTextCursor.MoveMode.KeepAnchor)
        cursor.setCharFormat(image_format)


def page_problems(browser: QTextBrowser) -> list[str]:
    """What is wrong with the page shown: empty, images that do not load, broken links."""
    page = Path(browser.source().toLocalFile())
    document = browser.document()
    problems = []
    if not document.toPlainText().strip():
        problems.append(f"help page {page.name} is empty or missing")
    for name in image_names(document):
        if load_image(document, name).isNull():
            problems.append(f"help page {page.name}: image {name} does not load")
    for href in link_targets(document):
        url = QUrl(href)
        if url.scheme() in ("http", "https", "mailto"):
            continue
        target = page.parent / url.path() if url.path() else page
        if not target.is_file():
            problems.append(f"help page {page.name}: link {href} leads nowhere")
    return problems


def check_help(parent: QWidget | None = None) -> list[str]:
    """Open every help page in a help window; return the problems found (none: [])."""
    try:
        dialog = HelpDialog(parent)
    except FileNotFoundError as exc:
        return [str(exc)]
    problems = []
    try:
        for page in HELP_PAGES:
            try:
                dialog.show_page(page)
            except FileNotFoundError as exc:
                problems.append(str(exc))
                continue
            problems.extend(page_problems(dialog.browser))
    finally:
        dialog.close()
        dialog.deleteLater()
    return problems


_open: list[HelpDialog] = []


def show_help(parent: QWidget | None, page: str = "quickstart.md") -> HelpDialog:
    """Open (or raise) the help window at ``page``."""
    dialog = _open[0] if _open and shiboken6.isValid(_open[0]) else None
    if dialog is not None and dialog.parent() is parent and dialog.isVisible():
        dialog.show_page(page)
    else:
        dialog = HelpDialog(parent, page)
        _open[:] = [dialog]  # keep it alive while shown
    dialog.show()
    dialog.raise_()
    dialog.activateWindow()
    return dialog


def show_quick_start(parent: QWidget | None) -> HelpDialog:
    return show_help(parent, "quickstart.md")
