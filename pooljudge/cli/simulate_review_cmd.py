"""``pooljudge simulate review QRELS --docs DOCS --topics TOPICS``: CAL with stopping rules.

For each topic of TOPICS that QRELS judges and each of ``--seeds`` seeds, continuous active
learning (:mod:`pooljudge.pooling.cal`) ranks DOCS, the complete QRELS answer as an oracle (a
document QRELS does not list is not relevant; a label ≥ ``--relevant`` is relevant), and each
rule of ``--stopping`` stops the same replay (:mod:`pooljudge.pooling.replay`). Per run (topic
× seed × rule): documents judged, relevant found of all relevant, the recall reached, whether it
met ``--target``, the work saved (1 − judged / documents), and the certificate. Per rule
(:mod:`pooljudge.pooling.replay_summary`): its reliability (the share of runs that met the
target) with an exact 95% binomial interval, recall and work saved; ``--plot`` draws recall
against effort per rule. Topics without a relevant document are skipped (a warning).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import TYPE_CHECKING

from pooljudge.cli import Subcommands
from pooljudge.cli.options import (
    add_format_option,
    int_range,
    open_unit,
    positive_int,
    seed,
    summary,
)
from pooljudge.cli.output import emit, records, render, warn
from pooljudge.errors import UsageError

if TYPE_CHECKING:
    import pandas as pd

NAME = "simulate review"
STOPPING = {"hypergeometric": "guarantee: Callaghan & Müller-Hansen's test of recall < target",
            "target": "guarantee: Cormack & Grossman's target method (random target sample)",
            "qbcb": "guarantee: Lewis, Yang & Frieder's QBCB (j of r random relevant found)",
            "knee": "heuristic: Cormack & Grossman's knee method",
            "quant": "heuristic: Yang, Lewis & Frieder's Quant (model's probabilities)",
            "quantci": "heuristic: Quant's estimate less 2 standard deviations"}
RUN_COLUMNS = ["topic", "seed", "rule", "judged", "relevant_found", "relevant", "recall", "met",
               "saved", "guarantee", "p_value", "sample_size", "sample_relevant", "sample_quota",
               "recall_bound", "recall_estimate", "exhausted"]


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
    parser.add_argument("--stopping", nargs="+", choices=(*STOPPING, "all"),
                        default=["hypergeometric"], metavar="RULE",
                        help="one or more rules, or all (default hypergeometric): " +
                             "; ".join(f"{k}: {v}" for k, v in STOPPING.items()))
    parser.add_argument("--relevant", type=int_range(-(2**31), 2**31), default=1, metavar="L",
                        help="a label >= L is relevant (default 1)")
    parser.add_argument("--min-relevant", type=int_range(1, 2**31), default=1, metavar="R",
                        help="only topics with at least R relevant documents (default 1)")
    parser.add_argument("--seed", type=seed, default=0, help="first random seed (default 0)")
    parser.add_argument("--seeds", type=positive_int(10_000), default=1, metavar="N",
                        help="replay each topic with seeds SEED .. SEED+N-1 (default 1)")
    parser.add_argument("--positives", type=positive_int(100_000), metavar="R",
                        help="QBCB: relevant documents in its random sample (default: the "
                             "fewest that let the review miss one of them)")
    parser.add_argument("--plot", metavar="FILE.png",
                        help="draw recall against effort per rule (PNG, written atomically)")
    add_format_option(parser)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from pooljudge.formats.collection import read_documents, read_topics
    from pooljudge.formats.trec import read_qrels
    from pooljudge.pooling.replay_summary import reliability
    from pooljudge.pooling.stopping import check_level

    check_level(args.target, args.alpha)
    args.stopping = list(STOPPING) if "all" in args.stopping else list(dict.fromkeys(args.stopping))
    qrels = read_qrels(args.qrels)
    documents = read_documents(args.docs)
    topics = read_topics(args.topics)
    started = time.perf_counter()
    table = review_table(qrels, documents, topics, args)
    rules = reliability(table)
    lines = [_summary_line(rule, args) for rule in rules.itertuples()]
    elapsed = time.perf_counter() - started
    lines.append(f"{len(table) // len(rules)} runs per rule in {elapsed:.1f} s")
    if args.plot:
        _plot(table, args.plot, target=args.target)
    if args.format == "json":
        emit(json.dumps({"summary": "\n".join(lines), "rules": records(rules),
                         "topics": records(table)}, indent=1) + "\n", args.output)
    else:
        emit(render(table, args.format), args.output)
    to_stdout = args.format == "table" and args.output == "-"
    if to_stdout:
        print("\n" + render(rules, "table"), end="")
    print("\n".join(lines), file=sys.stdout if to_stdout else sys.stderr)
    return 0


def review_table(qrels: pd.DataFrame, documents: pd.DataFrame, topics: pd.DataFrame,
                 args: argparse.Namespace) -> pd.DataFrame:
    """One row per replayed run (topic × seed × rule): effort, recall, target met, and the
    certificate's fields."""
    import numpy as np
    import pandas as pd

    from pooljudge.pooling.cal import collection_features

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
    chosen = [(i, topic) for i, topic in enumerate(topics["id"])
              if len(by_topic.get(topic, [])) >= args.min_relevant]
    skipped = len(topics) - len(chosen)
    rows = []
    for i, topic, run_seed in _runs(chosen, args):
        truth = np.zeros(len(documents), dtype=np.int64)
        truth[row_of[by_topic[topic]].to_numpy()] = 1
        rows += _run_rows(topic, run_seed, features, topic_features[i], truth, args)
    if not rows:
        raise UsageError(f"no topic of --topics has {args.min_relevant} or more relevant "
                         "documents in QRELS")
    if skipped:
        warn(NAME, f"{skipped} topic(s) with fewer than {args.min_relevant} relevant "
                   "document(s) skipped")
    return _typed(pd.DataFrame(rows, columns=RUN_COLUMNS))


def _typed(frame: pd.DataFrame) -> pd.DataFrame:
    """One type per certificate column, whatever the rules asked: counts stay integers with NaN
    where a rule has none (not floats), the rest floats, so a rule's rows print the same alone
    or beside others."""
    import pandas as pd

    for column in ("sample_size", "sample_relevant", "sample_quota"):
        frame[column] = pd.Series([float("nan") if v is None or v != v else int(v)
                                   for v in frame[column]], index=frame.index, dtype=object)
    for column in ("p_value", "recall_bound", "recall_estimate"):
        frame[column] = pd.to_numeric(frame[column], errors="raise").astype("float64")
    return frame


def _runs(chosen: list[tuple[int, str]], args: argparse.Namespace):
    """(topic row, topic, seed) for every chosen topic and seed, under a progress bar."""
    from pooljudge.ground.progress import progress

    runs = [(i, topic, args.seed + k) for i, topic in chosen for k in range(args.seeds)]
    return progress(runs, desc="review replays", unit="run", total=len(runs))


def _run_rows(topic: str, run_seed: int, features, topic_features, truth,
              args: argparse.Namespace) -> list[dict]:
    """One replay of ``topic`` stopped by every rule: a row per rule."""
    from pooljudge.pooling.replay import replay_rules

    results = replay_rules(features, topic_features, truth, args.stopping, target=args.target,
                           alpha=args.alpha, seed=run_seed, positives=args.positives)
    rows = []
    for rule, result in results.items():
        fields = result.certificate.as_dict()
        rows.append({**fields, "topic": topic, "seed": run_seed, "rule": rule,
                     "judged": result.judged, "relevant_found": result.relevant_found,
                     "relevant": result.relevant_total, "recall": result.recall,
                     "met": result.recall >= args.target, "saved": 1 - result.judged / len(truth)})
    return [{key: row[key] for key in RUN_COLUMNS} for row in rows]


def _plot(table: pd.DataFrame, path: str, *, target: float) -> None:
    """Recall against the share of the collection judged, a point per run, a colour per rule;
    the target as a dashed line. Written atomically."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from pooljudge.formats.files import atomic_writer

    figure, axes = plt.subplots(figsize=(7, 5), dpi=120)
    for rule, runs in table.groupby("rule", sort=False):
        axes.scatter(1 - runs["saved"], runs["recall"], s=12, alpha=0.6, label=str(rule))
    axes.axhline(target, color="grey", linestyle="--", linewidth=1)
    axes.set_xlabel("share of the collection judged")
    axes.set_ylabel("recall at the stop")
    axes.set_ylim(-0.02, 1.02)
    axes.grid(alpha=0.3)
    axes.legend(loc="lower right", fontsize="small")
    with atomic_writer(path, mode="wb") as handle:
        figure.savefig(handle, format="png", metadata={"Software": None})
    plt.close(figure)


def _summary_line(rule, args: argparse.Namespace) -> str:
    """One rule's line: reliability with its interval, recall, effort, work saved."""
    return (f"{rule.rule} ({rule.kind}): {rule.reached}/{rule.runs} runs ({rule.reliability:.1%}, "
            f"95% CI {rule.low:.1%}-{rule.high:.1%}) reached recall >= {args.target:g} "
            f"(alpha {args.alpha:g}); mean recall {rule.mean_recall:.3f}, lowest "
            f"{rule.min_recall:.3f}; mean {rule.mean_judged:.0f} documents judged, mean work "
            f"saved {rule.saved:.1%}")
