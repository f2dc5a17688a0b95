"""A report as PDF through Qt's own text layout and PDF writer (no browser needed).

The HTML of :mod:`~bpe_desktop.core.project.report_html` is laid out by QTextDocument,
each section starting on a new page; plots are drawn from their SVG into images at
print resolution, so the PDF embeds them as image objects.
"""

from __future__ import annotations

import os
from pathlib import Path

from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QMarginsF, QRectF, QSizeF, QUrl
from PySide6.QtGui import QColor, QImage, QPageLayout, QPageSize, QPainter, QPdfWriter, QTextDocument
from PySide6.QtSvg import QSvgRenderer

from bpe_desktop.core.project.report import Plot, Report
from bpe_desktop.core.project.report_html import PLOT_HEIGHT, PLOT_WIDTH, render_html, svg_plot
from bpe_desktop.core.safe_write import write_files

RESOLUTION = 150  # dots per inch of the PDF's layout and its plot images
_PAGE_BREAK = '<p style="page-break-before: always; margin: 0"></p>'


def write_pdf(report: Report, path: str) -> None:
    """Write the report as PDF, atomically (an OSError names ``path``)."""
    images: list[QImage] = []

    def plot_markup(index: int, plot: Plot) -> str:
        images.append(_render(plot))
        return f'<img src="plot:{index}" width="{PLOT_WIDTH}" height="{PLOT_HEIGHT}">'

    html = render_html(report, plot_markup, page_break=_PAGE_BREAK)
    doc = QTextDocument()
    doc.setDefaultStyleSheet("th, td { padding: 2px 4px; } pre { font-size: 8pt; }")
    doc.setHtml(html)  # asks for the images only when laying out: add them first
    for index, image in enumerate(images):
        doc.addResource(QTextDocument.ResourceType.ImageResource, QUrl(f"plot:{index}"), image)
    doc.setHtml(html)
    # Laid out in memory, then written as every output is: QPdfWriter reports no write
    # error, so writing the file itself could leave a truncated PDF over an earlier one.
    buffer = QBuffer()
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    writer = QPdfWriter(buffer)
    writer.setResolution(RESOLUTION)
    writer.setTitle(report.title)
    writer.setCreator("BPE Desktop")
    writer.setPageLayout(QPageLayout(QPageSize(QPageSize.PageSizeId.A4),
                                     QPageLayout.Orientation.Portrait,
                                     QMarginsF(15, 15, 15, 15), QPageLayout.Unit.Millimeter))
    rect = writer.pageLayout().paintRectPixels(RESOLUTION)
    doc.setPageSize(QSizeF(rect.width(), rect.height()))
    doc.print_(writer)
    del writer  # finishes the document
    write_files([(Path(path), bytes(buffer.data()))])


def _render(plot: Plot, scale: float = 2.0) -> QImage:
    renderer = QSvgRenderer(QByteArray(svg_plot(plot).encode("utf-8")))
    image = QImage(int(PLOT_WIDTH * scale), int(PLOT_HEIGHT * scale),
                   QImage.Format.Format_RGB32)
    image.fill(QColor("white"))
    painter = QPainter(image)
    renderer.render(painter, QRectF(0, 0, image.width(), image.height()))
    painter.end()
    return image


def write_pdf_offscreen(report: Report, path: str) -> None:
    """For the command line: a GUI application object without a window (offscreen when
    there is no display), which Qt's fonts and PDF writer need."""
    from PySide6.QtGui import QGuiApplication

    if QGuiApplication.instance() is None:
        if not os.environ.get("DISPLAY") and not os.environ.get("WAYLAND_DISPLAY") \
                and os.name == "posix" and not os.environ.get("QT_QPA_PLATFORM"):
            os.environ["QT_QPA_PLATFORM"] = "offscreen"
        write_pdf_offscreen.app = QGuiApplication(["bpe-desktop"])  # kept alive
    write_pdf(report, path)
