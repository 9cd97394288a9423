"""``pooljudge eval``'s means table (``--format table``, the default) built from the results'
arrays, without pandas (its import cost: docs/performance.md).

The text is, character for character, what the table was printed with before: the results'
rows (run, topic: each run's topics with ``--per-topic``, then ``all``) pivoted to a column per
measure, printed by ``DataFrame.to_string(index=False)`` with floats as ``{:.4f}`` (``NaN``
where there is no value) and the counts as integers; the header of a numeric column gets a
leading space, every cell is right-justified to its column's widest cell or header, and columns
are one space apart.
:func:`table_text` returns None where that frame would be built differently or fail: a shown
column without any value (the pivot drops it), a count without a finite value, a value -0.0
(which the pivot may or may not turn into 0.0), a topic named ``all`` beside the summary rows
(the pivot averages the two), ids holding a tab or line break (escaped by pandas); the caller
then builds the frame itself.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pooljudge.metrics.results import RunResult

__all__ = ["table_text"]

_ESCAPED = ("\t", "\n", "\r")


def table_text(results: Sequence[RunResult], shown: Sequence[str], counts: Sequence[str],
               coverage: tuple[str, str], per_topic: bool) -> str | None:
    """The table (without a final line break) of ``shown`` measures, ``counts`` among them as
    integers, then ``coverage`` = (measure, column header) appended as the last column; None
    where the caller must build it with pandas (module docstring)."""
    from pooljudge.metrics.evaluate import ALL_TOPICS

    if not results:
        return None
    runs: list[str] = []
    topics: list[str] = []
    names = [*(name for name in shown if name != coverage[0]), coverage[0]]
    cells: dict[str, list[float]] = {name: [] for name in names}
    for result in results:
        by_name = {str(m): m for m in result.values}
        if any(name not in by_name for name in cells) or (per_topic and ALL_TOPICS in
                                                          result.topics):
            return None
        rows = [*(result.topics if per_topic else []), ALL_TOPICS]
        runs += [result.name] * len(rows)
        topics += rows
        for name, column in cells.items():
            measure = by_name[name]
            if per_topic:
                column += result.values[measure].tolist()
            column.append(float(result.summary[measure]))
    if any(c in text for text in [*set(runs), *set(topics)] for c in _ESCAPED):
        return None
    columns = [("run", runs), ("topic", topics)]
    for name, values in cells.items():
        if all(math.isnan(v) for v in values):
            return None
        header = " " + (coverage[1] if name == coverage[0] else name)  # numeric: a space
        if name in counts:
            if not all(math.isfinite(v) for v in values):
                return None
            columns.append((header, [f"{round(v):d}" for v in values]))
        else:
            if any(v == 0.0 and math.copysign(1.0, v) < 0 for v in values):
                return None  # -0.0: the pivot may or may not turn it into 0.0
            columns.append((header, ["NaN" if math.isnan(v) else f"{v:.4f}" for v in values]))
    return _aligned(columns)


def _aligned(columns: list[tuple[str, list[str]]]) -> str:
    """Header and rows, each cell right-justified to its column's width, one space apart."""
    widths = [max(len(header), *(len(cell) for cell in cells)) for header, cells in columns]
    lines = [" ".join(h.rjust(w) for (h, _), w in zip(columns, widths, strict=True))]
    for row in zip(*(cells for _, cells in columns), strict=True):
        lines.append(" ".join(c.rjust(w) for c, w in zip(row, widths, strict=True)))
    return "\n".join(lines)


def errors_table_text(results: Sequence[RunResult], shown: Sequence[str]) -> str | None:
    """The ``--se`` table (without a final line break): per run and shown measure, in the
    results' measure order, the mean over topics and the SE of the mean and its interval
    (``value se ci_low ci_high``, ``{:.4f}``, NaN where a measure has none), as
    ``DataFrame.to_string(index=False)`` printed it; None for ids holding a tab or line break."""
    names = set(shown)
    runs: list[str] = []
    measures: list[str] = []
    cells: list[list[float]] = [[], [], [], []]
    for result in results:
        for measure in result.values:
            if str(measure) not in names:
                continue
            runs.append(result.name)
            measures.append(str(measure))
            numbers = (float(result.summary[measure]),
                       *result.intervals.get(measure, (math.nan,) * 3))
            for column, number in zip(cells, numbers, strict=True):
                column.append(float(number))
    if not runs or any(c in text for text in [*set(runs), *set(measures)] for c in _ESCAPED):
        return None
    columns = [("run", runs), ("measure", measures)]
    for header, values in zip(("value", "se", "ci_low", "ci_high"), cells, strict=True):
        columns.append((" " + header, ["NaN" if math.isnan(v) else f"{v:.4f}" for v in values]))
    return _aligned(columns)
