"""``--units FILE --level doc|chunk`` for ``eval``, ``pool`` and ``report``: the unit map read
once, the level of the qrels and of each run told from their ids, and each moved to the level
asked for (:mod:`pooljudge.metrics.units`), with the warnings a reader must see."""

from __future__ import annotations

import argparse
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING

from pooljudge.cli.output import warn
from pooljudge.errors import UsageError

if TYPE_CHECKING:
    import pandas as pd

    from pooljudge.formats.trec import RunColumns
    from pooljudge.metrics.units import Level, Units

__all__ = ["ASSUMPTION", "load_units", "qrels_at", "run_at", "run_levels", "runs_at"]

ASSUMPTION = ("document qrels applied to chunks: ASSUMPTION: every chunk of a judged document "
              "has the document's label (a chunk is relevant exactly when its document is)")


def load_units(args: argparse.Namespace, command: str) -> Units | None:
    """The prepared unit map of ``--units`` (None without it); UsageError for ``--level``
    without ``--units``."""
    if args.units is None:
        if args.level is not None:
            raise UsageError(f"--level needs --units FILE: {command} tells chunks from documents "
                             "by the unit map")
        return None
    from pooljudge.formats.units import read_unit_columns
    from pooljudge.metrics.units import prepare_units

    return prepare_units(read_unit_columns(args.units))


def qrels_at(qrels: pd.DataFrame, units: Units, level: Level | None, *, path: str,
             command: str) -> tuple[pd.DataFrame, Level]:
    """The qrels at ``level`` (None: their own) and that level; moving document qrels to
    chunks warns the assumption once, and either move warns what it could not carry."""
    from pooljudge.metrics.units import level_of, qrels_to_chunks, qrels_to_documents

    own = level_of(qrels["doc"], units, what=f"the qrels {path}")
    level = level or own
    if own == level:
        return qrels, level
    note = _warner(command)
    if level == "chunk":
        note(ASSUMPTION)
        return qrels_to_chunks(qrels, units, warn=note, name=path), level
    return qrels_to_documents(qrels, units, warn=note, name=path), level


def run_levels(runs: dict[str, RunColumns], units: Units) -> dict[str, Level]:
    """Each run's own level, told from its ids."""
    from pooljudge.metrics.units import level_of

    return {name: level_of(run.doc, units, what=f"run {name}") for name, run in runs.items()}


def run_at(name: str, run: RunColumns, units: Units, level: Level) -> RunColumns:
    """``run`` at ``level`` (:func:`pooljudge.metrics.units.run_at_level`): a chunk run moved to
    documents; a document run cannot move to chunks (UsageError)."""
    from pooljudge.metrics.units import run_at_level

    return run_at_level(run, units, level, name=name)


def runs_at(runs: Iterable[tuple[str, RunColumns]], units: Units, level: Level
            ) -> Iterator[tuple[str, RunColumns]]:
    """(name, run at ``level``) for each run, one at a time."""
    for name, run in runs:
        yield name, run_at(name, run, units, level)


def _warner(command: str) -> Callable[[str], None]:
    return lambda message: warn(command, message)
