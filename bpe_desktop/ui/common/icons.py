"""The application's icons, looked up by name in ``resources/icons``.

* :func:`app_icon`: the application icon (PNGs rendered from ``bpe-desktop.svg`` by
  ``packaging/render_icons.py``, so small sizes are exactly the pixels drawn).
* :func:`panel_icon` and :func:`action_icon`: line icons for the three panels and for
  actions. Their SVGs draw lines in ``currentColor`` and highlights in the accent
  :data:`ACCENT`; at paint time ``currentColor`` becomes the palette's text colour (and
  a disabled icon is all in the disabled text colour), so they follow light and dark
  mode without a second set of files.

Unknown names raise ``ValueError`` and missing files ``FileNotFoundError``: a typo
fails the first test that builds the window, not silently at run time.
"""

from __future__ import annotations

from PySide6.QtCore import QByteArray, QPoint, QRect, QRectF, QSize, Qt
from PySide6.QtGui import (
    QColor,
    QGuiApplication,
    QIcon,
    QIconEngine,
    QImage,
    QPainter,
    QPalette,
    QPixmap,
)
from PySide6.QtSvg import QSvgRenderer

from bpe_desktop.paths import resource_path

#: Sizes of the rendered application icon (``icons/bpe-desktop-<size>.png``).
APP_ICON_SIZES = (16, 32, 48, 64, 128, 256, 512)
PANEL_ICONS = ("training", "vocabulary", "encode", "evaluate", "compare", "history")
ACTION_ICONS = ("train", "cancel", "open", "save", "export", "import", "help")
#: The line icons' highlight colour (readable on light and dark backgrounds).
ACCENT = "#3b82f6"


def app_icon() -> QIcon:
    """The application icon at every rendered size."""
    icon = QIcon()
    for size in APP_ICON_SIZES:
        icon.addFile(str(resource_path("icons", f"bpe-desktop-{size}.png")), QSize(size, size))
    return icon


def panel_icon(name: str) -> QIcon:
    """Icon of a panel tab: one of :data:`PANEL_ICONS`."""
    return _line_icon("panels", name, PANEL_ICONS)


def action_icon(name: str) -> QIcon:
    """Icon of a menu or toolbar action: one of :data:`ACTION_ICONS`."""
    return _line_icon("actions", name, ACTION_ICONS)


def _line_icon(folder: str, name: str, known: tuple[str, ...]) -> QIcon:
    if name not in known:
        raise ValueError(f"unrecognized {folder[:-1]} icon name: {name!r} "
                         f"(known: {', '.join(known)})")
    svg = resource_path("icons", folder, f"{name}.svg").read_text(encoding="utf-8")
    return QIcon(TintedSvgIconEngine(svg))


def text_color(mode: QIcon.Mode) -> QColor:
    """The palette colour a line icon is drawn in for ``mode``."""
    palette = QGuiApplication.palette()
    if mode == QIcon.Mode.Disabled:
        return palette.color(QPalette.ColorGroup.Disabled, QPalette.ColorRole.WindowText)
    if mode == QIcon.Mode.Selected:
        return palette.color(QPalette.ColorRole.HighlightedText)
    return palette.color(QPalette.ColorRole.WindowText)


class TintedSvgIconEngine(QIconEngine):
    """Draws an SVG whose ``currentColor`` is the palette's text colour at paint time.

    Qt asks the engine for every paint, so a switch between light and dark mode shows
    at the next repaint. One renderer is kept per colour seen (a handful at most).
    """

    def __init__(self, svg: str) -> None:
        super().__init__()
        self._svg = svg
        self._renderers: dict[str, QSvgRenderer] = {}

    def renderer(self, color: QColor, *, disabled: bool = False) -> QSvgRenderer:
        key = f"{color.name()}{' disabled' if disabled else ''}"
        found = self._renderers.get(key)
        if found is None:
            tinted = self._svg.replace("currentColor", color.name())
            if disabled:
                tinted = tinted.replace(ACCENT, color.name())
            found = QSvgRenderer(QByteArray(tinted.encode("utf-8")))
            if not found.isValid():
                raise ValueError("icon SVG could not be parsed")
            self._renderers[key] = found
        return found

    def paint(self, painter: QPainter, rect: QRect, mode: QIcon.Mode,
              state: QIcon.State) -> None:
        renderer = self.renderer(text_color(mode), disabled=mode == QIcon.Mode.Disabled)
        renderer.render(painter, QRectF(rect))

    def pixmap(self, size: QSize, mode: QIcon.Mode, state: QIcon.State) -> QPixmap:
        pixmap = QPixmap(size)
        pixmap.fill(Qt.GlobalColor.transparent)
        painter = QPainter(pixmap)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        self.paint(painter, QRect(QPoint(0, 0), size), mode, state)
        painter.end()
        return pixmap

    def actualSize(self, size: QSize, mode: QIcon.Mode, state: QIcon.State) -> QSize:  # noqa: N802
        return size

    def clone(self) -> QIconEngine:
        return TintedSvgIconEngine(self._svg)


def _draws_something(image: QImage) -> bool:
    if image.isNull():
        return False
    image = image.convertToFormat(QImage.Format.Format_ARGB32)
    alpha = memoryview(image.constBits()).cast("B")[3::4]  # ARGB32 little-endian: B G R A
    return any(alpha)


def check_icons() -> list[str]:
    """Problems with the shipped icons: missing files, or icons that draw nothing."""
    problems = []
    try:
        icon = app_icon()
    except FileNotFoundError as exc:
        problems.append(str(exc))
    else:
        for size in APP_ICON_SIZES:
            if not _draws_something(icon.pixmap(size, size).toImage()):
                problems.append(f"the application icon at {size} px draws nothing")
    for make, names in ((panel_icon, PANEL_ICONS), (action_icon, ACTION_ICONS)):
        for name in names:
            try:
                image = make(name).pixmap(24, 24).toImage()
            except (FileNotFoundError, ValueError) as exc:
                problems.append(f"icon {name}: {exc}")
                continue
            if not _draws_something(image):
                problems.append(f"icon {name} draws nothing")
    return problems
