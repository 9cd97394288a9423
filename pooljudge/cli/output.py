"""What commands print: a DataFrame as an aligned table, TSV or JSON, written atomically, and
warnings on standard error. pandas is imported only by the callers that hold a frame."""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from pooljudge.errors import printable
from pooljudge.formats.files import atomic_writer

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["emit", "group_text", "print_frame", "records", "render", "warn"]


def render(frame: pd.DataFrame, fmt: str) -> str:
    """``table``: aligned, 4 decimals (NaN as ``–``, ``(none)`` when empty); ``tsv``: header
    and full float precision; ``json``: a list of records (NaN becomes null)."""
    if fmt == "tsv":
        lines = ["\t".join(map(str, frame.columns))]
        lines += ["\t".join(_tsv_cell(v) for v in row)
                  for row in frame.itertuples(index=False, name=None)]
        return "\n".join(lines) + "\n"
    if fmt == "json":
        return json.dumps(records(frame), indent=1, ensure_ascii=False) + "\n"
    if frame.empty:
        return "(none)\n"
    return frame.to_string(index=False, float_format=_short, na_rep="–") + "\n"


def print_frame(frame: pd.DataFrame, fmt: str = "table", *, file=None) -> None:
    """Print a listing of the database commands: ``table`` in pandas' own number format
    (``(none)`` when empty) or ``tsv`` as pandas writes CSV (NaN as an empty cell); unlike
    :func:`render`, whose numbers are scores."""
    file = file or sys.stdout
    if fmt == "tsv":
        frame.to_csv(file, sep="\t", index=False, lineterminator="\n")
    elif frame.empty:
        print("(none)", file=file)
    else:
        print(frame.to_string(index=False), file=file)


def records(frame: pd.DataFrame) -> list[dict]:
    """The rows as JSON-ready dicts: numpy scalars become Python ones, NaN becomes None."""
    return [{str(k): _json_value(v) for k, v in zip(frame.columns, row, strict=True)}
            for row in frame.itertuples(index=False, name=None)]


def group_text(command: str, results: Sequence, groups: pd.DataFrame, fmt: str) -> str:
    """Means per topic group of scored runs (``run group measure topics value``), rendered;
    warnings about ungrouped or unevaluated topics go to standard error."""
    from pooljudge.metrics.evaluate import tidy
    from pooljudge.metrics.groups import group_means

    table, warnings = group_means(tidy(results, per_topic=True), groups)
    for message in warnings:
        warn(command, message)
    return render(table, fmt)


def emit(text: str, output: str) -> None:
    """Write ``text`` to ``output`` (``-`` = standard output) atomically."""
    with atomic_writer(output) as handle:
        handle.write(text)


def warn(command: str, message: str) -> None:
    """``pooljudge COMMAND: warning: message`` on standard error, control characters escaped."""
    print(f"pooljudge {command}: warning: {printable(message)}", file=sys.stderr)


def _short(value: float) -> str:
    """4 decimals; tiny non-zero values (p-values) in scientific notation instead of 0.0000."""
    return f"{value:.2e}" if value != 0 and abs(value) < 5e-4 else f"{value:.4f}"


def _tsv_cell(value: object) -> str:
    if isinstance(value, float):
        return "nan" if math.isnan(value) else repr(value)
    if hasattr(value, "item"):
        return _tsv_cell(value.item())
    return str(value)


def _json_value(value: object) -> object:
    if hasattr(value, "item"):
        value = value.item()
    if isinstance(value, float) and math.isnan(value):
        return None
    return value
