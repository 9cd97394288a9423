"""``pooljudge init``'s inputs besides the collection: checked options (``--rationale``,
``--keys``, ``--order``, ``--runs``) and the unit map of a campaign of passages (``--units``)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from pooljudge.errors import InputError, UsageError

if TYPE_CHECKING:
    from collections.abc import Iterator

    import pandas as pd

    from pooljudge.annotate.keymap import KeyMap
    from pooljudge.annotate.records import LabelScale

__all__ = ["check_rationale", "judging_order_of", "keymap_of", "label_list", "parents_of",
           "read_units_of", "runs_of"]


def label_list(text: str) -> tuple[int, ...]:
    """``--rationale``: comma-separated whole numbers (blanks around them allowed)."""
    items = [item.strip() for item in text.split(",")]
    try:
        return tuple(dict.fromkeys(int(item) for item in items))
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r}: expected labels separated by commas, such as 1,2") from None


def check_rationale(labels: tuple[int, ...], scale: LabelScale) -> None:
    """UsageError naming the first ``--rationale`` label that is not on ``scale``."""
    stray = [label for label in labels if label not in scale.values]
    if stray:
        raise UsageError(f"--rationale: label {stray[0]} is not on the scale "
                         f"{', '.join(map(str, scale.values))}")


def keymap_of(path: str | None, scale: LabelScale) -> KeyMap | None:
    """``--keys FILE.json`` checked against the scale's labels (InputError naming the file and
    the clash, unknown action or key); None without the option."""
    if path is None:
        return None
    from pooljudge.annotate.keymap import KeyMap

    return KeyMap.from_json(path, labels=scale.values)


def judging_order_of(args: argparse.Namespace) -> str:
    """The canonical ``--order``; an adaptive one, or ``--depth``, without ``--runs`` is a usage
    error."""
    from pooljudge.pooling.orders import adaptive_spec

    order = args.order
    if adaptive_spec(order) is not None and not args.runs:
        raise UsageError(f"--order: {order} learns from the runs' rankings: give --runs RUN... "
                         "(the runs the pool was made from)")
    if args.depth is not None and not args.runs:
        raise UsageError("--depth: needs --runs")
    return order


def runs_of(args: argparse.Namespace) -> Iterator | None:
    """``--runs``, read lazily (after the pool's check), or None without the option."""
    if not args.runs:
        return None
    from pooljudge.cli.inputs import read_runs

    return read_runs(args.runs)


def read_units_of(path: str | None) -> pd.DataFrame | None:
    """``--units MAP``: the unit map (chunk, doc, start, end), refused at once (naming the map)
    when it gives no offsets; None without the option."""
    if path is None:
        return None
    from pooljudge.formats.passages import map_line_numbers
    from pooljudge.formats.units import read_units

    units = read_units(path)
    if units["start"].isna().all():
        lines = map_line_numbers(path)
        raise InputError("the unit map gives no offsets ('chunk doc', not 'chunk doc start "
                         "end'): --units needs each passage's place in its document", path=path,
                         line=int(lines[0]) if len(lines) else None)
    return units


def parents_of(pool: pd.DataFrame, units: pd.DataFrame) -> pd.DataFrame:
    """The pool with each chunk replaced by its document (a chunk the map lacks kept as it is,
    for :func:`pooljudge.annotate.campaigns.plan_campaign` to name): what ``--dataset`` fetches."""
    parent = units.assign(chunk=units["chunk"].astype(str)).set_index("chunk")["doc"]
    chunks = pool["doc"].astype(str)
    return pool.assign(doc=chunks.map(parent).fillna(chunks))
