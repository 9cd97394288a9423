"""``pooljudge calibrate measure|sample|suggest``: an automatic judge measured against people,
calibration samples for people to judge, and the judge's labels shown to people as
suggestions."""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING

from pooljudge.annotate.consensus_policies import DEFAULT_POLICY, DEFAULT_TIES, TIES
from pooljudge.cli import Subcommands
from pooljudge.cli.inputs import open_database
from pooljudge.cli.options import (
    MAX_COUNT,
    MAX_RESAMPLES,
    add_db_option,
    int_range,
    nonnegative_int,
    open_unit,
    positive_int,
    seed,
)
from pooljudge.errors import UsageError
from pooljudge.formats.files import atomic_writer

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["register", "render_table"]

HELP = "measure an automatic judge against people, sample pairs for them, show suggestions"
MEASURE_HELP = "measure an automatic judge against people (kappa, bias, PPI estimates per run)"
MEASURE_DESCRIPTION = (
    "On the pairs labelled both by people (decided by --human-policy) and by the automatic "
    "judge: the confusion matrix, agreement, Cohen's kappa (linear weighted kappa on graded "
    "scales), per-label precision and recall, and the judge's bias (its relevant share minus "
    "people's), each with a bootstrap CI over topics; the same with and without suggestions "
    "shown. With --runs: per run the measure on people's labels, on the judge's, and a "
    "prediction-powered (PPI++) estimate with its CI, plus Kendall's tau and tau_AP between "
    "the rankings.")


def register(subparsers: Subcommands) -> None:
    group = subparsers.add_parser(
        "calibrate", help=HELP,
        description="An automatic judge against people: 'measure' compares their labels; "
                    "'sample' puts pairs for people to judge at the front of the queue; "
                    "'suggest' shows the judge's labels to people as suggestions.")
    actions = group.add_subparsers(title="actions", metavar="ACTION", dest="action",
                                   parser_class=type(group))
    actions.required = True
    parser = actions.add_parser("measure", help=MEASURE_HELP, description=MEASURE_DESCRIPTION)
    _add_judge(parser, required=False)  # checked by the handler: "--automatic is required"
    parser.add_argument("--human-policy", default=DEFAULT_POLICY, metavar="POLICY",
                        help=f"how people's labels of a pair are decided, as for export "
                             f"--policy (default: {DEFAULT_POLICY})")
    parser.add_argument("--ties", choices=TIES, default=DEFAULT_TIES,
                        help=f"majority ties (default: {DEFAULT_TIES})")
    parser.add_argument("--relevant", type=int_range(), metavar="T",
                        help="labels >= T are relevant for the bias (default: every label "
                             "above the lowest)")
    parser.add_argument("--bootstrap", type=nonnegative_int(MAX_RESAMPLES), default=1000,
                        metavar="B", help="bootstrap resamples of topics (default 1000; 0: no CI)")
    parser.add_argument("--confidence", type=open_unit, default=0.95, metavar="P",
                        help="confidence level of every interval (default 0.95)")
    parser.add_argument("--seed", type=seed, default=0, help="bootstrap seed (default 0)")
    parser.add_argument("--runs", nargs="+", metavar="RUN",
                        help="run files: also estimate --measure per run")
    parser.add_argument("--measure", default="nDCG@10", metavar="MEASURE",
                        help="the measure of --runs (default nDCG@10)")
    parser.add_argument("--format", choices=("table", "json"), default="table",
                        help="table (default, for reading) or json (undefined values: null)")
    parser.add_argument("-o", "--output", default="-", metavar="FILE", help="default: stdout")
    add_db_option(parser)
    parser.set_defaults(handler=_calibrate)
    sample = actions.add_parser(
        "sample", help="put N pairs no person judged at the front of the queue",
        description="Pick N pairs that no person has judged, stratified by the judge's label "
                    "(equal numbers per label, capped by what a label has; rare labels are "
                    "covered), and give them the first places of the campaign's queue, labels "
                    "interleaved.")
    _add_judge(sample, required=True)
    sample.add_argument("--n", type=positive_int(MAX_COUNT), required=True, metavar="N",
                        help="pairs to pick")
    sample.add_argument("--seed", type=seed, default=0, help="sampling seed (default 0)")
    add_db_option(sample)
    sample.set_defaults(handler=_sample)
    suggest = actions.add_parser(
        "suggest", help="show an automatic judge's labels to people as suggestions (or stop)",
        description="Show the named automatic judge's label beside each pair on the judging "
                    "page; each judgment records the label shown. Off by default.")
    suggest.add_argument("--campaign", required=True, metavar="CAMPAIGN",
                         help="the campaign's name")
    which = suggest.add_mutually_exclusive_group(required=True)
    which.add_argument("--from", dest="judge", metavar="NAME", help="the automatic judge")
    which.add_argument("--off", action="store_true", help="show no suggestions")
    add_db_option(suggest)
    suggest.set_defaults(handler=_suggest)


def _add_judge(parser: argparse.ArgumentParser, *, required: bool) -> None:
    parser.add_argument("--campaign", required=required, metavar="CAMPAIGN",
                        help="the campaign's name")
    parser.add_argument("--automatic", required=required, metavar="NAME",
                        help="the automatic judge's name (autojudge --name)")


def _calibrate(args: argparse.Namespace) -> int:
    from pooljudge.annotate.calibration import calibrate, label_sources, paired_labels
    from pooljudge.annotate.consensus_policies import Policy
    from pooljudge.annotate.store import (
        get_campaign,
        judgments_frame,
        session_scope,
        suggestions_shown,
        topic_pairs,
    )

    for option, value in (("--campaign", args.campaign), ("--automatic", args.automatic)):
        if value is None:
            raise UsageError(f"{option} is required")
    try:
        policy = Policy.parse(args.human_policy, ties=args.ties)
    except UsageError as exc:
        raise UsageError(f"--human-policy: {exc}") from None
    columns = ("annotator", "topic", "doc", "label", "kind", "source")
    with open_database(args) as engine, session_scope(engine, readonly=True) as session:
        scale = get_campaign(session, name=args.campaign).scale.values
        frame = judgments_frame(session, campaign=args.campaign, columns=columns)
        shown = suggestions_shown(session, campaign=args.campaign)
        sizes = topic_pairs(session, campaign=args.campaign).set_index("topic")["pairs"]
    human, auto = label_sources(frame, scale, automatic=args.automatic, policy=policy)
    shown = shown[shown["annotator"] != args.automatic]
    result = calibrate(paired_labels(human, auto, shown), scale, relevant=args.relevant,
                       resamples=args.bootstrap, seed=args.seed, confidence=args.confidence)
    result.settings.update({"campaign": args.campaign, "automatic": args.automatic,
                            "human_policy": str(policy)})
    runs, ranks = None, None
    if args.runs:
        from pooljudge.annotate.ppi import system_estimates

        runs, ranks = system_estimates(human, auto, args.runs, args.measure, pool_sizes=sizes,
                                       confidence=args.confidence)
    text = (_json_text(result, runs, ranks, args.measure) if args.format == "json"
            else render_table(result, runs, ranks, args.measure))
    with atomic_writer(args.output) as handle:
        handle.write(text)
    return 0


def _json_text(result, runs: pd.DataFrame | None, ranks: dict | None, measure: str) -> str:
    import numpy as np

    document = result.to_json()
    if runs is not None:
        records = runs.astype(object).where(runs.notna(), None).to_dict("records")
        document["runs"] = {"measure": measure, "per_run": [
            {k: (None if isinstance(v, float) and not np.isfinite(v) else v)
             for k, v in row.items()} for row in records], "rank_correlation": ranks}
    return json.dumps(document, indent=2, allow_nan=False) + "\n"


def render_table(result, runs: pd.DataFrame | None = None, ranks: dict | None = None,
                 measure: str = "") -> str:
    """The report as aligned text: settings, confusion matrix, statistics, subsets, runs."""
    s = result.settings
    ci = s["ci"]
    lines = [f"Automatic judge {s.get('automatic')} against people "
             f"(policy {s.get('human_policy')}): {s['pairs']} pairs in {s['topics']} topics",
             "", "Confusion matrix (rows: people's label, columns: the judge's)",
             result.confusion.to_string(), "",
             f"Statistics ({ci['confidence']:.0%} {ci['method']}, {ci['resamples']} resamples, "
             f"seed {ci['seed']}; relevant: label >= {s['relevant_from']}"
             + ("; kappa_linear: linear weights" if s.get("kappa_weights") else "") + ")",
             _text(result.statistics), "", "With and without suggestions shown to people",
             _text(result.by_suggestion)]
    if runs is not None:
        lines += ["", f"Runs ({measure}; ppi: PPI++ estimate over {runs['topics'].max()} topics, "
                      f"human_only: the {runs['labelled_topics'].max()} topics people judged "
                      "completely)", _text(runs)]
        lines += [f"  {key}: {'undefined' if value is None else f'{value:.3f}'}"
                  for key, value in (ranks or {}).items()]
    return "\n".join(lines) + "\n"


def _text(frame: pd.DataFrame) -> str:
    if frame.empty:
        return "(none)"
    shown = frame.astype(object).map(
        lambda v: "undefined" if isinstance(v, float) and v != v  # NaN
        else f"{v:.3f}" if isinstance(v, float) else str(v))
    return shown.to_string(index=False)


def _sample(args: argparse.Namespace) -> int:
    from pooljudge.annotate.calibration import stratified_sample
    from pooljudge.annotate.store import calibration_candidates, move_to_front, session_scope

    with open_database(args) as engine, session_scope(engine) as session:
        candidates = calibration_candidates(session, campaign=args.campaign, judge=args.automatic)
        chosen = stratified_sample(candidates, args.n, seed=args.seed)
        move_to_front(session, campaign=args.campaign, pair_ids=chosen.tolist())
    picked = candidates.set_index("pair_id").loc[chosen, "label"].value_counts().sort_index()
    per_label = ", ".join(f"label {label}: {count}" for label, count in picked.items())
    short = (f" (only {len(candidates)} pairs no person judged)"
             if len(chosen) < args.n else "")
    print(f"{len(chosen)} pairs put at the front of the queue{short}"
          + (f"; {per_label}" if per_label else ""))
    return 0


def _suggest(args: argparse.Namespace) -> int:
    from pooljudge.annotate.store import session_scope, set_suggest_from

    with open_database(args) as engine, session_scope(engine) as session:
        set_suggest_from(session, campaign=args.campaign, name=None if args.off else args.judge)
    print(f"campaign {args.campaign}: "
          + ("no suggestions shown" if args.off else f"suggestions from {args.judge}"),
          file=sys.stderr)
    return 0
