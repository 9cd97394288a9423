"""``pooljudge simulate collection OUT --documents N --relevant COUNTS``: a generated review
collection with controlled prevalence (:mod:`pooljudge.pooling.generated_collection`).

Writes ``OUT/qrels`` (complete: every relevant pair; an unlisted pair is not relevant),
``OUT/docs.jsonl`` and ``OUT/topics.jsonl``, the three inputs of ``pooljudge simulate review``
and ``pooljudge init --review``. ``--relevant`` gives one topic per entry: a count of relevant
documents (``5``) or a prevalence (``1%``, rounded, at least 1).
"""

from __future__ import annotations

import argparse
import sys

from pooljudge.cli import Subcommands
from pooljudge.cli.options import positive_int, probability, seed, summary

NAME = "simulate collection"
MAX_DOCUMENTS = 10_000_000


def register_collection(actions: Subcommands) -> None:
    """The ``collection`` action of ``pooljudge simulate``."""
    parser = actions.add_parser("collection", help="generate a review collection with "
                                                   "controlled prevalence (qrels, docs, topics)",
                                description=summary(__doc__))
    parser.add_argument("out", metavar="OUT", help="folder to write (created if missing)")
    parser.add_argument("--documents", type=positive_int(MAX_DOCUMENTS), required=True,
                        metavar="N", help="documents in the collection")
    parser.add_argument("--relevant", type=_counts, required=True, metavar="COUNTS",
                        help="comma-separated, one topic each: relevant documents (5) or a "
                             "prevalence (1%%), e.g. 1,2,5,1%%,5%%")
    parser.add_argument("--noise", type=probability, default=0.05, metavar="P",
                        help="chance that a non-relevant document uses a topic word "
                             "(default 0.05)")
    parser.add_argument("--seed", type=seed, default=0, help="random seed (default 0)")
    parser.set_defaults(handler=run)


def _counts(text: str) -> list[str]:
    """``--relevant``: non-empty comma-separated entries, checked against N in :func:`run`."""
    parts = [part.strip() for part in text.split(",")]
    if not parts or any(not part for part in parts):
        raise argparse.ArgumentTypeError(f"a comma-separated list of counts, got {text!r}")
    return parts


def resolve_counts(parts: list[str], documents: int) -> list[int]:
    """Each entry as a count: ``K`` as is, ``P%`` as round(P/100 · N) (at least 1)."""
    from pooljudge.errors import UsageError

    counts = []
    for part in parts:
        try:
            value = (max(1, round(float(part[:-1]) / 100 * documents)) if part.endswith("%")
                     else int(part))
        except ValueError:
            raise UsageError(f"--relevant: {part!r} is neither a count nor P%") from None
        if not 1 <= value <= documents:
            raise UsageError(f"--relevant: {part!r} must give 1..{documents} documents")
        counts.append(value)
    return counts


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from pooljudge.formats.collection import write_collection
    from pooljudge.formats.trec import write_qrels
    from pooljudge.pooling.generated_collection import generate_collection

    counts = resolve_counts(args.relevant, args.documents)
    made = generate_collection(args.documents, counts, seed=args.seed, noise=args.noise)
    out = Path(args.out)
    docs, topics = write_collection(made.documents, made.topics, out)
    write_qrels(made.qrels, out / "qrels")
    prevalence = ", ".join(f"{c / args.documents:.3%}" for c in counts)
    print(f"{out / 'qrels'}, {docs}, {topics}: {args.documents} documents, {len(counts)} "
          f"topics with {', '.join(map(str, counts))} relevant (prevalence {prevalence})",
          file=sys.stderr)
    return 0
