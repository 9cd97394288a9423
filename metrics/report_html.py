"""Render report sections into one self-contained HTML page (no network, no scripts).

Every string that comes from input (run names, topic ids, measure names, warnings) is escaped with
``html.escape``; plots are PNG images embedded as ``data:`` URIs; the stylesheet is inlined; the
page holds no script and no URL of any kind, so it opens the same offline.
"""

from __future__ import annotations

import base64
import html
import io
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

__all__ = ["MAX_COLUMNS", "Section", "figure_data_uri", "format_cell", "html_table", "render_page",
           "render_section"]


@dataclass(frozen=True)
class Section:
    """One part of the report: explanatory text, tables (caption -> frame) and figures.

    ``collapsed`` puts each table inside a ``<details>`` element (long per-topic tables).
    """

    key: str
    title: str
    note: str = ""
    tables: dict[str, pd.DataFrame] = field(default_factory=dict)
    figures: dict[str, Figure] = field(default_factory=dict)
    collapsed: bool = False


def format_cell(value: object, digits: int = 4) -> tuple[str, bool]:
    """The escaped text of one cell and whether it is numeric (right-aligned)."""
    if isinstance(value, bool | np.bool_):
        return ("yes" if value else "no"), False
    if isinstance(value, int | np.integer):
        return str(int(value)), True
    if isinstance(value, float | np.floating):
        number = float(value)
        if math.isnan(number):
            return "–", True
        text = f"{number:.{digits}f}"
        return (text[1:] if text.startswith("-") and float(text) == 0 else text), True
    if value is None or value is pd.NA:
        return "–", False
    return html.escape(str(value)), False


MAX_COLUMNS = 8  # data columns per table part: the page fits a 1366-px screen unscrolled


def html_table(frame: pd.DataFrame, *, digits: int = 4, max_columns: int = MAX_COLUMNS) -> str:
    """An HTML table of ``frame`` (a named index becomes the first column); all text escaped.

    A frame wider than ``max_columns`` data columns is split into parts of at most that many,
    one table each, every part repeating the first (key) column, so that no table needs
    sideways scrolling on a 1366-px screen (long headers wrap, see report.css)."""
    if frame.index.name is not None or isinstance(frame.index, pd.MultiIndex):
        frame = frame.reset_index(allow_duplicates=True)  # a run may be named "topic"
    width = frame.shape[1]
    if width <= max_columns + 1:
        return f'<div class="scroll">{_table(frame, digits)}</div>'
    parts = [_table(frame.iloc[:, [0, *range(start, min(start + max_columns, width))]], digits)
             for start in range(1, width, max_columns)]
    return f'<div class="scroll">{"".join(parts)}</div>'


def _table(frame: pd.DataFrame, digits: int) -> str:
    head = "".join(f"<th>{html.escape(str(c))}</th>" for c in frame.columns)
    rows = []
    for record in frame.itertuples(index=False, name=None):
        cells = []
        for value in record:
            text, numeric = format_cell(value, digits)
            cells.append(f'<td class="num">{text}</td>' if numeric else f"<td>{text}</td>")
        rows.append(f"<tr>{''.join(cells)}</tr>")
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>"


def figure_data_uri(figure: Figure, *, dpi: int = 96) -> str:
    """The figure as a ``data:image/png;base64,...`` URI (rendered by matplotlib's Agg canvas)."""
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=dpi, bbox_inches="tight")
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")


def render_section(section: Section) -> str:
    """The ``<section>`` element of one report section."""
    parts = [f'<section id="{html.escape(section.key)}"><h2>{html.escape(section.title)}</h2>']
    if section.note:
        parts.append(f'<p class="note">{html.escape(section.note)}</p>')
    for caption, frame in section.tables.items():
        table = html_table(frame)
        if section.collapsed:
            parts.append(f"<details><summary>{html.escape(caption)}</summary>{table}</details>")
        else:
            parts.append(f"<h3>{html.escape(caption)}</h3>{table}" if caption else table)
    for caption, figure in section.figures.items():
        alt = html.escape(caption)
        parts.append(f'<figure><img class="plot" alt="{alt}" src="{figure_data_uri(figure)}">'
                     f"<figcaption>{alt}</figcaption></figure>")
    parts.append("</section>")
    return "".join(parts)


def render_page(title: str, meta: Sequence[str], warnings: Sequence[str],
                sections: Sequence[Section]) -> str:
    """The whole HTML document: title, meta lines, warnings, then every section in order."""
    css = Path(__file__).with_name("report.css").read_text(encoding="utf-8")
    warning_items = "".join(f"<li>{html.escape(w)}</li>" for w in warnings)
    warning_block = (f'<section id="warnings"><h2>Warnings</h2><ul class="warnings">'
                     f"{warning_items}</ul></section>" if warnings else "")
    meta_block = "".join(f'<p class="meta">{html.escape(line)}</p>' for line in meta)
    body = "".join(render_section(s) for s in sections)
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{html.escape(title)}</title><style>{css}</style></head>"
        f"<body><h1>{html.escape(title)}</h1>{meta_block}{warning_block}{body}</body></html>\n"
    )
