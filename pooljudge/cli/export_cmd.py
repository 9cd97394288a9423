"""``pooljudge export`` (consensus qrels + provenance) and ``pooljudge adjudication list``."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import pandas as pd

from pooljudge.cli.common import add_db_option, open_database, print_frame
from pooljudge.errors import InputError, UsageError
from pooljudge.fileio import atomic_writer

__all__ = ["provenance_path", "register"]

PROVENANCE_SUFFIX = ".provenance.tsv"


def register(subparsers: argparse._SubParsersAction) -> None:
    from annotate.consensus import POLICIES, TIES

    export = subparsers.add_parser(
        "export", help="write consensus qrels and their provenance",
        description="Write TREC qrels (topic 0 doc label) of the judged pairs, one label per pair "
                    "decided by --policy, and beside them a provenance TSV (per pair: the votes "
                    "and the rule that decided). Both are written to temporary names and "
                    "renamed.")
    export.add_argument("--policy", default="majority", metavar="POLICY",
                        help=f"one of {', '.join(POLICIES)} (default: majority)")
    export.add_argument("--ties", choices=TIES, default="lower",
                        help="majority ties: take the lower or higher label, or skip the pair")
    export.add_argument("--binarize", type=int, metavar="T",
                        help="write 1 for a decided label >= T, else 0")
    export.add_argument("-o", "--output", default="-", metavar="FILE", help="default: stdout")
    export.add_argument("--provenance", metavar="FILE",
                        help=f"provenance TSV (default: FILE{PROVENANCE_SUFFIX} beside -o; "
                             "not written for stdout unless given)")
    export.set_defaults(handler=_export)
    adjudication = subparsers.add_parser(
        "adjudication", help="the adjudication queue",
        description="Disagreements (labels differ; on graded scales by two grades or more) "
                    "that no adjudicator has decided yet.")
    actions = adjudication.add_subparsers(title="actions", metavar="ACTION",
                                          parser_class=type(adjudication))
    actions.required = True
    listing = actions.add_parser("list", help="print the queue")
    listing.add_argument("--min-spread", type=int, metavar="G",
                         help="grades apart that make a disagreement (default: 1 binary, 2 graded)")
    listing.add_argument("--all", action="store_true", help="include adjudicated disagreements")
    listing.add_argument("--format", choices=("table", "tsv"), default="table")
    listing.set_defaults(handler=_list_queue)
    for sub in (export, listing):
        sub.add_argument("--campaign", required=True, metavar="CAMPAIGN")
        add_db_option(sub)


def provenance_path(output: str, given: str | None) -> str | None:
    """Where the provenance goes: ``given``, else beside a file output, else nowhere."""
    if given is not None:
        return given
    return None if output == "-" else output + PROVENANCE_SUFFIX


def _load(args: argparse.Namespace) -> tuple[pd.DataFrame, tuple[int, ...]]:
    from annotate.db import session_scope
    from annotate.store import get_campaign, judgments_frame

    with open_database(args) as engine, session_scope(engine, readonly=True) as session:
        scale = get_campaign(session, name=args.campaign).scale.values
        frame = judgments_frame(session, campaign=args.campaign)
    return frame, scale


def _export(args: argparse.Namespace) -> int:
    from annotate.consensus import Policy, consensus_qrels
    from pooljudge.trec import write_qrels

    policy = Policy.parse(args.policy, ties=args.ties, binarize=args.binarize)
    provenance = provenance_path(args.output, args.provenance)
    for option, target in (("-o", args.output), ("--provenance", provenance)):
        _check_target(option, target)
    frame, scale = _load(args)
    if frame.empty:
        raise InputError(f"campaign {args.campaign} has no judgments to export")
    qrels, votes = consensus_qrels(frame, scale, policy)
    if provenance is None:
        write_qrels(qrels, args.output)
    else:
        # The qrels are renamed into place inside the provenance writer: an error in either
        # leaves both files as they were.
        with atomic_writer(provenance) as handle:
            votes.to_csv(handle, sep="\t", index=False, lineterminator="\n", na_rep="")
            write_qrels(qrels, args.output)
    left_out = len(votes) - len(qrels)
    print(f"{len(qrels)} judged pairs written by policy {policy}"
          + (f" (ties: {policy.ties})" if policy.name in {"majority", "adjudicated"} else "")
          + (f"; {left_out} left out, see the provenance" if left_out else ""), file=sys.stderr)
    return 0


def _check_target(option: str, target: str | None) -> None:
    """Refuse a target that cannot be written before anything is computed or written."""
    if target is None or target == "-":
        return
    path = Path(target)
    if not target.strip() or path.is_dir():
        raise UsageError(f"{option} {target!r}: not a file name")
    if not path.parent.is_dir():
        raise UsageError(f"{option} {target}: no such directory: {path.parent}")


def _list_queue(args: argparse.Namespace) -> int:
    from annotate.consensus import adjudication_queue, disagreements

    frame, scale = _load(args)
    if args.all:
        queue = disagreements(frame, scale, min_spread=args.min_spread)
    else:
        queue = adjudication_queue(frame, scale, min_spread=args.min_spread)
    print_frame(queue.astype(object).where(queue.notna(), ""), args.format)
    return 0
