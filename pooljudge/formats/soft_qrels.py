"""Soft qrels: the posterior probability of each label per (topic, document), as a TSV.

::

    # pooljudge soft qrels: P(label) per pair; model ds (comment lines start with #)
    topic<TAB>doc<TAB>label<TAB>probability
    401<TAB>FT934-5418<TAB>0<TAB>0.125
    401<TAB>FT934-5418<TAB>1<TAB>0.875

The header line is required (after any comments); then one line per (topic, doc, label), four
tab-separated fields: topic and doc without tabs, label an integer, probability a finite number
in [0, 1]. A (topic, doc, label) appears once; each pair's probabilities sum to 1 within 1e-6.
Blank lines are refused. The reader raises InputError naming ``path:line`` for the first fault
(for a pair's sum, its last line); the writer writes every probability as Python's ``repr``
(the shortest text that reads back to the same double), through a write-then-rename.
"""

from __future__ import annotations

import math
from typing import IO

import numpy as np
import pandas as pd

from pooljudge.errors import InputError
from pooljudge.formats.files import PathLike, atomic_writer, read_utf8

__all__ = ["SOFT_QRELS_COLUMNS", "read_soft_qrels", "write_soft_qrels"]

SOFT_QRELS_COLUMNS = ("topic", "doc", "label", "probability")
_HEADER = "\t".join(SOFT_QRELS_COLUMNS)
_TOLERANCE = 1e-6


def write_soft_qrels(frame: pd.DataFrame, target: PathLike | IO[str], *,
                     comment: str = "") -> None:
    """Write ``topic, doc, label, probability`` rows (in their order) to ``target``: an open
    text handle, or a path written then renamed."""
    lines = [f"# pooljudge soft qrels: P(label) per pair{'; ' + comment if comment else ''}",
             _HEADER]
    lines += [f"{t}\t{d}\t{int(label)}\t{float(p)!r}" for t, d, label, p in zip(
        frame["topic"].astype(str), frame["doc"].astype(str),
        frame["label"].to_numpy(np.int64), frame["probability"].to_numpy(float), strict=True)]
    text = "\n".join(lines) + "\n"
    if hasattr(target, "write"):
        target.write(text)
        return
    with atomic_writer(target) as handle:
        handle.write(text)


def read_soft_qrels(path: PathLike) -> pd.DataFrame:
    """Read a soft-qrels file into ``topic, doc, label, probability`` (file order)."""
    rows: list[tuple[str, str, int, float]] = []
    first: dict[tuple[str, str, int], int] = {}
    last: dict[tuple[str, str], int] = {}
    header = False
    for number, line in enumerate(read_utf8(path).splitlines(), start=1):
        if line.startswith("#"):
            continue
        if not header:
            if line.rstrip("\r") != _HEADER:
                raise InputError(f"expected the header {_HEADER!r}", path=path, line=number)
            header = True
            continue
        row = _row(line.rstrip("\r"), path, number)
        seen = first.setdefault(row[:3], number)
        if seen != number:
            raise InputError(f"topic {row[0]} doc {row[1]} label {row[2]} repeated (first on "
                             f"line {seen})", path=path, line=number)
        last[row[:2]] = number
        rows.append(row)
    if not rows:
        raise InputError("no soft qrels (a header and at least one line)", path=path)
    frame = pd.DataFrame(rows, columns=list(SOFT_QRELS_COLUMNS))
    sums = frame.groupby(["topic", "doc"], sort=False)["probability"].sum()
    wrong = np.flatnonzero(np.abs(sums.to_numpy() - 1.0) > _TOLERANCE)
    if len(wrong):
        topic, doc = sums.index[wrong[0]]
        raise InputError(f"the probabilities of topic {topic} doc {doc} sum to "
                         f"{sums.iloc[wrong[0]]!r}, not 1", path=path, line=last[(topic, doc)])
    return frame


def _row(line: str, path: PathLike, number: int) -> tuple[str, str, int, float]:
    fields = line.split("\t")
    if len(fields) != 4 or not fields[0] or not fields[1]:
        raise InputError("expected 4 tab-separated fields: topic doc label probability",
                         path=path, line=number)
    topic, doc, label, probability = fields
    try:
        value = int(label)
    except ValueError:
        raise InputError(f"label {label!r} is not an integer", path=path, line=number) from None
    try:
        p = float(probability)
    except ValueError:
        p = math.nan
    if not (0.0 <= p <= 1.0):
        raise InputError(f"probability {probability!r} is not a number in [0, 1]", path=path,
                         line=number)
    return topic, doc, value, p
