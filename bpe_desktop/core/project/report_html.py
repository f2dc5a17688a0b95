"""A report as one self-contained HTML5 file: styles inline, plots as inline SVG, no
script and no link outside the file, so it opens offline and in any browser."""

from __future__ import annotations

import math
from html import escape
from typing import Callable

from bpe_desktop.core.project.report import (
    COLOURS_FOR_PLOTS,
    Code,
    Paragraph,
    Plot,
    Report,
    Table,
)

PLOT_WIDTH, PLOT_HEIGHT = 640, 360
COLOURS = COLOURS_FOR_PLOTS

_STYLE = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 60em; color: #222; }
h1 { font-size: 1.6em; } h2 { font-size: 1.25em; border-bottom: 1px solid #ccc; }
table { border-collapse: collapse; margin: 0.8em 0; }
th, td { border: 1px solid #ccc; padding: 0.2em 0.5em; text-align: left;
         vertical-align: top; }
td.n { text-align: right; font-variant-numeric: tabular-nums; }
pre { background: #f4f4f4; padding: 0.6em; white-space: pre-wrap; word-break: break-all; }
section { page-break-before: always; } section:first-of-type { page-break-before: auto; }
"""


def render_html(report: Report, plot_markup: Callable[[int, Plot], str] | None = None,
                page_break: str = "") -> str:
    """The whole document. ``plot_markup(index, plot)`` replaces the inline SVG (the PDF
    writer gives images); ``page_break`` is put before each section after the first."""
    markup = plot_markup or (lambda _i, plot: svg_plot(plot))
    out = ["<!DOCTYPE html>", '<html lang="en">', "<head>", '<meta charset="utf-8">',
           f"<title>{escape(report.title)}</title>", f"<style>{_STYLE}</style>", "</head>",
           "<body>", f"<h1>{escape(report.title)}</h1>", f"<p>{escape(report.subtitle)}</p>"]
    plots = 0
    for number, section in enumerate(report.sections):
        if number and page_break:
            out.append(page_break)
        out.append(f"<section>\n<h2>{escape(section.title)}</h2>")
        for block in section.blocks:
            if isinstance(block, Table):
                out.append(html_table(block))
            elif isinstance(block, Plot):
                out.append(f"<figure>{markup(plots, block)}"
                           f"<figcaption>{escape(block.title)}</figcaption></figure>")
                plots += 1
            elif isinstance(block, Code):
                out.append(f"<pre><code>{escape(block.text)}</code></pre>")
            elif isinstance(block, Paragraph):
                out.append(f"<p>{escape(block.text)}</p>")
        out.append("</section>")
    out += ["</body>", "</html>", ""]
    return "\n".join(out)


def html_table(table: Table) -> str:
    rows = []
    if any(table.head):
        rows.append("<tr>" + "".join(f"<th>{escape(h)}</th>" for h in table.head) + "</tr>")
    for row in table.rows:
        cells = []
        for value in row:
            numeric = isinstance(value, (int, float)) and not isinstance(value, bool)
            cells.append(f'<td class="n">{cell_text(value)}</td>' if numeric
                         else f"<td>{escape(cell_text(value))}</td>")
        rows.append("<tr>" + "".join(cells) + "</tr>")
    return "<table>\n" + "\n".join(rows) + "\n</table>"


def cell_text(value) -> str:
    if value is None:
        return "—"
    if isinstance(value, float):
        return f"{value:,.0f}" if value.is_integer() and abs(value) >= 1000 else f"{value:.4g}"
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{value:,}"
    return str(value)


# -- plots ------------------------------------------------------------------------------


def svg_plot(plot: Plot, width: int = PLOT_WIDTH, height: int = PLOT_HEIGHT) -> str:
    """A line plot with axes, ticks and a legend; the x axis is logarithmic when the
    values span more than a factor of 20 (vocabulary sweeps are log-spaced)."""
    xs = [x for s in plot.series for x, _ in s.points]
    ys = [y for s in plot.series for _, y in s.points]
    left, right, top, bottom = 64, 16 + 120, 16, 44
    w, h = width - left - right, height - top - bottom
    log_x = min(xs) > 0 and max(xs) / min(xs) > 20
    fx = (lambda v: math.log10(v)) if log_x else (lambda v: v)
    x0, x1 = _span(fx(min(xs)), fx(max(xs)))
    y0, y1 = _span(min(ys), max(ys))
    px = lambda v: left + (fx(v) - x0) / (x1 - x0) * w
    py = lambda v: top + h - (v - y0) / (y1 - y0) * h
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}" role="img" aria-label="{escape(plot.title)}">',
           f'<rect x="{left}" y="{top}" width="{w}" height="{h}" fill="none" '
           'stroke="#888"/>']
    for value in _ticks(y0, y1):
        y = py(value)
        out.append(f'<line x1="{left - 4}" y1="{y:.1f}" x2="{left + w}" y2="{y:.1f}" '
                   'stroke="#ddd"/>')
        out.append(_text(left - 6, y + 4, cell_text(float(value)), "end"))
    x_ticks = ([10 ** e for e in range(math.floor(x0), math.ceil(x1) + 1)] if log_x
               else _ticks(x0, x1))
    for value in x_ticks:
        x = px(value)
        if left - 0.5 <= x <= left + w + 0.5:
            out.append(f'<line x1="{x:.1f}" y1="{top}" x2="{x:.1f}" y2="{top + h + 4}" '
                       'stroke="#ddd"/>')
            out.append(_text(x, top + h + 16, cell_text(float(value)), "middle"))
    out.append(_text(left + w / 2, height - 8, plot.x_label + (" (log)" if log_x else ""),
                     "middle"))
    out.append(_text(14, top + h / 2, plot.y_label, "middle",
                     f' transform="rotate(-90 14 {top + h / 2:.1f})"'))
    for k, series in enumerate(plot.series):
        colour = COLOURS[k % len(COLOURS)]
        points = " ".join(f"{px(x):.1f},{py(y):.1f}" for x, y in series.points)
        out.append(f'<polyline points="{points}" fill="none" stroke="{colour}" '
                   'stroke-width="2"/>')
        for x, y in series.points:
            out.append(f'<circle cx="{px(x):.1f}" cy="{py(y):.1f}" r="3" fill="{colour}"/>')
        ly = top + 12 + 18 * k
        out.append(f'<rect x="{left + w + 10}" y="{ly - 8}" width="10" height="10" '
                   f'fill="{colour}"/>')
        out.append(_text(left + w + 24, ly + 1, series.label[:16], "start"))
    out.append("</svg>")
    return "\n".join(out)


def _text(x: float, y: float, text: str, anchor: str, extra: str = "") -> str:
    return (f'<text x="{x:.1f}" y="{y:.1f}" font-size="11" font-family="sans-serif" '
            f'text-anchor="{anchor}"{extra}>{escape(text)}</text>')


def _span(lo: float, hi: float) -> tuple[float, float]:
    if hi == lo:  # one value: a band around it
        pad = abs(lo) * 0.05 or 1.0
        return lo - pad, hi + pad
    pad = (hi - lo) * 0.05
    return lo - pad, hi + pad


def _ticks(lo: float, hi: float, count: int = 5) -> list[float]:
    """Round values (1, 2 or 5 times a power of ten apart) between lo and hi."""
    raw = (hi - lo) / count
    power = 10 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 5, 10) if m * power >= raw)
    first = math.ceil(lo / step) * step
    return [round(first + i * step, 12) for i in range(int((hi - first) / step) + 1)]


def write_html(report: Report, path: str) -> None:
    """Write the report atomically (a failed write leaves a previous file as it was)."""
    from bpe_desktop.core.formats._common import write_files

    write_files([(path, render_html(report).encode("utf-8"))])
