"""``pooljudge simulate review QRELS --docs DOCS --topics TOPICS``: CAL with a stopping rule.

For each topic of TOPICS that QRELS judges, continuous active learning
(:mod:`pooljudge.pooling.cal`) ranks DOCS, the complete QRELS answer as an oracle (a document
QRELS does not list is not relevant; a label ≥ ``--relevant`` is relevant), and the review stops
by ``--stopping`` (:mod:`pooljudge.pooling.stopping`). Per topic: documents judged, relevant
found of all relevant, the recall reached, whether it met ``--target``, the work saved
(1 − judged / documents), and the certificate
(p-value, target sample, the recall bound claimed at 1 − α); then a summary line with the
share of topics that met the target. Topics without a relevant document are skipped (a warning).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import TYPE_CHECKING

from pooljudge.cli import Subcommands
from pooljudge.cli.options import add_format_option, int_range, open_unit, seed, summary
from pooljudge.cli.output import emit, records, render, warn
from pooljudge.errors import UsageError

if TYPE_CHECKING:
    import pandas as pd

NAME = "simulate review"
STOPPING = {"hypergeometric": "guarantee: Callaghan & Müller-Hansen's test of recall < target",
            "target": "guarantee: Cormack & Grossman's target method (random target sample)",
            "knee": "heuristic: Cormack & Grossman's knee method"}


def register_review(actions: Subcommands) -> None:
    """The ``review`` action of ``pooljudge simulate``."""
    parser = actions.add_parser("review", help="replay CAL review with certified stopping "
                                              "against complete qrels",
                                   description=summary(__doc__))
    parser.add_argument("qrels", metavar="QRELS", help="complete judgments (the oracle)")
    parser.add_argument("--docs", required=True, nargs="+", metavar="DOCS",
                        help="documents: JSONL, TSV with header or TREC <DOC> files")
    parser.add_argument("--topics", required=True, metavar="TOPICS",
                        help="topics: TREC topic file, JSONL or TSV with header")
    parser.add_argument("--target", type=open_unit, default=0.95, help="recall target "
                        "(default 0.95)")
    parser.add_argument("--alpha", type=open_unit, default=0.05,
                        help="1 - confidence (default 0.05)")
    parser.add_argument("--stopping", choices=tuple(STOPPING), default="hypergeometric",
                        help="; ".join(f"{k}: {v}" for k, v in STOPPING.items()))
    parser.add_argument("--relevant", type=int_range(-(2**31), 2**31), default=1, metavar="L",
                        help="a label >= L is relevant (default 1)")
    parser.add_argument("--min-relevant", type=int_range(1, 2**31), default=1, metavar="R",
                        help="only topics with at least R relevant documents (default 1)")
    parser.add_argument("--seed", type=seed, default=0, help="random seed (default 0)")
    add_format_option(parser)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from pooljudge.formats.collection import read_documents, read_topics
    from pooljudge.formats.trec import read_qrels
    from pooljudge.pooling.stopping import check_level

    check_level(args.target, args.alpha)
    qrels = read_qrels(args.qrels)
    documents = read_documents(args.docs)
    topics = read_topics(args.topics)
    started = time.perf_counter()
    table = review_table(qrels, documents, topics, args)
    elapsed = time.perf_counter() - started
    line = _summary_line(table, args, elapsed)
    if args.format == "json":
        emit(json.dumps({"summary": line, "topics": records(table)}, indent=1) + "\n",
             args.output)
    else:
        emit(render(table, args.format), args.output)
    print(line, file=sys.stderr if args.format != "table" or args.output != "-" else sys.stdout)
    return 0


def review_table(qrels: pd.DataFrame, documents: pd.DataFrame, topics: pd.DataFrame,
                 args: argparse.Namespace) -> pd.DataFrame:
    """One row per replayed topic: effort, recall, target met, and the certificate's fields."""
    import numpy as np
    import pandas as pd

    from pooljudge.pooling.cal import collection_features, replay

    relevant = qrels[qrels["label"].astype(int) >= args.relevant]
    unknown = sorted(set(relevant["doc"]) - set(documents["id"]))
    if unknown:
        raise UsageError(f"{args.qrels}: {len(unknown)} relevant documents are not in --docs, "
                         f"first {unknown[0]}")
    missing = sorted(set(relevant["topic"]) - set(topics["id"]))
    if missing:
        warn(NAME, f"{len(missing)} topic(s) of QRELS are not in --topics and are not "
                   f"replayed, first {missing[0]}")
    text = (documents["title"].fillna("") + " " + documents["text"].fillna("")).tolist()
    topic_text = (topics["title"].fillna("") + " " + topics["description"].fillna("")).tolist()
    features, topic_features = collection_features(text, topic_text)
    row_of = pd.Series(np.arange(len(documents)), index=documents["id"].to_numpy())
    by_topic = relevant.groupby("topic")["doc"].agg(list)
    rows, skipped = [], 0
    for i, topic in enumerate(topics["id"]):
        docs = by_topic.get(topic, [])
        if len(docs) < args.min_relevant:
            skipped += 1
            continue
        truth = np.zeros(len(documents), dtype=np.int64)
        truth[row_of[docs].to_numpy()] = 1
        result = replay(features, topic_features[i], truth, rule=args.stopping,
                        target=args.target, alpha=args.alpha, seed=args.seed)
        rows.append({"topic": topic, "judged": result.judged,
                     "relevant_found": result.relevant_found,
                     "relevant": result.relevant_total, "recall": result.recall,
                     "met": result.recall >= args.target,
                     "saved": 1 - result.judged / len(documents),
                     **_certificate_fields(result.certificate)})
    if not rows:
        raise UsageError(f"no topic of --topics has {args.min_relevant} or more relevant "
                         "documents in QRELS")
    if skipped:
        warn(NAME, f"{skipped} topic(s) with fewer than {args.min_relevant} relevant "
                   "document(s) skipped")
    return pd.DataFrame(rows)


def _certificate_fields(certificate) -> dict:
    fields = certificate.as_dict()
    return {key: fields[key] for key in ("rule", "guarantee", "p_value", "sample_size",
                                         "sample_relevant", "recall_bound", "exhausted")}


def _summary_line(table: pd.DataFrame, args: argparse.Namespace, elapsed: float) -> str:
    met, n = int(table["met"].sum()), len(table)
    return (f"{args.stopping}: {met}/{n} topics ({met / n:.1%}) reached recall >= "
            f"{args.target:g} (alpha {args.alpha:g}); mean recall {table['recall'].mean():.3f}; "
            f"{int(table['judged'].sum())} documents judged, mean work saved "
            f"{table['saved'].mean():.1%}; {elapsed:.1f} s")
