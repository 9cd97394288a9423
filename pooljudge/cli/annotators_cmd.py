"""``pooljudge annotators add|list|remove|grant|revoke``: a campaign's annotators, their login
links, and roles granted in a campaign to people of another (``campaign_role``)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from pooljudge.annotate.links import DEFAULT_APP_URL, URL_ENV, configured_address, login_link
from pooljudge.annotate.records import ANNOTATOR_ROLES, GRANTED_ROLES
from pooljudge.cli import Subcommands
from pooljudge.cli.inputs import open_database
from pooljudge.cli.options import add_db_option
from pooljudge.cli.output import print_frame

if TYPE_CHECKING:
    import pandas as pd


__all__ = ["FORMAT_HELP", "register"]

FORMAT_HELP = "table (default, aligned for reading) or tsv (a header, tab-separated)"


def register(subparsers: Subcommands) -> None:
    _register_annotators(subparsers)


def _register_annotators(subparsers: Subcommands) -> None:
    parser = subparsers.add_parser(
        "annotators", help="add, list or remove annotators; grant or revoke roles",
        description="Manage a campaign's annotators, and the roles people of other campaigns "
                    "hold in it.")
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
    listing = actions.add_parser("list", help="list annotators with their judgment counts, "
                                              "and the roles granted in the campaign")
    listing.add_argument("--all", action="store_true", help="include removed annotators")
    listing.add_argument("--format", choices=("table", "tsv"), default="table",
                         help=FORMAT_HELP)
    remove = actions.add_parser("remove", help="remove an annotator (judgments are kept)")
    remove.add_argument("name", metavar="NAME", help="the annotator's name")
    grant = actions.add_parser(
        "grant", help="let a person of another campaign administer or adjudicate this one",
        description="Grant NAME, a person of campaign --of, the --role in --campaign: their own "
                    "login link then opens --campaign's pages for that role.")
    grant.add_argument("--role", required=True, choices=GRANTED_ROLES,
                       help="admin manages the campaign; adjudicator decides disagreements")
    revoke = actions.add_parser("revoke", help="withdraw a role granted with grant")
    for sub in (grant, revoke):
        sub.add_argument("name", metavar="NAME", help="the person's name in their own campaign")
        sub.add_argument("--of", required=True, metavar="OWN_CAMPAIGN",
                         help="the campaign the person is an annotator row of (logs in to)")
    for sub, handler in ((add, _annotators_add), (listing, _annotators_list),
                         (remove, _annotators_remove), (grant, _annotators_grant),
                         (revoke, _annotators_revoke)):
        sub.add_argument("--campaign", required=True, metavar="CAMPAIGN",
                         help="the campaign's name" if sub not in (grant, revoke) else
                              "the campaign the role is held in")
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
    from pooljudge.annotate.store import list_annotators, list_grants, session_scope

    with open_database(args) as engine, session_scope(engine, readonly=True) as session:
        frame = list_annotators(session, campaign=args.campaign, include_removed=args.all)
        grants = list_grants(session, campaign=args.campaign)
    print_frame(_with_grants(frame, grants), args.format)
    return 0


def _with_grants(people: pd.DataFrame, grants: pd.DataFrame) -> pd.DataFrame:
    """The campaign's own people (``granted_from`` empty), then its grants: the person's name,
    the granted role, ``granted_from`` their own campaign, no judgments counted here."""
    import pandas as pd

    granted = pd.DataFrame({"name": grants["name"], "role": grants["role"], "human": True,
                            "active": True, "judgments": 0,
                            "last_judgment": None, "granted_from": grants["of"]})
    own = people.assign(granted_from="")
    return own if granted.empty else pd.concat([own, granted], ignore_index=True)


def _annotators_remove(args: argparse.Namespace) -> int:
    from pooljudge.annotate.store import remove_annotator, session_scope

    with open_database(args) as engine, session_scope(engine) as session:
        remove_annotator(session, campaign=args.campaign, name=args.name)
    print(f"removed {args.name} from {args.campaign} (their judgments are kept)")
    return 0


def _annotators_grant(args: argparse.Namespace) -> int:
    from pooljudge.annotate.store import annotator_id, grant_role, session_scope

    with open_database(args) as engine, session_scope(engine) as session:
        person = annotator_id(session, campaign=args.of, name=args.name)
        grant_role(session, annotator_id=person, campaign=args.campaign, role=args.role)
    print(f"{args.name} of {args.of} is now {args.role} of {args.campaign} "
          "(with their own login link)")
    return 0


def _annotators_revoke(args: argparse.Namespace) -> int:
    from pooljudge.annotate.store import annotator_id, revoke_role, session_scope

    with open_database(args) as engine, session_scope(engine) as session:
        person = annotator_id(session, campaign=args.of, name=args.name)
        role = revoke_role(session, annotator_id=person, campaign=args.campaign)
    print(f"{args.name} of {args.of} is no longer {role} of {args.campaign}")
    return 0
