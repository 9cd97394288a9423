"""Hard-wrapped text made to flow, preformatted text kept: the blocks a document is shown in.

Newswire and e-mail text is often wrapped by hand at ~70 columns; shown in a frame of another
width, those line breaks leave ragged lines. :func:`blocks` splits a text into
``prose`` blocks, whose inner line breaks are wrapping (the renderer lets them flow), and
``pre`` blocks, shown verbatim (tables, rules such as ``=====``, indented code, lists).

A line break is a wrap, not a layout, when the line before it and the line after it are both
prose (they start with a non-space character, are not lists and hold no column gaps of three
spaces or rules of repeated symbols) and the line before is at least :data:`FULL_SHARE` of
the text's wrap width (the 90th percentile of its line lengths): a short line ends a
paragraph on purpose (a heading, a signature, an address line). Blank lines always separate
blocks. A text whose lines are long (wrap width above :data:`MAX_WRAP`) was not wrapped by
hand and is one ``prose`` block per paragraph with its breaks kept.

Offsets are those of the input text: ``text[start:end]`` is a block, so highlight spans found
on the raw text apply unchanged. Linear in the text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

__all__ = ["FULL_SHARE", "MAX_WRAP", "Block", "blocks", "flowed"]

FULL_SHARE = 0.6
MAX_WRAP = 160
MIN_WRAP = 30
_LIST = re.compile(r"[-*+•]\s|\d{1,3}[.)]\s|[a-zA-Z][.)]\s")
_COLUMNS = re.compile(r"\S {3,}\S|\t")
_RULE = re.compile(r"([^\w\s])\1{3,}")


@dataclass(frozen=True)
class Block:
    """``text[start:end]`` of the input; ``kind`` is ``prose`` (its breaks may flow), ``pre``
    (shown verbatim) or ``blank`` (the blank lines between blocks)."""

    kind: str
    start: int
    end: int


def blocks(text: str) -> list[Block]:
    """The text's blocks in order, covering it exactly (see the module docstring)."""
    lines = text.splitlines(keepends=True)
    if not lines:
        return []
    bodies = [line.rstrip("\r\n") for line in lines]
    width = _wrap_width(bodies)
    kinds = [_line_kind(body) for body in bodies]
    out: list[Block] = []
    start = 0
    for index, line in enumerate(lines):
        end = start + len(line)
        kind = kinds[index]
        joins = (out and out[-1].kind == kind == "prose" and width is not None
                 and len(bodies[index - 1].rstrip()) >= FULL_SHARE * width)
        if out and (joins or (kind != "prose" and out[-1].kind == kind)):
            out[-1] = Block(kind, out[-1].start, end)
        else:
            out.append(Block(kind, start, end))
        start = end
    return out


def flowed(text: str, block: Block) -> str:
    """A prose block's text with its wrapping breaks as spaces (same length, so offsets hold);
    other blocks unchanged. The block's final line break is kept."""
    piece = text[block.start:block.end]
    if block.kind != "prose":
        return piece
    body = piece.rstrip("\r\n")
    return body.replace("\r\n", "  ").replace("\n", " ") + piece[len(body):]


def _wrap_width(bodies: list[str]) -> float | None:
    """The width the text was wrapped at (90th percentile of non-blank line lengths), or None
    when it was not wrapped by hand (too few lines, or lines too long or too short)."""
    lengths = np.array([len(b.rstrip()) for b in bodies if b.strip()], dtype=np.int64)
    if len(lengths) < 3:
        return None
    width = float(np.percentile(lengths, 90))
    return width if MIN_WRAP <= width <= MAX_WRAP else None


def _line_kind(body: str) -> str:
    """``blank``, ``pre`` (indented, a list item, columns, a rule) or ``prose``."""
    if not body.strip():
        return "blank"
    if body[0].isspace() or _LIST.match(body) or _COLUMNS.search(body) or _RULE.search(body):
        return "pre"
    return "prose"
