"""``pooljudge export --format hf DIR``: a campaign as a Hugging Face dataset on disk.

The tables (configs) are those of the TREC export, as columns: ``qrels`` (the consensus label of
each decided pair, ``topic, doc, label``; a sampled campaign's unsampled pairs as -1, as in the
TREC qrels), ``topics``, ``judgments`` (every annotator's latest label, adjudications included,
with its provenance: kind, source, version, time, seconds, comment, rationale), ``provenance``
(per pair: the votes and the rule that decided), and when there are any, ``prels`` (a sampled
campaign's every pooled pair) and ``cannot_judge`` (the "I can't judge this" answers). The card
states the campaign, scale, policy, counts and agreement (Fleiss' kappa, Krippendorff's alpha).
:mod:`pooljudge.formats.hf` writes it all, atomically.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, NamedTuple

from pooljudge.cli.export_settled import check_undecided, settled_lines
from pooljudge.cli.inputs import open_database
from pooljudge.errors import InputError, UsageError

if TYPE_CHECKING:
    import pandas as pd
    from sqlmodel import Session

    from pooljudge.annotate.consensus_policies import Policy
    from pooljudge.annotate.store import CampaignSummary

__all__ = ["JUDGMENT_COLUMNS", "export_hf"]

JUDGMENT_COLUMNS = ("annotator", "topic", "doc", "label", "kind", "source", "version",
                    "created_at", "seconds", "comment", "rationale")
_CONSENSUS_COLUMNS = ["annotator", "topic", "doc", "label", "kind", "source", "created_at"]
_VIEW_BATCH = 2_000  # pair views read at once while looking for each topic's text
DESCRIPTIONS = {
    "qrels": "the consensus label of each decided pair (the TREC qrels of pooljudge export)",
    "topics": "the campaign's topics as annotators saw them",
    "judgments": "each annotator's latest label of each pair, adjudications included, with "
                 "where it came from (source: human, import or automatic)",
    "provenance": "per pair: every vote, the decided label and the rule that decided it",
    "prels": "a sampled campaign's every pooled pair: stratum, inclusion probability, label",
    "cannot_judge": "the \"I can't judge this\" answers (never a label)",
}


class _Campaign(NamedTuple):
    scale: tuple[int, ...]
    judgments: pd.DataFrame
    answers: pd.DataFrame
    sample: pd.DataFrame | None
    summary: CampaignSummary
    topics: pd.DataFrame


def export_hf(args: argparse.Namespace, policy: Policy) -> int:
    """Check the options and the target, read the campaign, decide the qrels, write DIR."""
    from pooljudge.annotate.campaigns import sampled_export
    from pooljudge.annotate.consensus import settle
    from pooljudge.formats.hf import CardFacts, check_hf_target, write_hf_dataset

    _check_options(args)
    check_hf_target(args.directory, force=args.force)
    campaign = _load(args)
    votes = campaign.judgments[_CONSENSUS_COLUMNS]
    if votes.empty:
        raise InputError(f"campaign {args.campaign} has no judgments to export")
    settlement = settle(votes, campaign.scale, policy)
    check_undecided(settlement, args.undecided, args.campaign)
    qrels, provenance = settlement.qrels, settlement.provenance
    judged = len(qrels)
    tables = {"qrels": qrels, "topics": campaign.topics,
              "judgments": campaign.judgments[list(JUDGMENT_COLUMNS)],
              "provenance": provenance}
    if campaign.sample is not None:
        sampled = sampled_export(qrels, campaign.sample)
        tables.update(qrels=sampled.qrels, prels=sampled.prels)
    if len(campaign.answers):
        tables["cannot_judge"] = campaign.answers
    facts = CardFacts(campaign=args.campaign, scale=campaign.scale, policy=str(policy),
                      counts=_counts(campaign, judged), agreement=_agreement(campaign),
                      license=args.license or "other",
                      descriptions={k: DESCRIPTIONS[k] for k in tables})
    target = write_hf_dataset(args.directory, tables, facts, force=args.force)
    print(f"{judged} judged pairs written by policy {policy} to {target} as a Hugging Face "
          f"dataset (configs: {', '.join(tables)})", *settled_lines(settlement), sep="\n",
          file=sys.stderr)
    return 0


def _check_options(args: argparse.Namespace) -> None:
    """UsageError for a TREC export's option, or no DIR."""
    for option, value in (("--provenance", args.provenance), ("--prels", args.prels),
                          ("--cannot-judge", args.cannot_judge)):
        if value is not None:
            raise UsageError(f"{option}: not with --format hf (the dataset holds it as a "
                             "config)")
    if args.output != "-":
        raise UsageError("-o: not with --format hf: give the dataset folder as DIR")
    if args.directory is None:
        raise UsageError("--format hf: give the dataset folder DIR")


def _load(args: argparse.Namespace) -> _Campaign:
    """Everything the dataset holds, read in one transaction."""
    from pooljudge.annotate.store import (
        campaign_summary,
        cannot_judge_answers,
        get_campaign,
        judgments_frame,
        pool_sample,
        session_scope,
    )

    with open_database(args) as engine, session_scope(engine, readonly=True) as session:
        scale = get_campaign(session, name=args.campaign).scale.values
        judgments = judgments_frame(session, campaign=args.campaign, columns=JUDGMENT_COLUMNS)
        answers = cannot_judge_answers(session, campaign=args.campaign)
        sample = pool_sample(session, campaign=args.campaign)
        summary = campaign_summary(session, campaign=args.campaign)
        topics = _topics(session, args.campaign, int(summary["topics"]))
    return _Campaign(tuple(scale), judgments, answers, sample, summary, topics)


def _topics(session: Session, campaign: str, count: int) -> pd.DataFrame:
    """The campaign's topics (``id, title, description, narrative``) from its pairs' views,
    read in queue order a batch at a time until every topic was seen."""
    import pandas as pd

    from pooljudge.annotate.store import pair_views, pairs_for_judge

    pair_ids, _ = pairs_for_judge(session, campaign=campaign, annotator_id=None)
    seen: dict[str, tuple[str, str, str, str]] = {}
    for start in range(0, len(pair_ids), _VIEW_BATCH):
        for view in pair_views(session, pair_ids=pair_ids[start:start + _VIEW_BATCH]):
            seen.setdefault(view.topic_id, (view.topic_id, view.topic_title,
                                            view.topic_description, view.topic_narrative))
        if len(seen) >= count:
            break
    return pd.DataFrame(list(seen.values()), columns=["id", "title", "description",
                                                      "narrative"])


def _counts(campaign: _Campaign, judged: int) -> dict[str, int]:
    """The card's counts: the campaign's size, the decided pairs, the labels, and who gave
    them (automatic judges apart from people)."""
    summary, judgments = campaign.summary, campaign.judgments
    votes = judgments[judgments["kind"] == "judgment"]
    automatic = (votes["source"] == "automatic").to_numpy()
    counts = {"Topics": int(summary["topics"]), "Documents": int(summary["documents"]),
              "Pooled pairs": int(summary["pairs"]), "Pairs with a consensus label": judged,
              "Labels (latest per annotator and pair)": len(judgments),
              "Annotators who labelled": int(votes.loc[~automatic, "annotator"].nunique())}
    if automatic.any():
        counts["Automatic judges who labelled"] = int(votes.loc[automatic, "annotator"].nunique())
    return counts


def _agreement(campaign: _Campaign) -> dict[str, float | None]:
    """Fleiss' kappa and Krippendorff's alpha over the pairs two or more annotators labelled
    (:func:`pooljudge.annotate.agreement.overall_agreement`); empty when no pair was."""
    from pooljudge.annotate.agreement import overall_agreement
    from pooljudge.annotate.judgment_codes import code_judgments

    labels = campaign.judgments[["annotator", "topic", "doc", "label", "kind"]]
    overall = overall_agreement(code_judgments(labels, campaign.scale))
    if not overall["items_shared"]:
        return {}
    return {"Pairs labelled by two or more": _figure(overall["items_shared"]),
            "Fleiss' kappa": _figure(overall["fleiss_kappa"]),
            "Krippendorff's alpha (nominal)": _figure(overall["krippendorff_alpha_nominal"]),
            "Krippendorff's alpha (ordinal)": _figure(overall["krippendorff_alpha_ordinal"])}


def _figure(value: object) -> float | None:
    """An agreement figure: overall_agreement's values are a count, a float or None."""
    return value if isinstance(value, int | float) else None
