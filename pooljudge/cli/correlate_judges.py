"""``pooljudge correlate --judge QRELS``: several judges against the reference in one tidy
table, and the paired test of every two judges (:mod:`pooljudge.metrics.judge_tables`).

QRELS_B and every ``--judge`` file are judges; QRELS_A (people) is the reference. Every
coefficient is computed over the topics that the reference and all judges evaluate, runs in
name order.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from pathlib import Path

from pooljudge.cli.correlate_intervals import per_topic_matrix
from pooljudge.cli.options import open_unit
from pooljudge.cli.output import records, render, warn
from pooljudge.errors import UsageError

__all__ = ["add_judge_option", "judge_names", "several_judges", "significance"]


def add_judge_option(parser: argparse.ArgumentParser) -> None:
    """``--judge QRELS`` (repeatable), ``--significance`` and ``--alpha``."""
    parser.add_argument("--significance", action="store_true",
                        help="also: do the judgment sets agree on which pairs of runs differ "
                             "significantly (paired t-test, Holm)? table and json only")
    parser.add_argument("--alpha", type=open_unit, default=0.05, metavar="A",
                        help="significance level of --significance (default 0.05)")
    parser.add_argument("--judge", action="append", default=[], metavar="QRELS",
                        help="another judge's qrels, compared with QRELS_A as QRELS_B is "
                             "(repeatable): prints one tidy table of judges × measures × "
                             "coefficients and the paired test of every two judges")


def judge_names(paths: Sequence[str]) -> list[str]:
    """Each judge's name: its file name, or the path as given where file names repeat;
    UsageError for a file given twice."""
    if len(set(paths)) < len(paths):
        raise UsageError("--judge: a qrels file is given twice")
    names = [Path(p).name for p in paths]
    return names if len(set(names)) == len(names) else list(paths)


def several_judges(args: argparse.Namespace, reference, runs: dict, measures) -> str:
    """The output of ``correlate`` with ``--judge``: the tidy table and the paired tests."""
    import pandas as pd

    from pooljudge.metrics.eval_inputs import load_qrels
    from pooljudge.metrics.evaluate import score
    from pooljudge.metrics.judge_tables import correlation_table, paired_table

    paths = [args.qrels_b, *args.judge]
    names = judge_names(paths)
    qrels = [reference, *(load_qrels(p) for p in paths)]
    results = [[score(q, name, columns, measures) for name, columns in runs.items()]
               for q in qrels]
    order = sorted(runs)
    if len(order) < 2:
        raise UsageError("correlate --judge needs at least two runs to order")
    common = sorted(set.intersection(*(set(r[0].topics) for r in results)))
    if not common:
        raise UsageError("the reference and the judges evaluate no topic in common")
    if len(common) < max(len(r[0].topics) for r in results):
        warn("correlate", f"every judge is compared over the {len(common)} topics all "
                          "judgment sets evaluate")
    options = {"replicates": max(args.bootstrap, 1), "seed": args.seed, "top_k": args.top_k}
    tables, tests = [], []
    for measure in (str(m) for m in measures):
        matrices = [per_topic_matrix(r, measure, order, common) for r in results]
        judges = dict(zip(names, matrices[1:], strict=True))
        tables.append(correlation_table(matrices[0], judges, measure=measure, **options))
        tests.append(paired_table(matrices[0], judges, measure=measure, **options))
    table, paired = pd.concat(tables, ignore_index=True), pd.concat(tests, ignore_index=True)
    if not args.bootstrap:
        table = table.drop(columns=["low", "high"])
        paired = paired.drop(columns=["low", "high", "p"])
    found = None
    if args.significance:
        each = [significance(results[0], r, args.alpha) for r in results[1:]]
        joined = (pd.concat([f[i].assign(judge=n) for f, n in zip(each, names, strict=True)],
                            ignore_index=True) for i in (0, 1))
        found = tuple(f[["judge", *f.columns[:-1]]] for f in joined)
    if args.format == "tsv":
        return render(table, "tsv")
    if args.format == "json":
        document = {"correlations": records(table), "paired": records(paired)}
        if found is not None:
            document["significance"] = records(found[1])
            document["significance_pairs"] = records(found[0])
        return json.dumps(document, indent=1, ensure_ascii=False) + "\n"
    text = (f"{render(table, 'table')}\npaired tests: does judge_a agree with QRELS_A better "
            f"than judge_b? (difference = value_a - value_b)\n{render(paired, 'table')}")
    return text + (significance_text(found[1], args.alpha) if found is not None else "")


def significance(results_a, results_b, alpha: float):
    """(pairs, summary) of :func:`pooljudge.metrics.significance_agreement
    .significance_agreement` between two lists of run results."""
    from pooljudge.metrics.evaluate import tidy
    from pooljudge.metrics.significance_agreement import significance_agreement

    return significance_agreement(tidy(results_a, per_topic=True),
                                  tidy(results_b, per_topic=True), alpha=alpha)


def significance_text(summary, alpha: float) -> str:
    """The summary table under its heading."""
    return (f"\nagreement on significant differences (paired t-test, Holm, alpha {alpha:g}; "
            f"a = QRELS_A)\n{render(summary, 'table')}")
