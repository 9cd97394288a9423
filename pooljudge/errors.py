"""One base error type; the command line maps input and usage errors to exit status 2."""

from __future__ import annotations

from os import PathLike


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
