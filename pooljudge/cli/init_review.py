"""``pooljudge init --review``: a high-recall review over a whole collection, no pool.

Its options (``--review``, ``--stop``, ``--recall-target``, ``--alpha``) and the command's
path: topics and documents from their files (every document is judged for every topic, so
``--dataset`` is refused), optional ``--runs`` seeding the first ranking, then
:func:`pooljudge.annotate.review.create_review` in one transaction.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from pooljudge.annotate.records import STOP_RULES
from pooljudge.errors import UsageError

if TYPE_CHECKING:
    from pooljudge.annotate.campaigns import CampaignSettings

__all__ = ["add_review_options", "check_review", "init_review"]

_REFUSED = (("--pool", "pool"), ("--dataset", "dataset"), ("--units", "units"))


def _level(text: str) -> float:
    """A number strictly between 0 and 1."""
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0.0 < value < 1.0:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number strictly between 0 and 1")
    return value


def add_review_options(parser: argparse.ArgumentParser) -> None:
    """``--review`` and its stopping rule's options."""
    group = parser.add_argument_group(
        "review", "a high-recall review: every document of --docs for every topic, queued by "
        "continuous active learning and stopped per topic by a rule that certifies recall "
        "(docs/guides/review.md)")
    group.add_argument("--review", action="store_true",
                       help="make a review campaign (no --pool; --runs, if given, seed the "
                       "first ranking, else each topic's text does)")
    group.add_argument("--stop", choices=STOP_RULES, default=STOP_RULES[0],
                       help="the stopping rule: hypergeometric (default), target and qbcb "
                       "are guarantees; knee, quant and quantci heuristics")
    group.add_argument("--recall-target", type=_level, default=0.95, metavar="R",
                       help="the recall to certify (default 0.95)")
    group.add_argument("--alpha", type=_level, default=0.05, metavar="A",
                       help="1 - confidence of the certificate (default 0.05)")


def check_review(args: argparse.Namespace) -> None:
    """UsageError for options a review does not take, or a pooled campaign without --pool."""
    if not args.review:
        if args.pool is None:
            raise UsageError("--pool: required (or --review over a whole collection)")
        return
    for option, attribute in _REFUSED:
        if getattr(args, attribute, None) is not None:
            raise UsageError(f"{option}: not with --review (a review judges every document of "
                             "--docs for every topic of --topics)")
    if args.order != "pool":
        raise UsageError("--order: not with --review (its queue is the active learner's "
                         "ranking)")
    if args.topics is None or args.docs is None:
        raise UsageError("--review needs --topics FILE and --docs FILE...")


def init_review(args: argparse.Namespace, settings: CampaignSettings) -> str:
    """Read the collection and the runs, store the review; the line to print."""
    from pooljudge.annotate.review import create_review
    from pooljudge.cli.init_inputs import runs_of
    from pooljudge.cli.inputs import open_database
    from pooljudge.formats.collection import read_documents, read_topics

    topics, documents = read_topics(args.topics), read_documents(args.docs)
    runs = runs_of(args)
    with open_database(args, create=True) as engine:
        created = create_review(engine, settings, topics=topics, documents=documents,
                                rule=args.stop, recall=args.recall_target, alpha=args.alpha,
                                runs=runs, depth=args.depth)
    seed = "the runs' rankings" if runs is not None else "each topic's text"
    return (f"review campaign {created.info.name}: {len(topics)} topics, {len(documents)} "
            f"documents, stopping rule {args.stop} (target recall {args.recall_target:g}, "
            f"alpha {args.alpha:g}), first ranking from {seed}, overlap {created.info.overlap}, "
            f"assignment by {created.info.assign_mode}")
