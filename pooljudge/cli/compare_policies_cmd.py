"""``pooljudge compare-policies --campaign C RUN...``: does the choice of aggregation change the
conclusions? The runs are scored under the qrels of each consensus policy — majority,
adjudicated, mean, ds, mace, glad, and human-else-automatic:NAME for each automatic judge of the
campaign — and each policy's run ordering is compared with majority's (the reference): Kendall's
tau (tau-b), tau_AP and the pairs of runs whose order flips (:mod:`pooljudge.metrics.correlate`).
``table`` prints the summary, the ranks under every policy and the flipped pairs; ``tsv`` the
summary; ``json`` all three.
"""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING

from pooljudge.annotate.consensus_policies import DEFAULT_TIES, TIES
from pooljudge.cli import Subcommands
from pooljudge.cli.options import add_db_option, add_format_option, add_measure_option, summary

if TYPE_CHECKING:
    import pandas as pd

HELP = "run rankings under each consensus policy, with tau, tau_AP and the flipped pairs"
DEFAULT = ("AP", "nDCG@10")
REFERENCE = "majority"
POLICIES = ("majority", "adjudicated", "mean", "ds", "mace", "glad")


def register(subparsers: Subcommands) -> None:
    parser = subparsers.add_parser("compare-policies", help=HELP, description=summary(__doc__))
    parser.add_argument("--campaign", required=True, metavar="CAMPAIGN", help="the campaign")
    add_db_option(parser)
    parser.add_argument("--ties", choices=TIES, default=DEFAULT_TIES,
                        help=f"majority ties in every policy that has them (default: "
                             f"{DEFAULT_TIES})")
    parser.add_argument("runs", metavar="RUN", nargs="+", help="run files (plain or .gz)")
    add_measure_option(parser, DEFAULT)
    add_format_option(parser)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:

    from pooljudge.annotate.consensus import consensus_qrels
    from pooljudge.annotate.consensus_policies import Policy
    from pooljudge.cli.export_cmd import load_campaign
    from pooljudge.cli.inputs import read_runs
    from pooljudge.cli.options import measures_from
    from pooljudge.cli.output import emit
    from pooljudge.errors import InputError
    from pooljudge.metrics.eval_inputs import load_qrels
    from pooljudge.metrics.evaluate import score, tidy

    measures = measures_from(args)
    loaded = load_campaign(args)
    if loaded.frame.empty:
        raise InputError(f"campaign {args.campaign} has no judgments to compare")
    runs = dict(read_runs(args.runs))
    means = {}
    for text in (*POLICIES, *_automatic_policies(loaded.frame)):
        qrels, _ = consensus_qrels(loaded.frame, loaded.scale, Policy.parse(text, ties=args.ties))
        prepared = load_qrels(qrels)
        means[text] = tidy([score(prepared, name, columns, measures)
                            for name, columns in runs.items()], per_topic=False)
    tables = _compare(means)
    emit(_output(*tables, args.format), args.output)
    return 0


def _automatic_policies(frame) -> list[str]:
    """human-else-automatic:NAME for each automatic judge among the campaign's voters."""
    if "source" not in frame.columns:
        return []
    votes = frame[(frame["kind"] == "judgment") & (frame["source"] == "automatic")]
    return [f"human-else-automatic:{name}" for name in sorted(set(votes["annotator"]))]


def _compare(means: dict[str, pd.DataFrame]
             ) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """(summary per policy and measure, ranks per run, flipped pairs) against majority."""
    import pandas as pd

    from pooljudge.metrics.correlate import correlate, ordering, swapped_pairs

    reference = means[REFERENCE]
    rows, flips, ranks = [], [], []
    for policy, other in means.items():
        found, _ = correlate(reference, other)
        rows.append(found.assign(policy=policy))
        for measure in found["measure"]:
            order_ref = ordering(_series(reference, measure))
            order = ordering(_series(other, measure))
            ranks += [{"measure": measure, "run": run, "policy": policy, "rank": i + 1}
                      for i, run in enumerate(order)]
            flips += [{"measure": measure, "policy": policy, f"above_under_{REFERENCE}": x,
                       "above_under_policy": y} for x, y in swapped_pairs(order_ref, order)]
    columns = ["policy", "measure", "runs", "kendall_tau", "tau_ap", "swaps"]
    summary_frame = pd.concat(rows, ignore_index=True)[columns]
    rank_frame = pd.DataFrame(ranks).pivot(index=["measure", "run"], columns="policy",
                                           values="rank")[list(means)].reset_index()
    flip_frame = pd.DataFrame(flips, columns=["measure", "policy", f"above_under_{REFERENCE}",
                                              "above_under_policy"])
    return summary_frame, rank_frame, flip_frame


def _series(means, measure: str):
    import pandas as pd

    rows = means[means["measure"] == measure]
    return pd.Series(rows["value"].to_numpy(float), index=rows["run"].astype(str).to_numpy())


def _output(summary_frame, ranks, flips, fmt: str) -> str:
    from pooljudge.cli.output import records, render

    if fmt == "tsv":
        return render(summary_frame, "tsv")
    if fmt == "json":
        return json.dumps({"summary": records(summary_frame), "ranks": records(ranks),
                           "flips": records(flips)}, indent=1, ensure_ascii=False) + "\n"
    return (f"{render(summary_frame, 'table')}\nranks under each policy (reference: "
            f"{REFERENCE})\n{render(ranks, 'table')}\npairs whose order flips against "
            f"{REFERENCE}\n{render(flips, 'table')}")
