"""Defaults shared by the packages and named by the command line's ``--help``, declared here
so that reading them imports nothing heavy (no numpy, no pyarrow, no measure family)."""

from __future__ import annotations

__all__ = ["DEFAULT_MEASURES"]

# Measures evaluated when none are asked for (eval, report, the Python API's evaluate).
DEFAULT_MEASURES: tuple[str, ...] = ("P@10", "nDCG@10", "AP", "RR", "R@100", "Judged@10")
