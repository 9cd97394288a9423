"""Progress bars on an interactive terminal only: quiet in pipes, CI and tests."""
from __future__ import annotations

import io
import sys

__all__ = ["progress"]


def progress(iterable=None, **kwargs):
    """A tqdm progress bar on an interactive stderr; silent otherwise (pipes, CI, tests)."""
    if not _stderr_is_terminal():
        return _Silent(iterable)
    from tqdm.auto import tqdm

    return tqdm(iterable, leave=False, **kwargs)


class _Silent:
    """What :func:`progress` gives off a terminal: iterates, and ignores update() and close()
    (importing tqdm alone costs a tenth of a second)."""

    def __init__(self, iterable=None) -> None:
        self._iterable = iterable

    def __iter__(self):
        return iter(self._iterable if self._iterable is not None else ())

    def update(self, n: int = 1) -> None:
        """Nothing to show."""

    def close(self) -> None:
        """Nothing to close."""

    def set_postfix(self, *args, **kwargs) -> None:
        """Nothing to show."""


def _stderr_is_terminal() -> bool:
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError, io.UnsupportedOperation):
        return False
