"""Options and helpers shared by the database commands: ``--db URL``, engines, table output."""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Iterator
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pandas as pd


__all__ = ["add_db_option", "open_database", "print_frame"]

DB_HELP = "database URL (default: $POOLJUDGE_DB, else sqlite:///pooljudge.db)"


def add_db_option(parser: argparse.ArgumentParser) -> None:
    """Add ``--db URL`` (falls back to ``$POOLJUDGE_DB``, then ``sqlite:///pooljudge.db``)."""
    parser.add_argument("--db", metavar="URL", default=None, help=DB_HELP)


@contextlib.contextmanager
def open_database(args: argparse.Namespace, *, create: bool = False) -> Iterator:
    """The migrated engine for ``args.db``, disposed on exit. Only with ``create`` (commands
    that make a campaign) is a missing SQLite database created; otherwise it is a UsageError."""
    from annotate.db import open_engine

    engine = open_engine(args.db, create=create)
    try:
        yield engine
    finally:
        engine.dispose()


def print_frame(frame: pd.DataFrame, fmt: str = "table", *, file=None) -> None:
    """Print a DataFrame as an aligned table or as TSV with a header."""
    file = file or sys.stdout
    if fmt == "tsv":
        frame.to_csv(file, sep="\t", index=False, lineterminator="\n")
    elif frame.empty:
        print("(none)", file=file)
    else:
        print(frame.to_string(index=False), file=file)
