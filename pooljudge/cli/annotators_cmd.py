"""``pooljudge annotators add|list|remove``: a campaign's annotators and their login links."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from pooljudge.annotate.links import DEFAULT_APP_URL, URL_ENV, configured_address, login_link
from pooljudge.annotate.records import (
    ANNOTATOR_ROLES,
)
from pooljudge.cli import Subcommands
from pooljudge.cli.inputs import open_database
from pooljudge.cli.options import add_db_option
from pooljudge.cli.output import print_frame

if TYPE_CHECKING:

    pass


__all__ = ['FORMAT_HELP', 'register']

FORMAT_HELP = "table (default, aligned for reading) or tsv (a header, tab-separated)"


def register(subparsers: Subcommands) -> None:
    _register_annotators(subparsers)


def _register_annotators(subparsers: Subcommands) -> None:
    parser = subparsers.add_parser("annotators", help="add, list or remove annotators",
                                   description="Manage a campaign's annotators.")
    actions = parser.add_subparsers(title="actions", metavar="ACTION", parser_class=type(parser))
    actions.required = True
    add = actions.add_parser("add", help="add an annotator and print their login link")
    add.add_argument("name", metavar="NAME", help="the annotator's name (unique in the campaign)")
    add.add_argument("--role", default=ANNOTATOR_ROLES[0], choices=ANNOTATOR_ROLES,
                     help="annotator (default) judges; adjudicator also decides disagreements; "
                          "admin also manages the campaign")
    add.add_argument("--admin", action="store_true", help="same as --role admin")
    add.add_argument("--url", default=None,
                     help=f"the app's address (default: ${URL_ENV} or {DEFAULT_APP_URL})")
    listing = actions.add_parser("list", help="list annotators with their judgment counts")
    listing.add_argument("--all", action="store_true", help="include removed annotators")
    listing.add_argument("--format", choices=("table", "tsv"), default="table",
                         help=FORMAT_HELP)
    remove = actions.add_parser("remove", help="remove an annotator (judgments are kept)")
    remove.add_argument("name", metavar="NAME", help="the annotator's name")
    for sub, handler in ((add, _annotators_add), (listing, _annotators_list),
                         (remove, _annotators_remove)):
        sub.add_argument("--campaign", required=True, metavar="CAMPAIGN",
                         help="the campaign's name")
        add_db_option(sub)
        sub.set_defaults(handler=handler)


def _annotators_add(args: argparse.Namespace) -> int:
    from pooljudge.annotate.store import add_annotator, session_scope

    role = "admin" if args.admin else args.role
    address = configured_address(args.url) or DEFAULT_APP_URL  # checked before any write
    with open_database(args) as engine, session_scope(engine) as session:
        token = add_annotator(session, campaign=args.campaign, name=args.name, role=role)
    print(login_link(address, token))
    return 0


def _annotators_list(args: argparse.Namespace) -> int:
    from pooljudge.annotate.store import list_annotators, session_scope

    with open_database(args) as engine, session_scope(engine, readonly=True) as session:
        frame = list_annotators(session, campaign=args.campaign, include_removed=args.all)
    print_frame(frame, args.format)
    return 0


def _annotators_remove(args: argparse.Namespace) -> int:
    from pooljudge.annotate.store import remove_annotator, session_scope

    with open_database(args) as engine, session_scope(engine) as session:
        remove_annotator(session, campaign=args.campaign, name=args.name)
    print(f"removed {args.name} from {args.campaign} (their judgments are kept)")
    return 0
