"""Light and dark appearance: follows the system colour scheme, plots included."""

from __future__ import annotations

from typing import Callable

import pyqtgraph as pg
from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QColor, QGuiApplication, QPalette

# Piece backgrounds for the encode view: soft pastels on light, muted tones on dark.
# Neighbouring pieces alternate through the list, so boundaries stay visible.
_LIGHT_PIECES = ("#cfe8ff", "#ffe0b3", "#d5f5d0", "#f3d1f4", "#fff3b0", "#d9d7ff")
_DARK_PIECES = ("#1f4e79", "#7a4a12", "#2e6b2a", "#6b2f6d", "#6b5d10", "#40398a")


#: "light" or "dark" when View ▸ Appearance forces one; None to follow the system.
_forced: str | None = None
#: The platform's palette, kept so "follow the system" can return to it.
_system_palette: QPalette | None = None


def is_dark() -> bool:
    """True when the application is drawn dark (forced, system scheme or palette)."""
    if _forced is not None:
        return _forced == "dark"
    app = QGuiApplication.instance()
    if app is None:
        return False
    scheme = QGuiApplication.styleHints().colorScheme()
    if scheme == Qt.ColorScheme.Dark:
        return True
    if scheme == Qt.ColorScheme.Light:
        return False
    # No scheme reported: judge by the platform's own palette (captured before ours)
    window = (_system_palette or QGuiApplication.palette()).color(QPalette.ColorRole.Window)
    return window.lightness() < 128


def piece_colors() -> tuple[str, ...]:
    return _DARK_PIECES if is_dark() else _LIGHT_PIECES


def plot_colors() -> dict[str, str]:
    """Colours for pyqtgraph plots matching the current scheme."""
    if is_dark():
        return {"background": "#1e1e1e", "foreground": "#d0d0d0", "curve": "#4fa3ff",
                "accent": "#ffb347", "grid": "#3a3a3a"}
    return {"background": "#ffffff", "foreground": "#303030", "curve": "#1f6fc5",
            "accent": "#d9480f", "grid": "#d8d8d8"}


def style_plot(widget: pg.PlotWidget) -> None:
    """Apply the current scheme to a PlotWidget (background, axes, labels)."""
    colors = plot_colors()
    widget.setBackground(colors["background"])
    item = widget.getPlotItem()
    for name in ("left", "bottom", "right", "top"):
        axis = item.getAxis(name)
        axis.setPen(pg.mkPen(colors["foreground"]))
        axis.setTextPen(pg.mkPen(colors["foreground"]))
    item.titleLabel.setText(item.titleLabel.text, color=colors["foreground"])


class _Notifier(QObject):
    """Tells widgets the appearance changed (system switch or View ▸ Appearance)."""

    changed = Signal()

    def __init__(self) -> None:
        super().__init__(QGuiApplication.instance())
        QGuiApplication.styleHints().colorSchemeChanged.connect(self._on_system_change)

    def _on_system_change(self, _scheme) -> None:
        _apply_palette()
        self.changed.emit()


_notifier: _Notifier | None = None


def _the_notifier() -> _Notifier:
    global _notifier
    if _notifier is None:
        _notifier = _Notifier()
    return _notifier


def on_scheme_change(callback: Callable[[], None]) -> None:
    """Call ``callback`` whenever the appearance switches between light and dark.

    Connect QObject methods (Qt drops the connection when the object is destroyed).
    """
    _the_notifier().changed.connect(callback)


def color(name: str) -> QColor:
    return QColor(plot_colors()[name])


def apply_appearance(mode: str = "system") -> None:
    """Use the system's scheme, or force light or dark (Fusion style, our own palette).

    Qt follows the platform's colour scheme by itself where the platform theme supports
    it; forcing (or a platform without one) needs an explicit palette.
    """
    global _forced, _system_palette
    app = QGuiApplication.instance()
    if app is None:
        return
    if _system_palette is None:
        _system_palette = QPalette(QGuiApplication.palette())
    _forced = mode if mode in ("light", "dark") else None
    hints = QGuiApplication.styleHints()
    scheme = {"light": Qt.ColorScheme.Light, "dark": Qt.ColorScheme.Dark}.get(mode)
    notifier = _the_notifier()
    notifier.blockSignals(True)  # one notification below, not one per step
    try:
        if scheme is not None:
            hints.setColorScheme(scheme)
        else:
            hints.unsetColorScheme()
        app.setStyle("Fusion")
        _apply_palette()
    finally:
        notifier.blockSignals(False)
    notifier.changed.emit()


def _apply_palette() -> None:
    app = QGuiApplication.instance()
    if is_dark():
        app.setPalette(_dark_palette())
    elif _forced == "light" or _system_palette is None or \
            _system_palette.color(QPalette.ColorRole.Window).lightness() < 128:
        app.setPalette(app.style().standardPalette())
    else:
        app.setPalette(_system_palette)


def _dark_palette() -> QPalette:
    p = QPalette()
    roles = QPalette.ColorRole
    colors = {
        roles.Window: "#2b2b2b", roles.WindowText: "#e0e0e0", roles.Base: "#1e1e1e",
        roles.AlternateBase: "#262626", roles.ToolTipBase: "#3a3a3a",
        roles.ToolTipText: "#f0f0f0", roles.Text: "#e0e0e0", roles.Button: "#333333",
        roles.ButtonText: "#e0e0e0", roles.BrightText: "#ff6b6b", roles.Link: "#6cb6ff",
        roles.Highlight: "#2f65ca", roles.HighlightedText: "#ffffff",
        roles.PlaceholderText: "#8a8a8a",
    }
    for role, value in colors.items():
        p.setColor(role, QColor(value))
    for role in (roles.Text, roles.WindowText, roles.ButtonText):
        p.setColor(QPalette.ColorGroup.Disabled, role, QColor("#7a7a7a"))
    return p
