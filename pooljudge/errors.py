"""One base error type; the command line maps input and usage errors to exit status 2."""

from __future__ import annotations

import re
from os import PathLike

# C0 and C1 control characters, DEL, and the Unicode line and paragraph separators: what could
# break a one-line message or drive a terminal (an ANSI escape starts with ESC, U+001B).
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def printable(text: str) -> str:
    """``text`` with every control character written as Python writes it in a string literal
    (``\\n``, ``\\x1b``, ``\\u2028``), so a message stays one line and a path or name
    cannot send escape sequences to the terminal; a backslash is left as it is."""
    return _CONTROL.sub(lambda m: repr(m.group())[1:-1], text)


def has_control(text: str) -> bool:
    """Whether ``text`` holds a control character (as :func:`printable` escapes them)."""
    return _CONTROL.search(text) is not None


class PoolJudgeError(Exception):
    """Base class of every error pooljudge raises on purpose."""

    exit_status = 1


class InputError(PoolJudgeError):
    """Bad input data: printed as ``path:line: message`` (or ``path: message``), exit status 2."""

    exit_status = 2

    def __init__(
        self, message: str, *, path: str | PathLike[str] | None = None, line: int | None = None
    ) -> None:
        self.message = message
        self.path = None if path is None else str(path)
        self.line = line
        super().__init__(str(self))

    def __str__(self) -> str:
        if self.path is None:
            return self.message
        if self.line is None:
            return f"{self.path}: {self.message}"
        return f"{self.path}:{self.line}: {self.message}"


class UsageError(PoolJudgeError):
    """A wrong option or argument combination; exit status 2."""

    exit_status = 2


class StorageError(PoolJudgeError):
    """The database refused a write or a read it had accepted before: a full or read-only disk,
    an I/O error, a lost server connection. The transaction was rolled back, so nothing of it
    is stored; exit status 2 (like an unwritable output file)."""

    exit_status = 2
