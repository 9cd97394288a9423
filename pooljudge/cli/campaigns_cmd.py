"""``pooljudge campaigns list|show|check|review|certify|terms|guidelines``: campaigns, their
progress and their settings; a review's topics moved on and their certificates; a pooled
campaign's topics certified by the hypergeometric test."""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING

from pooljudge.cli import Subcommands
from pooljudge.cli.inputs import open_database
from pooljudge.cli.options import add_db_option, add_format_option, open_unit
from pooljudge.cli.output import emit, print_frame, records, render
from pooljudge.errors import InputError
from pooljudge.formats.files import read_text

if TYPE_CHECKING:

    import pandas as pd


__all__ = ['register']

from pooljudge.cli.annotators_cmd import FORMAT_HELP


def register(subparsers: Subcommands) -> None:
    _register_campaigns(subparsers)


def _register_campaigns(subparsers: Subcommands) -> None:
    parser = subparsers.add_parser("campaigns", help="list campaigns or show one's progress",
                                   description="List campaigns, or show one with its progress.")
    actions = parser.add_subparsers(title="actions", metavar="ACTION", parser_class=type(parser))
    actions.required = True
    listing = actions.add_parser("list", help="every campaign with its progress")
    show = actions.add_parser("show", help="one campaign: settings and progress per topic")
    show.add_argument("campaign", metavar="CAMPAIGN", help="the campaign's name")
    for sub, handler in ((listing, _campaigns_list), (show, _campaigns_show)):
        sub.add_argument("--format", choices=("table", "tsv"), default="table",
                         help=FORMAT_HELP)
        add_db_option(sub)
        sub.set_defaults(handler=handler)
    check = actions.add_parser(
        "check", help="recount every counter from the rows it summarises (exit 1 on a mismatch)",
        description="Recount the campaign's queue and progress counters from its judgments and "
                    "claims and list every difference; exit 0 when all agree, 1 otherwise.")
    check.add_argument("campaign", metavar="CAMPAIGN", help="the campaign's name")
    add_db_option(check)
    check.set_defaults(handler=_campaigns_check)
    review = actions.add_parser(
        "review", help="a review campaign: move every topic on now, show phases and certificates",
        description="Bring a review campaign's topics up to date with their judgments (retrain "
                    "the active learner, switch to a random sample, certify: what the server "
                    "does in the background after each label; people's labels only), "
                    "then print each topic's phase and certificate.")
    review.add_argument("campaign", metavar="CAMPAIGN", help="the campaign's name")
    review.add_argument("--format", choices=("table", "tsv"), default="table", help=FORMAT_HELP)
    add_db_option(review)
    review.set_defaults(handler=_campaigns_review)
    certify = actions.add_parser(
        "certify", help="a pooled campaign: may each topic stop? (hypergeometric test, "
                        "relevant pairs left)",
        description="For each topic of a pooled campaign, test 'recall within the pool < "
                    "TARGET' over the order its pairs were judged in (the hypergeometric test "
                    "of review campaigns; exact for a random order, an assumption for an "
                    "adaptive one) and estimate the relevant pairs left unjudged, with a "
                    "1 - ALPHA interval (docs/guides/review.md).")
    certify.add_argument("campaign", metavar="CAMPAIGN", help="the campaign's name")
    certify.add_argument("--target", type=open_unit, default=0.95,
                         help="the recall to certify (default 0.95)")
    certify.add_argument("--alpha", type=open_unit, default=0.05,
                         help="1 - confidence (default 0.05)")
    add_format_option(certify)
    add_db_option(certify)
    certify.set_defaults(handler=_campaigns_certify)
    _file_action(actions, "guidelines", _campaigns_guidelines,
                 "replace a campaign's guidelines (everyone reads them again)",
                 "Replace the campaign's judging guidelines with the text of FILE (UTF-8). "
                 "Every annotator is shown the new guidelines, and must acknowledge them, "
                 "before their next pair; an empty file removes them.",
                 "the new guidelines (plain text)")
    _file_action(actions, "terms", _campaigns_terms,
                 "set the highlight terms of topics from a topic<TAB>term file",
                 "Replace the highlight terms of every topic named in FILE (one "
                 "'topic<TAB>term' per line; a term of several words is a phrase); other "
                 "topics keep theirs. A bad line changes nothing.",
                 "topic<TAB>term lines (header optional)")


def _file_action(actions, name: str, handler, summary: str, description: str,
                 file_help: str) -> None:
    """``campaigns NAME --campaign C FILE``: an action that reads one file into a campaign."""
    sub = actions.add_parser(name, help=summary, description=description)
    sub.add_argument("file", metavar="FILE", help=file_help)
    sub.add_argument("--campaign", required=True, metavar="CAMPAIGN", help="the campaign's name")
    add_db_option(sub)
    sub.set_defaults(handler=handler)


def _campaigns_list(args: argparse.Namespace) -> int:
    import pandas as pd

    from pooljudge.annotate.store import campaign_summary, list_campaigns, session_scope

    with open_database(args) as engine, session_scope(engine, readonly=True) as session:
        rows = [campaign_summary(session, campaign=c.name) for c in list_campaigns(session)]
    columns = ["name", "topics", "pairs", "overlap", "annotators", "judgments_done",
               "judgments_needed", "complete_pairs"]
    frame = pd.DataFrame(rows, columns=columns)
    frame["done"] = _percent(frame["judgments_done"], frame["judgments_needed"])
    print_frame(frame, args.format)
    return 0


def _campaigns_show(args: argparse.Namespace) -> int:
    from pooljudge.annotate.store import campaign_summary, progress, session_scope

    with open_database(args) as engine, session_scope(engine, readonly=True) as session:
        summary = campaign_summary(session, campaign=args.campaign)
        per_topic = progress(session, campaign=args.campaign)
    per_topic["done"] = _percent(per_topic["judgments_done"], per_topic["judgments_needed"])
    if args.format == "table":
        for key, value in summary.items():
            print(f"{key:>18}: {value}")
        print()
    print_frame(per_topic, args.format)
    return 0


def _campaigns_check(args: argparse.Namespace) -> int:
    """Print each broken invariant
    (:func:`pooljudge.annotate.store.consistency_problems`); 1 if any."""
    from pooljudge.annotate.store import consistency_problems, session_scope

    with open_database(args) as engine, session_scope(engine, readonly=True) as session:
        problems = consistency_problems(session, campaign=args.campaign)
        problems += _stale_certificates(session, args.campaign)
    for line in problems:
        print(line)
    if problems:
        print(f"pooljudge: campaign {args.campaign}: {len(problems)} inconsistencies",
              file=sys.stderr)
        return 1
    print(f"campaign {args.campaign}: every counter agrees with its rows", file=sys.stderr)
    return 0


def _stale_certificates(session, campaign: str) -> list[str]:
    """A line per review certificate whose judgments changed since it was written."""
    from pooljudge.annotate.store import certificates, get_campaign

    found = certificates(session, campaign_id=get_campaign(session, name=campaign).id)
    return [f"topic {c.topic}: certificate ({c.rule}) is stale: one of its "
            f"{len(c.judgments)} judgments was withdrawn or replaced since it was written"
            for c in found if c.stale]


def _campaigns_review(args: argparse.Namespace) -> int:
    """Move each topic on (:func:`pooljudge.annotate.review.update_campaign`), then print."""
    from pooljudge.annotate.review import review_table, update_campaign
    from pooljudge.annotate.store import (
        certificates,
        get_campaign,
        review_settings,
        review_topics,
        session_scope,
    )

    with open_database(args) as engine:
        with session_scope(engine, readonly=True) as session:
            campaign = get_campaign(session, name=args.campaign)
            if review_settings(session, campaign_id=campaign.id) is None:
                raise InputError(f"campaign {args.campaign!r} is not a review (init --review)")
        steps = update_campaign(engine, campaign_id=campaign.id)
        with session_scope(engine, readonly=True) as session:
            states = review_topics(session, campaign_id=campaign.id)
            found = certificates(session, campaign_id=campaign.id)
    for topic, done in steps.items():
        if done:
            print(f"topic {topic}: {', '.join(done)}", file=sys.stderr)
    print_frame(review_table(states, found), args.format)
    return 0


def _campaigns_certify(args: argparse.Namespace) -> int:
    """Each topic's pool certificate (:func:`pooljudge.annotate.pool_certify.pool_certificates`);
    a summary line on standard error."""
    from pooljudge.annotate.pool_certify import pool_certificates
    from pooljudge.annotate.store import session_scope

    with open_database(args) as engine, session_scope(engine, readonly=True) as session:
        table = pool_certificates(session, campaign=args.campaign, target=args.target,
                                  alpha=args.alpha)
    if args.format == "json":
        emit(json.dumps(records(table), indent=1) + "\n", args.output)
    else:
        emit(render(table, args.format), args.output)
    print(f"{int(table['certified'].sum())} of {len(table)} topics certified at recall "
          f"{args.target:g}, confidence {1 - args.alpha:g}; "
          f"{float(table['remaining'].fillna(0).sum()):.1f} relevant pairs estimated left",
          file=sys.stderr)
    return 0


def _campaigns_terms(args: argparse.Namespace) -> int:
    """Replace the terms of the file's topics, all or nothing; an unknown topic names its
    first line."""
    from pooljudge.annotate.store import UnknownTopic, session_scope, set_topic_terms
    from pooljudge.formats.terms import read_topic_terms

    frame = read_topic_terms(args.file)
    first = frame.drop_duplicates("topic").set_index("topic")["line"]
    terms = {topic: list(group["term"]) for topic, group in frame.groupby("topic", sort=False)}
    try:
        with open_database(args) as engine, session_scope(engine) as session:
            count = set_topic_terms(session, campaign=args.campaign, terms=terms)
    except UnknownTopic as exc:
        raise InputError(exc.message, path=args.file, line=int(first[exc.topic])) from None
    print(f"campaign {args.campaign}: {count} highlight terms for {len(terms)} topics")
    return 0


def _campaigns_guidelines(args: argparse.Namespace) -> int:
    """Store FILE as the campaign's guidelines; say whether they changed."""
    from pooljudge.annotate.store import get_campaign, session_scope, set_guidelines

    text = read_text(args.file, "guidelines")
    with open_database(args) as engine, session_scope(engine) as session:
        before = get_campaign(session, name=args.campaign).guidelines
        sha = set_guidelines(session, campaign=args.campaign, text=text)
    if text == before:
        print(f"campaign {args.campaign}: the guidelines are unchanged (sha256 {sha[:12]})")
    elif not text.strip():
        print(f"campaign {args.campaign}: the guidelines were removed")
    else:
        print(f"campaign {args.campaign}: new guidelines (sha256 {sha[:12]}); every annotator "
              "reads them before their next pair")
    return 0


def _percent(done: pd.Series, needed: pd.Series) -> pd.Series:
    share = (100.0 * done / needed.where(needed > 0)).fillna(0.0)
    return share.map(lambda x: f"{x:.1f}%")
