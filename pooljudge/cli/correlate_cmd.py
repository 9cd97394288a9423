"""``pooljudge correlate QRELS_A QRELS_B RUN...``: how system orderings change between judgments.

Every run is scored under both judgment sets; per measure the command reports Kendall's tau
(scipy, tau-b), tau_AP (Yilmaz, Aslam & Robertson 2008; A is the reference), tau_AP-b, tau_GAP
and top-k tau, each with a bootstrap-over-topics interval (``correlate_intervals.py``), and the
pairs of runs that swap places. With ``--judge QRELS`` (repeatable), QRELS_B and each such file
are judges compared with QRELS_A in one tidy table, with the paired test of every two judges
(``correlate_judges.py``). ``table`` prints the summary, each run's ranks and the swapped
pairs; ``tsv`` prints one row per run and measure
(``measure run score_a rank_a score_b rank_b change``); ``json`` gives all three.
"""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING

from pooljudge.cli import Subcommands
from pooljudge.cli.correlate_intervals import add_interval_options, with_intervals
from pooljudge.cli.correlate_judges import (
    add_judge_option,
    several_judges,
    significance,
    significance_text,
)
from pooljudge.cli.inputs import read_runs
from pooljudge.cli.options import (
    add_format_option,
    add_measure_option,
    add_qrels_runs,
    measures_from,
    summary,
)
from pooljudge.cli.output import emit, records, render, warn

if TYPE_CHECKING:
    import pandas as pd

HELP = "compare system orderings under two judgment sets (Kendall's tau, tau_AP, swaps)"
DEFAULT = ("AP", "P@10", "nDCG@10")


def register(subparsers: Subcommands) -> None:
    parser = subparsers.add_parser("correlate", help=HELP, description=summary(__doc__))
    add_qrels_runs(parser, (("QRELS_A", "reference judgments"), ("QRELS_B", "other judgments")))
    add_measure_option(parser, DEFAULT)
    add_interval_options(parser)
    add_judge_option(parser)
    add_format_option(parser)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    import pandas as pd

    from pooljudge.metrics.correlate import correlate, ordering, swapped_pairs
    from pooljudge.metrics.eval_inputs import load_qrels
    from pooljudge.metrics.evaluate import score, tidy

    measures = measures_from(args)
    qrels_a = load_qrels(args.qrels_a)
    runs = dict(read_runs(args.runs))
    if args.judge:
        emit(several_judges(args, qrels_a, runs, measures), args.output)
        return 0
    qrels_b = load_qrels(args.qrels_b)
    if len(runs) < 2:
        warn("correlate", "one run has no ordering to compare: tau is undefined")
    results = [[score(q, name, columns, measures) for name, columns in runs.items()]
               for q in (qrels_a, qrels_b)]
    means = [tidy(scored, per_topic=False) for scored in results]
    summary, changes = correlate(*means)
    summary = with_intervals(summary, results[0], results[1], args)
    swaps = []
    for measure in summary["measure"]:
        a, b = (_scores(m, measure) for m in means)
        swaps += [{"measure": measure, "above_in_a": x, "above_in_b": y}
                  for x, y in swapped_pairs(ordering(a), ordering(b.reindex(a.index)))]
    swap_frame = pd.DataFrame(swaps, columns=["measure", "above_in_a", "above_in_b"])
    found = significance(results[0], results[1], args.alpha) if args.significance else None
    emit(_output(summary, changes, swap_frame, args.format, found, args.alpha), args.output)
    return 0


def _scores(means: pd.DataFrame, measure: str) -> pd.Series:
    import pandas as pd
    rows = means[means["measure"] == measure]
    return pd.Series(rows["value"].to_numpy(float), index=rows["run"].to_numpy())


def _output(summary: pd.DataFrame, changes: pd.DataFrame, swaps: pd.DataFrame, fmt: str,
            found: tuple[pd.DataFrame, pd.DataFrame] | None, alpha: float) -> str:
    if fmt == "tsv":
        return render(changes, "tsv")
    if fmt == "json":
        document = {"summary": records(summary), "runs": records(changes),
                    "swaps": records(swaps)}
        if found is not None:
            document["significance"] = records(found[1])
            document["significance_pairs"] = records(found[0])
        return json.dumps(document, indent=1, ensure_ascii=False) + "\n"
    text = (f"{render(summary, 'table')}\nranks under A and B (change > 0: higher under B)\n"
            f"{render(changes, 'table')}\npairs that swap places\n{render(swaps, 'table')}")
    return text + (significance_text(found[1], alpha) if found is not None else "")
