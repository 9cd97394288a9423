"""``pooljudge adjudication list``: the disagreements no adjudicator has decided yet."""

from __future__ import annotations

import argparse

from pooljudge.cli import Subcommands
from pooljudge.cli.options import add_db_option, positive_int
from pooljudge.cli.output import print_frame

__all__ = ["register"]


def register(subparsers: Subcommands) -> None:
    adjudication = subparsers.add_parser(
        "adjudication", help="the adjudication queue",
        description="Disagreements (labels differ; on graded scales by two grades or more) "
                    "that no adjudicator has decided yet.")
    actions = adjudication.add_subparsers(title="actions", metavar="ACTION",
                                          parser_class=type(adjudication))
    actions.required = True
    listing = actions.add_parser("list", help="print the queue")
    listing.add_argument("--min-spread", type=positive_int(), metavar="G",
                         help="grades apart that make a disagreement (default: 1 binary, 2 graded)")
    listing.add_argument("--all", action="store_true", help="include adjudicated disagreements")
    listing.add_argument("--format", choices=("table", "tsv"), default="table",
                         help="table (default, for reading) or tsv (a header, tab-separated)")
    listing.add_argument("--campaign", required=True, metavar="CAMPAIGN",
                         help="the campaign's name")
    add_db_option(listing)
    listing.set_defaults(handler=_list_queue)


def _list_queue(args: argparse.Namespace) -> int:
    from pooljudge.annotate.consensus import adjudication_queue, disagreements
    from pooljudge.cli.export_cmd import load_campaign

    frame, scale, *_ = load_campaign(args)
    if args.all:
        queue = disagreements(frame, scale, min_spread=args.min_spread)
    else:
        queue = adjudication_queue(frame, scale, min_spread=args.min_spread)
    print_frame(queue.astype(object).where(queue.notna(), ""), args.format)
    return 0
