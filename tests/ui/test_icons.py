"""Icons: the application icon at every size, and line icons that follow light and dark."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtGui import QColor, QIcon, QImage

from bpe_desktop.paths import resource_path
from bpe_desktop.ui.common import icons, theme

ROOT = Path(__file__).resolve().parents[2]


def _pixels(image: QImage) -> np.ndarray:
    """(height, width, 4) uint8 array of B, G, R, A (ARGB32 in memory, little-endian)."""
    image = image.convertToFormat(QImage.Format.Format_ARGB32)
    data = np.frombuffer(image.constBits(), np.uint8, image.sizeInBytes())
    return data.reshape(image.height(), image.bytesPerLine() // 4, 4)[:, :image.width()].copy()


def _render_icons_module():
    spec = importlib.util.spec_from_file_location("render_icons",
                                                  ROOT / "packaging" / "render_icons.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_app_icon_has_every_size_rendered_from_the_svg(qapp):
    render = _render_icons_module()
    icon = icons.app_icon()
    assert sorted(s.width() for s in icon.availableSizes()) == list(icons.APP_ICON_SIZES)
    for size in icons.APP_ICON_SIZES:
        saved = QImage(str(resource_path("icons", f"bpe-desktop-{size}.png")))
        assert (saved.width(), saved.height()) == (size, size)
        fresh = _pixels(render.render(size)).astype(int)
        # the committed PNG is this SVG's rendering (allowing anti-aliasing differences
        # between Qt versions), so the two cannot drift apart unnoticed
        difference = np.abs(_pixels(saved).astype(int) - fresh)
        assert difference.mean() < 1.0 and np.percentile(difference, 99) <= 24, size
        alpha = _pixels(saved)[..., 3]
        assert alpha[size // 2, size // 2] == 255  # the tile is opaque in the middle
        assert alpha[0, 0] == 0  # and the corners are rounded off


def _mean_line_colour(icon: QIcon, mode=QIcon.Mode.Normal) -> QColor:
    pixels = _pixels(icon.pixmap(48, 48, mode).toImage())
    opaque = pixels[pixels[..., 3] > 200]
    b, g, r = opaque[:, 0].mean(), opaque[:, 1].mean(), opaque[:, 2].mean()
    return QColor(int(r), int(g), int(b))


def test_line_icons_are_drawn_in_the_palette_text_colour(qapp):
    try:
        theme.apply_appearance("light")
        light = _mean_line_colour(icons.action_icon("open"))
        theme.apply_appearance("dark")
        dark = _mean_line_colour(icons.action_icon("open"))  # the same files, redrawn
    finally:
        theme.apply_appearance("system")
    assert light.lightness() < 90
    assert dark.lightness() > 170


def test_accent_shows_when_enabled_and_greys_out_when_disabled(qapp):
    icon = icons.action_icon("train")  # a play triangle in the accent colour
    enabled = _mean_line_colour(icon)
    disabled = _mean_line_colour(icon, QIcon.Mode.Disabled)
    accent = QColor(icons.ACCENT)
    assert abs(enabled.hue() - accent.hue()) < 10 and enabled.saturation() > 150
    assert disabled.saturation() < 40


@pytest.mark.parametrize("name", icons.PANEL_ICONS)
def test_every_panel_icon_draws(qapp, name):
    alpha = _pixels(icons.panel_icon(name).pixmap(24, 24).toImage())[..., 3]
    assert 0.08 < (alpha > 0).mean() < 0.9  # lines, not nothing and not a filled square


def test_unknown_names_fail_loudly_and_nothing_is_missing(qapp):
    with pytest.raises(ValueError, match="unrecognized panel icon name: 'trainig'"):
        icons.panel_icon("trainig")
    with pytest.raises(ValueError, match="unrecognized action icon name"):
        icons.action_icon("training")
    assert icons.check_icons() == []


def test_the_application_carries_its_icon_and_desktop_id(qapp):
    from bpe_desktop.app import APP_ID, create_application

    app = create_application()
    sizes = sorted(s.width() for s in app.windowIcon().availableSizes())
    assert sizes == list(icons.APP_ICON_SIZES)
    assert app.desktopFileName() == APP_ID
