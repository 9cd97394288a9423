"""Blank lines in a TREC file, for readers that must refuse them as trec_eval does.

pooljudge's readers skip a blank line; trec_eval 10.0's qrels reader refuses one (an empty or
whitespace-only line, the last line included, ``#`` comment lines excepted): it prints
``trec_eval.get_qrels: Malformed line N`` and exits 2. :func:`refuse_blank_lines` lets
``pooljudge trec_eval`` refuse the same files, with the same exit status and a ``path:line``.
"""

from __future__ import annotations

import re

from pooljudge.errors import InputError
from pooljudge.formats.files import PathLike, read_bytes

__all__ = ["first_blank_line", "refuse_blank_lines"]

_BLANK_LINE = re.compile(rb"(?m)^[ \t\r\f\v]*\n")


def first_blank_line(raw: bytes) -> int | None:
    """The 1-based number of the first line of ``raw`` that is empty or only whitespace (a
    last line without its newline included), or None."""
    match = _BLANK_LINE.search(raw)
    if match is not None:
        return raw.count(b"\n", 0, match.start()) + 1
    tail = raw[raw.rfind(b"\n") + 1:]
    if tail and tail.isspace():
        return raw.count(b"\n") + 1
    return None


def refuse_blank_lines(path: PathLike) -> None:
    """Raise InputError naming ``path:line`` of the first blank line of the file (plain or
    gzip), if any."""
    line = first_blank_line(read_bytes(path))
    if line is not None:
        raise InputError("blank line (trec_eval refuses it; remove it)", path=path, line=line)
