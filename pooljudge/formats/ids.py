"""The one rule for topic and document ids: an id pooljudge accepts is one every file it writes
can carry unchanged, so that each of them reads back identically.

An id is refused (at its ``path:line``) when it is empty, holds whitespace of any kind (qrels
and runs separate fields by blanks; the TSV files by tabs and line breaks), a control character
(C0, C1, DEL: they would reach a terminal or break a line) or U+FEFF (a byte-order mark is
dropped at a file's start); a topic id may not start with ``#`` either (a qrels or run line
starting with ``#`` is a comment). Quotes, commas, ``#`` inside, ``NA``, ``null``, ``1e5``,
``007`` and any other Unicode are kept as they are: no writer quotes and no reader converts.

Runs, qrels and unit maps are split at blanks and tabs by pyarrow; for them
:func:`refuse_control_bytes` checks the raw bytes (ASCII control bytes other than tab, line
feed and a carriage return before a line feed) with numpy, a megabyte at a time.
"""

from __future__ import annotations

import os
import re

import numpy as np

from pooljudge.errors import InputError

__all__ = ["check_id", "first_control_byte", "id_problem", "refuse_control_bytes",
           "refuse_nul"]

_FORBIDDEN = re.compile(r"[\s\x00-\x1f\x7f-\x9f\ufeff\u2028\u2029]")
_PIECE = 1 << 20


def id_problem(value: str, what: str = "document") -> str | None:
    """Why ``value`` cannot be a ``what`` id (``topic`` or ``document``), or None."""
    if not value:
        return f"empty {what} id"
    bad = _FORBIDDEN.search(value)
    if bad is not None:
        kind = ("whitespace" if bad.group().isspace() else "byte-order mark"
                if bad.group() == "\ufeff" else "control character")
        return f"{kind} {bad.group()!r} in {what} id {value!r}"
    if what == "topic" and value.startswith("#"):
        return f"topic id {value!r} starts with '#' (a qrels or run line so written is a comment)"
    return None


def check_id(value: str, what: str, path: str | os.PathLike[str] | None,
             line: int | None) -> None:
    """InputError at ``path:line`` when :func:`id_problem` finds one."""
    problem = id_problem(value, what)
    if problem is not None:
        raise InputError(problem, path=path, line=line)


def first_control_byte(raw: bytes | bytearray | memoryview) -> int | None:
    """The offset of the first ASCII control byte other than tab and line feed (a carriage
    return only before a line feed or at the end), or None."""
    codes = np.frombuffer(raw, dtype=np.uint8)
    for start in range(0, len(codes), _PIECE):
        piece = codes[start:start + _PIECE]
        control = np.count_nonzero(piece < 32) - np.count_nonzero(piece == 10)
        if control > 0:
            control -= np.count_nonzero(piece == 9) + np.count_nonzero(piece == 13)
        if control > 0 or np.count_nonzero(piece == 127) or (
                np.count_nonzero(piece == 13) and _lone_cr(codes, start, len(piece))):
            found = _exact(codes, start, len(piece))
            if found is not None:
                return found
    return None


def _lone_cr(codes: np.ndarray, start: int, size: int) -> bool:
    """Whether a carriage return in the piece is followed by neither a line feed nor the end."""
    after = np.flatnonzero(codes[start:start + size] == 13) + start + 1
    after = after[after < len(codes)]
    return bool((codes[after] != 10).any())


def _exact(codes: np.ndarray, start: int, size: int) -> int | None:
    """The first offending byte's offset in the piece, or None."""
    piece = codes[start:start + size]
    bad = ((piece < 32) & (piece != 9) & (piece != 10) & (piece != 13)) | (piece == 127)
    crs = np.flatnonzero(piece == 13) + start
    lone = [int(i) for i in crs if i + 1 < len(codes) and codes[i + 1] != 10]
    hits = [int(i) + start for i in np.flatnonzero(bad)[:1]] + lone[:1]
    return min(hits) if hits else None


def refuse_control_bytes(raw: bytes, path: str | os.PathLike[str] | None) -> None:
    """InputError ``path:line: control character ...`` for the first control byte of
    :func:`first_control_byte`."""
    at = first_control_byte(raw)
    if at is not None:
        line = raw.count(b"\n", 0, at) + 1
        raise InputError(f"control character {chr(raw[at])!r} in a field", path=path,
                         line=line)


def refuse_nul(values: list[str], lines: list[int], path: str | os.PathLike[str] | None
               ) -> None:
    """InputError ``path:line: NUL character in text`` for the first value holding U+0000
    (PostgreSQL cannot store it in text; SQLite would, so both refuse it)."""
    for value, line in zip(values, lines, strict=True):
        if "\x00" in value:
            raise InputError("NUL character in text", path=path, line=line)
