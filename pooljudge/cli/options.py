"""Checkers for argparse ``type=`` (options are checked when the command line is parsed);
:func:`summary`, a module docstring's first line as plain help text; :func:`described`, help
text listing declared choices.

Every option whose value decides the size of some work (labels of a scale, overlap, depth,
resamples, processes...) is checked here, before that work starts. A bad value raises
``argparse.ArgumentTypeError``; the parser prints it as one line,
``pooljudge: error: --option: reason``, and exits with status 2.

Integers are written in decimal (``1000``, ``-3``; no ``2.5``, no ``1e3``); floats must be
finite. The maxima are sanity bounds far above any real use, so that a typo (an extra zero or
two) fails at once instead of running out of memory.
"""

from __future__ import annotations

import argparse
import math
import re
from collections.abc import Callable, Mapping

__all__ = [
    "MAX_COUNT",
    "MAX_DEPTH",
    "MAX_OVERLAP",
    "MAX_RESAMPLES",
    "MAX_SEED",
    "described",
    "int_range",
    "nonnegative_int",
    "open_unit",
    "port",
    "positive_int",
    "probability",
    "seed",
    "summary",
]

MAX_OVERLAP = 1000
MAX_DEPTH = 1_000_000
MAX_COUNT = 10**9  # pairs, budgets: far beyond any pool, well within int64
MAX_RESAMPLES = 100_000
MAX_SEED = 2**32 - 1
_INTEGER = re.compile(r"^[+-]?\d{1,19}$")
_LITERAL = re.compile(r"``(.+?)``")
_ROLE = re.compile(r":[a-z]+:`~?([^`]+)`")


def _integer(text: str) -> int:
    value = text.strip()
    if not _INTEGER.match(value):
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}")
    return int(value)


def int_range(lo: int | None = None, hi: int | None = None) -> Callable[[str], int]:
    """A checker of integers ``lo <= value <= hi`` (a None bound: unbounded on that side)."""

    def check(text: str) -> int:
        value = _integer(text)
        if lo is not None and value < lo:
            raise argparse.ArgumentTypeError(f"must be at least {lo}, got {value}")
        if hi is not None and value > hi:
            raise argparse.ArgumentTypeError(f"must be at most {hi}, got {value}")
        return value

    check.__name__ = "integer"
    return check


def positive_int(hi: int | None = None) -> Callable[[str], int]:
    """A checker of integers ``1 <= value <= hi``."""
    return int_range(1, hi)


def nonnegative_int(hi: int | None = None) -> Callable[[str], int]:
    """A checker of integers ``0 <= value <= hi``."""
    return int_range(0, hi)


seed = int_range(0, MAX_SEED)
"""A random seed: ``0 <= seed <= 2**32 - 1`` (numpy's and SQLite's integers hold it exactly)."""

port = int_range(1, 65535)
"""A TCP port number."""


def _float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"not a finite number: {text!r}")
    return value


def probability(text: str) -> float:
    """A probability ``0 <= p <= 1``."""
    value = _float(text)
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"must be between 0 and 1, got {value:g}")
    return value


def open_unit(text: str) -> float:
    """A number strictly between 0 and 1 (a confidence level, an RBP persistence)."""
    value = _float(text)
    if not 0.0 < value < 1.0:
        raise argparse.ArgumentTypeError(f"must lie strictly between 0 and 1, got {value:g}")
    return value


def summary(doc: str | None) -> str:
    """The first line of a docstring as plain text for ``--help``: reST ``literals`` and
    :role:`targets` lose their markup (``x`` becomes x)."""
    first = (doc or "").strip().splitlines()[0] if (doc or "").strip() else ""
    return _ROLE.sub(r"\1", _LITERAL.sub(r"\1", first))


def described(choices: Mapping[str, str]) -> str:
    """Declared choices as help text: ``name: what it does; name: ...``."""
    return "; ".join(f"{name}: {text}" for name, text in choices.items())
