"""``pooljudge agree --campaign C``: inter-annotator agreement of a campaign (table or JSON)."""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING

from pooljudge.cli import Subcommands
from pooljudge.cli.inputs import open_database
from pooljudge.cli.options import (
    MAX_RESAMPLES,
    add_db_option,
    int_range,
    nonnegative_int,
    open_unit,
    seed,
)
from pooljudge.formats.files import atomic_writer

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["register", "render_table"]

_UNDEFINED = "undefined"


def register(subparsers: Subcommands) -> None:
    parser = subparsers.add_parser(
        "agree", help="agreement between annotators (kappa, alpha, specific agreement)",
        description="For every two annotators: shared pairs, raw agreement, Cohen's kappa "
                    "(weighted kappa on graded scales), positive/negative specific agreement, "
                    "prevalence and a bootstrap CI of kappa over topics; overall Fleiss' kappa "
                    "and Krippendorff's alpha. An undefined value prints as 'undefined' "
                    "(null in JSON), never 0. \"I can't judge this\" answers are counted per "
                    "annotator, never as a label.")
    parser.add_argument("--campaign", required=True, metavar="CAMPAIGN", help="the campaign's name")
    parser.add_argument("--format", choices=("table", "json"), default="table",
                        help="table (default, for reading) or json (undefined values: null)")
    parser.add_argument("--per-topic", action="store_true", help="also report every topic")
    parser.add_argument("--relevant", type=int_range(), metavar="T",
                        help="labels >= T are positive for specific agreement and prevalence "
                             "(default: every label above the lowest)")
    parser.add_argument("--resamples", type=nonnegative_int(MAX_RESAMPLES), default=1000,
                        metavar="N", help="bootstrap resamples of topics for the kappa CI "
                                          f"(default 1000, 0: no CI, at most {MAX_RESAMPLES})")
    parser.add_argument("--confidence", type=open_unit, default=0.95, metavar="P",
                        help="confidence level of the kappa CI (default 0.95)")
    parser.add_argument("--seed", type=seed, default=0, help="bootstrap seed (default 0)")
    parser.add_argument("-o", "--output", default="-", metavar="FILE", help="default: stdout")
    add_db_option(parser)
    parser.set_defaults(handler=_agree)


def _agree(args: argparse.Namespace) -> int:
    from pooljudge.annotate.agreement import BootstrapSpec, agreement_report
    from pooljudge.annotate.store import (
        cannot_judge_answers,
        get_campaign,
        judgments_frame,
        session_scope,
        suggestions_shown,
    )

    spec = (BootstrapSpec(confidence=args.confidence, n_resamples=args.resamples, seed=args.seed)
            if args.resamples else None)
    with open_database(args) as engine, session_scope(engine, readonly=True) as session:
        scale = get_campaign(session, name=args.campaign).scale.values
        frame = judgments_frame(session, campaign=args.campaign, kind="judgment",
                                columns=("annotator", "topic", "doc", "label"))
        answers = cannot_judge_answers(session, campaign=args.campaign)
        shown = suggestions_shown(session, campaign=args.campaign)
    report = agreement_report(frame, scale, relevant=args.relevant, per_topic=args.per_topic,
                              spec=spec, cannot_judge=answers)
    split = _by_suggestion(frame, shown, scale, args.relevant)
    if args.format == "json":
        document = report.to_json()
        if split:
            document["by_suggestion"] = {k: v.to_json()["pairs"] for k, v in split.items()}
        text = json.dumps(document, indent=2, allow_nan=False) + "\n"
    else:
        text = render_table(report) + "".join(
            f"\nJudgments made {subset}\n{_frame_text(part.pairs)}\n"
            for subset, part in split.items())
    with atomic_writer(args.output) as handle:
        handle.write(text)
    return 0


def _by_suggestion(frame: pd.DataFrame, shown: pd.DataFrame, scale, relevant: int | None
                   ) -> dict:
    """Pairwise agreement of the judgments made without and with a suggestion shown (the
    automatic judge's label; ``judgment.suggested``); empty when no suggestion was ever shown.
    A judgment without a row in ``shown`` (an automatic judge's) counts as without."""
    import pandas as pd

    from pooljudge.annotate.agreement import agreement_report

    seen = shown[shown["suggested"].notna()]
    if seen.empty:
        return {}
    keys = ["annotator", "topic", "doc"]
    with_one = pd.MultiIndex.from_frame(frame[keys].astype(str)).isin(
        pd.MultiIndex.from_frame(seen[keys].astype(str)))
    return {subset: agreement_report(frame[rows], scale, relevant=relevant)
            for subset, rows in (("without a suggestion shown", ~with_one),
                                 ("with a suggestion shown", with_one))}


def render_table(report) -> str:
    """The report as aligned text: pairs, overall coefficients, then per topic on request."""
    lines = ["Annotator pairs", _frame_text(report.pairs), "", "Overall"]
    width = max(len(key) for key in report.overall)
    lines += [f"  {key:<{width}}  {_cell(value)}" for key, value in report.overall.items()
              if not (key.endswith("_note") and value is None)]
    ci = report.settings.get("kappa_ci")
    if ci:
        lines += ["", f"kappa_ci_low/high: {ci['confidence']:.0%} {ci['method']} bootstrap CI of "
                      f"cohen_kappa over topics ({ci['resamples']} resamples, seed {ci['seed']})"]
    lines.append(f"positive labels: >= {report.settings['positive_from']}")
    if report.annotators is not None and len(report.annotators):
        lines += ["", "Annotators (cannot_judge: \"I can't judge this\" answers, never a label)",
                  report.annotators.to_string(index=False)]
    if report.per_topic_overall is not None and report.per_topic_pairs is not None:
        lines += ["", "Per topic", _frame_text(report.per_topic_overall), "",
                  "Per topic and annotator pair", _frame_text(report.per_topic_pairs)]
    return "\n".join(lines) + "\n"


def _frame_text(frame: pd.DataFrame) -> str:
    """Aligned text; a ``*_note`` column is blank where there is nothing to note (a None
    note means the value beside it is defined, not that it is undefined)."""
    if frame.empty:
        return "(no annotators share a judged pair)"
    shown = frame.astype(object).map(_cell)
    for column in [c for c in frame.columns if str(c).endswith("_note")]:
        notes = frame[column].astype(object)
        shown[column] = notes.where(notes.notna(), "").astype(str)
    return shown.to_string(index=False)


def _cell(value: object) -> str:
    import pandas as pd
    if value is None or value is pd.NA or (isinstance(value, float) and pd.isna(value)):
        return _UNDEFINED
    if isinstance(value, float):
        return f"{value:.3f}"
    return str(value)
