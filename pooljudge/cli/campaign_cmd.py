"""``pooljudge init``, ``annotators add|list|remove``, ``campaigns list|show|check|guidelines``."""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from pooljudge.annotate.links import DEFAULT_APP_URL, URL_ENV, configured_address, login_link
from pooljudge.annotate.records import (
    ANNOTATOR_ROLES,
    ASSIGN_MODES,
    DEFAULT_MIN_DWELL_MS,
    MAX_LABELS,
    MAX_MIN_DWELL_MS,
)
from pooljudge.cli import Subcommands
from pooljudge.cli.datasets import add_dataset_option, check_collection, collection
from pooljudge.cli.init_inputs import (
    check_rationale,
    judging_order_of,
    keymap_of,
    label_list,
    parents_of,
    read_units_of,
    runs_of,
)
from pooljudge.cli.inputs import open_database
from pooljudge.cli.options import MAX_DEPTH, MAX_OVERLAP, add_db_option, positive_int, seed
from pooljudge.cli.output import print_frame
from pooljudge.errors import InputError
from pooljudge.formats.files import read_text
from pooljudge.pooling.orders import JUDGING_ORDERS
from pooljudge.pooling.strategies import REGISTRY

if TYPE_CHECKING:

    import pandas as pd


__all__ = ["parse_scale", "register"]

FORMAT_HELP = "table (default, aligned for reading) or tsv (a header, tab-separated)"
_RANGE = re.compile(r"^(-?\d+)-(-?\d+)$")


def register(subparsers: Subcommands) -> None:
    _register_init(subparsers)
    _register_annotators(subparsers)
    _register_campaigns(subparsers)


def parse_scale(spec: str):
    """``--scale``: ``binary``, ``LO-HI`` (e.g. ``0-3``) or a JSON file of labels, as a
    LabelScale of at most ``MAX_LABELS`` labels, counted before any label is built."""
    from pooljudge.annotate.records import LabelScale

    if spec == "binary":
        return LabelScale.binary()
    match = _RANGE.match(spec)
    try:
        if match:
            return LabelScale.range(int(match.group(1)), int(match.group(2)))
        if spec.endswith(".json") or Path(spec).is_file():
            return LabelScale.from_json(spec)
    except ValueError as exc:  # int() of a bound with thousands of digits
        raise argparse.ArgumentTypeError(f"{spec}: {exc}") from None
    except InputError as exc:  # a file names itself (and the line); a range does not
        raise argparse.ArgumentTypeError(str(exc) if exc.path else f"{spec}: {exc}") from None
    raise argparse.ArgumentTypeError(
        f"{spec!r}: expected binary, LO-HI (such as 0-3) or a .json file")


def _judging_order(text: str) -> str:
    """``--order`` in its canonical form (see pooljudge.pooling.orders.canonical_order)."""
    from pooljudge.pooling.orders import canonical_order

    try:
        return canonical_order(text)
    except InputError as exc:
        raise argparse.ArgumentTypeError(exc.message) from None


def _register_init(subparsers: Subcommands) -> None:
    adaptive = ", ".join(s.signature for s in REGISTRY.values() if s.kind == "adaptive")
    parser = subparsers.add_parser(
        "init", help="create a judging campaign from topics, documents and a pool",
        description="Create a judging campaign. Only the pool's topics and documents are stored.")
    parser.add_argument("campaign", metavar="CAMPAIGN", help="the campaign's name")
    parser.add_argument("--topics", metavar="FILE",
                        help="TREC topic file, TSV with a header, or JSONL (required unless "
                        "--dataset has queries)")
    parser.add_argument("--docs", nargs="+", metavar="FILE",
                        help="JSONL, TSV with a header, or TREC <DOC> files (required unless "
                        "--dataset has documents)")
    add_dataset_option(parser, "topics and documents (only the pool's documents are fetched; "
                       "--topics or --docs only for what the dataset lacks)")
    parser.add_argument("--pool", required=True, metavar="POOL.tsv",
                        help="pool file; a sampled pool (pooljudge pool --sample) queues only "
                        "its sampled pairs and keeps every pair's stratum and inclusion "
                        "probability for export")
    parser.add_argument("--scale", default="binary", type=parse_scale,
                        help="binary (default), LO-HI such as 0-3, or a JSON file of labels "
                             f"(at most {MAX_LABELS} labels)")
    parser.add_argument("--overlap", type=positive_int(MAX_OVERLAP), default=1, metavar="K",
                        help=f"distinct annotators per pair (default 1, at most {MAX_OVERLAP})")
    parser.add_argument("--order", default="pool", metavar="ORDER", type=_judging_order,
                        help=f"judging order: static {', '.join(JUDGING_ORDERS)} (default "
                        f"pool), or adaptive {adaptive} (pooling's grammar, e.g. "
                        "'maxmean(alpha=2)'; needs --runs)")
    parser.add_argument("--runs", nargs="+", metavar="RUN",
                        help="the runs the pool was made from: each pair's rank in them is "
                        "stored (an adaptive order learns from it)")
    parser.add_argument("--depth", type=positive_int(MAX_DEPTH), metavar="K",
                        help="with --runs: each run's top K count (default: the pool's deepest "
                        "best_rank)")
    parser.add_argument("--seed", type=seed, default=0,
                        help="seed of randomised orders (random, maxmean, thompson; default 0)")
    parser.add_argument("--assign", default=ASSIGN_MODES[0], choices=ASSIGN_MODES,
                        help="assignment: any pair to anyone, or topics kept by who started them")
    parser.add_argument("--guidelines", metavar="FILE.md", help="judging guidelines (Markdown)")
    parser.add_argument("--show-others-labels", action="store_true",
                        help="let annotators see each other's labels")
    parser.add_argument("--cannot-judge", action="store_true",
                        help="offer annotators \"I can't judge this\" (a reason is required; "
                             "the answer is counted apart, never a label)")
    parser.add_argument("--rationale", type=label_list, default=(), metavar="LABELS",
                        help="labels whose choice needs a rationale, comma-separated (e.g. 1,2); "
                             "each must be on the scale")
    parser.add_argument("--min-dwell-ms", type=min_dwell, default=DEFAULT_MIN_DWELL_MS,
                        metavar="MS", help="a label key pressed sooner than MS milliseconds "
                        "after a pair appeared does nothing (a quiet hint says so; 0 turns it "
                        f"off; default {DEFAULT_MIN_DWELL_MS}, at most {MAX_MIN_DWELL_MS})")
    parser.add_argument("--highlight-narrative", action="store_true",
                        help="highlight the narrative's words in documents too (default: the "
                        "title's and the description's)")
    parser.add_argument("--suggest-from", metavar="NAME",
                        help="show automatic judge NAME's labels to people as suggestions "
                        "(default: none; see pooljudge calibrate suggest)")
    parser.add_argument("--keys", metavar="FILE.json",
                        help='the judging page\'s keys: a JSON object of action to key, e.g. '
                        '{"label:0": "a", "skip": "x", "page_down": ["Space", "PageDown"]} '
                        "(default: a one-digit label by its digit, s skip, b back, n forward, "
                        "i can't judge, / comment, ? legend, Space PageDown PageUp j k Home End "
                        "scroll; c and r are Streamlit's)")
    parser.add_argument("--units", metavar="MAP",
                        help="a unit map with offsets ('chunk doc start end'): the pool's ids "
                        "are passages, each judged inside its document (shown whole, the "
                        "passage marked)")
    add_db_option(parser)
    parser.set_defaults(handler=_init)


def _init(args: argparse.Namespace) -> int:
    """Read the files, then :mod:`pooljudge.annotate.campaigns` checks them (before any database is
    opened) and stores the campaign."""
    from pooljudge.annotate.campaigns import CampaignSettings, plan_campaign, store_campaign
    from pooljudge.annotate.store import split_sample
    from pooljudge.formats.trec import read_pool

    order = judging_order_of(args)
    check_collection(args)
    scale = args.scale
    keymap = keymap_of(args.keys, scale)
    check_rationale(args.rationale, scale)
    settings = CampaignSettings(
        name=args.campaign, scale=scale, overlap=args.overlap, order=order,
        assign_mode=args.assign, show_others_labels=args.show_others_labels,
        guidelines=read_text(args.guidelines, "guidelines") if args.guidelines else "",
        cannot_judge=args.cannot_judge, rationale_labels=args.rationale,
        highlight_narrative=args.highlight_narrative, keymap=keymap, seed=args.seed,
        min_dwell_ms=args.min_dwell_ms,
        suggest_from=args.suggest_from)
    pool = read_pool(args.pool)
    units = read_units_of(args.units)
    topics, documents = collection(args, pool if units is None else parents_of(pool, units))
    plan = plan_campaign(settings, topics=topics, documents=documents, pool=pool,
                         pool_path=args.pool, runs=runs_of(args), depth=args.depth,
                         units=units, units_path=args.units)
    with open_database(args, create=True) as engine:
        info = store_campaign(engine, plan).info
    pool, unsampled = split_sample(plan.pool)
    pairs = f"{len(pool)} pairs" if unsampled is None else (
        f"{len(pool)} sampled pairs queued of {len(pool) + len(unsampled)} pooled")
    print(f"campaign {info.name}: {pool['topic'].nunique()} topics, "
          f"{pool['doc'].nunique()} documents, {pairs}, overlap {info.overlap}, "
          f"order {info.order}, assignment by {info.assign_mode}")
    return 0


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
    for line in problems:
        print(line)
    if problems:
        print(f"pooljudge: campaign {args.campaign}: {len(problems)} inconsistencies",
              file=sys.stderr)
        return 1
    print(f"campaign {args.campaign}: every counter agrees with its rows", file=sys.stderr)
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


def min_dwell(text: str) -> int:
    """``--min-dwell-ms``: a whole number of milliseconds from 0 to MAX_MIN_DWELL_MS."""
    try:
        value = int(text)
    except ValueError:
        value = -1
    if not 0 <= value <= MAX_MIN_DWELL_MS:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a whole number of milliseconds from 0 to {MAX_MIN_DWELL_MS}")
    return value
