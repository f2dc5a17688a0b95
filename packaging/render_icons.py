"""Render the application icon's PNG sizes from its SVG (run after editing the SVG).

    python3 packaging/render_icons.py          # writes bpe_desktop/resources/icons/*.png
    python3 packaging/render_icons.py --check  # exit 1 if a PNG differs from a fresh render

Each size is rendered directly from the vector drawing (not scaled down from a large
bitmap), so the 16 px icon keeps the whole-pixel edges the SVG was drawn on.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import QRectF, Qt  # noqa: E402
from PySide6.QtGui import QGuiApplication, QImage, QPainter  # noqa: E402
from PySide6.QtSvg import QSvgRenderer  # noqa: E402

ICONS = Path(__file__).resolve().parent.parent / "bpe_desktop" / "resources" / "icons"
SOURCE = ICONS / "bpe-desktop.svg"
SIZES = (16, 32, 48, 64, 128, 256, 512)


def render(size: int) -> QImage:
    renderer = QSvgRenderer(str(SOURCE))
    if not renderer.isValid():
        raise SystemExit(f"{SOURCE}: not a valid SVG")
    image = QImage(size, size, QImage.Format.Format_ARGB32)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    renderer.render(painter, QRectF(0, 0, size, size))
    painter.end()
    return image


def png_path(size: int) -> Path:
    return ICONS / f"bpe-desktop-{size}.png"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true",
                        help="compare the PNGs with a fresh render instead of writing them")
    args = parser.parse_args(argv)
    if QGuiApplication.instance() is None:  # QPainter needs an application object
        app = QGuiApplication([])  # noqa: F841 - kept alive until the end of main
    stale = []
    for size in SIZES:
        image = render(size)
        path = png_path(size)
        if args.check:
            saved = QImage(str(path)).convertToFormat(QImage.Format.Format_ARGB32)
            if saved != image:
                stale.append(path.name)
        elif not image.save(str(path), "PNG"):
            raise SystemExit(f"could not write {path}")
        else:
            print(path)
    if stale:
        print(f"out of date (run {Path(__file__).name}): {', '.join(stale)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
