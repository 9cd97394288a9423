"""``pooljudge init``: a judging campaign made from a pool file, its topics and documents."""

from __future__ import annotations

import argparse
import re
from pathlib import Path
from typing import TYPE_CHECKING

from pooljudge.annotate.records import (
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
from pooljudge.cli.init_review import add_review_options, check_review, init_review
from pooljudge.cli.inputs import open_database
from pooljudge.cli.options import MAX_DEPTH, MAX_OVERLAP, add_db_option, positive_int, seed
from pooljudge.errors import InputError
from pooljudge.formats.files import read_text
from pooljudge.pooling.orders import JUDGING_ORDERS
from pooljudge.pooling.strategies import REGISTRY

if TYPE_CHECKING:

    pass


__all__ = ['min_dwell', 'parse_scale', 'register']

_RANGE = re.compile(r"^(-?\d+)-(-?\d+)$")


def register(subparsers: Subcommands) -> None:
    _register_init(subparsers)


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
    parser.add_argument("--pool", metavar="POOL.tsv",
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
    add_review_options(parser)
    add_db_option(parser)
    parser.set_defaults(handler=_init)


def _init(args: argparse.Namespace) -> int:
    """Read the files, then :mod:`pooljudge.annotate.campaigns` checks them (before any database is
    opened) and stores the campaign."""
    from pooljudge.annotate.campaigns import CampaignSettings, plan_campaign, store_campaign
    from pooljudge.annotate.store import split_sample
    from pooljudge.formats.trec import read_pool

    check_review(args)
    order = judging_order_of(args)
    if not args.review:
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
    if args.review:
        print(init_review(args, settings))
        return 0
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
