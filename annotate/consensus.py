"""Disagreements, the adjudication queue, and qrels decided from several annotators' votes.

Input is a judgments frame (``annotator, topic, doc, label`` + optional ``kind`` and
``created_at``), one row per annotator and pair (latest versions). Rows of kind ``"judgment"``
are votes; rows of kind ``"adjudication"`` are adjudicators' decisions (the latest one per pair
counts, by ``created_at`` when present, else by row order).

A pair is a *disagreement* when its votes differ by at least ``min_spread`` grades (positions in
the scale): any difference on a binary scale, two grades or more on a graded one. Disagreements
without an adjudication form the adjudication queue.

Qrels policies (:class:`Policy`, declared with their help texts and defaults in the light
:mod:`pooljudge.annotate.consensus_policies`), applied to label positions in the ascending scale:

- ``majority``: the most frequent label; a tie takes the ``lower`` or ``higher`` of the tied
  labels, or ``skip``\\s the pair (it is left out of the qrels and says so in the provenance);
- ``adjudicated``: the latest adjudication, else the majority as above;
- ``mean``: the mean grade rounded half up, floor(mean + 1/2), computed exactly in integers;
- ``max`` / ``min``: the highest / lowest label given;
- ``annotator:NAME``: that annotator's label (pairs they did not judge are left out);
- ``human-else-automatic:NAME``: the majority of people's votes (every annotator but NAME and
  rows of source ``automatic``; ties as ``majority``) where a person voted, else the automatic
  judge NAME's label; the provenance gets a ``source`` column, ``human`` or ``automatic``.

- ``ds``, ``ds1``, ``glad``, ``mace``: a consensus model (:mod:`pooljudge.annotate.crowd`) over
  every annotator's votes, automatic judges included; the label of highest posterior, a tie to
  the lower label; ``gold`` (``adjudicated`` or ``annotator:NAME``) clamps the pairs it covers.

``binarize=T`` then maps a decided label to 1 when it is ≥ T, else 0. Only judged pairs appear.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
from pooljudge.annotate.consensus_policies import MODEL_POLICIES, POLICIES, TIES, Policy
from pooljudge.annotate.crowd import CrowdResult, fit_crowd
from pooljudge.annotate.judgment_codes import Coded, code_judgments
from pooljudge.annotate.settling import (
    Settlement,
    rule_counts,
    settled_category,
    undecided_pairs,
)

from pooljudge.errors import UsageError

__all__ = [
    "DECIDERS",
    "POLICIES",
    "TIES",
    "Policy",
    "Settlement",
    "adjudication_queue",
    "consensus_qrels",
    "disagreements",
    "fit_policy_model",
    "settle",
]


def disagreements(judgments: pd.DataFrame, scale: tuple[int, ...] | list[int], *,
                  min_spread: int | None = None) -> pd.DataFrame:
    """Pairs with two or more votes spread over at least ``min_spread`` grades.

    ``min_spread`` defaults to 1 on a binary scale (labels differ) and 2 on a graded one. Columns
    ``topic, doc, votes, n_votes, spread, adjudicator, adjudicated`` (the latest adjudication's
    author and label, or missing); widest spread first, then by topic and document.
    """
    _, items, _ = _votes(judgments, scale)
    if min_spread is None:
        min_spread = 1 if len(scale) <= 2 else 2
    found = items[(items["n_votes"] >= 2) & (items["spread"] >= min_spread)]
    found = found.merge(_adjudications(judgments, scale), how="left", on=["topic", "doc"])
    found["adjudicated"] = found["adjudicated"].astype("Int64")
    found = found.sort_values(["spread", "topic", "doc"], ascending=[False, True, True],
                              kind="stable", ignore_index=True)
    return found[["topic", "doc", "votes", "n_votes", "spread", "adjudicator", "adjudicated"]]


def adjudication_queue(judgments: pd.DataFrame, scale: tuple[int, ...] | list[int], *,
                       min_spread: int | None = None) -> pd.DataFrame:
    """Disagreements no adjudicator has decided yet: ``topic, doc, votes, n_votes, spread``."""
    found = disagreements(judgments, scale, min_spread=min_spread)
    waiting = found[found["adjudicated"].isna()].reset_index(drop=True)
    return waiting[["topic", "doc", "votes", "n_votes", "spread"]]


def consensus_qrels(judgments: pd.DataFrame, scale: tuple[int, ...] | list[int],
                    policy: Policy) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Decide one label per judged pair; return ``(qrels, provenance)``.

    ``qrels``: ``topic, doc, label`` (int64) for decided pairs, by topic then document.
    ``provenance``: one row per judged pair, ``topic, doc, votes, n_votes, decided`` (the policy's
    label), ``label`` (after ``binarize``; missing when the pair is left out) and ``rule`` (why).
    """
    qrels, provenance = _decide(judgments, scale, policy)
    return qrels, provenance.drop(columns="settled")


def settle(judgments: pd.DataFrame, scale: tuple[int, ...] | list[int],
           policy: Policy) -> Settlement:
    """:func:`consensus_qrels`, with the judged pairs each rule settled counted and the pairs
    a majority tie left to the tie rule listed (:mod:`pooljudge.annotate.settling`): what the
    Export page and ``pooljudge export`` say before and after writing."""
    qrels, provenance = _decide(judgments, scale, policy)
    category = provenance["settled"].to_numpy()
    return Settlement(qrels, provenance.drop(columns="settled"),
                      rule_counts(category, policy.name, policy.ties),
                      undecided_pairs(provenance, category))


def _decide(judgments: pd.DataFrame, scale: tuple[int, ...] | list[int],
            policy: Policy) -> tuple[pd.DataFrame, pd.DataFrame]:
    """:func:`consensus_qrels` with the provenance's ``settled`` category as a last column."""
    ballot = _Ballot(judgments, scale, *_votes(judgments, scale))
    items, pos, rule = DECIDERS[policy.name](ballot, policy)
    settled = settled_category(rule, items["n_votes"].to_numpy(), items["spread"].to_numpy(),
                               policy.name)
    values = np.asarray(ballot.coded.scale)
    decided = pd.array(np.where(pos >= 0, values[np.maximum(pos, 0)], 0), dtype="Int64")
    decided[pos < 0] = pd.NA
    label = decided
    if policy.binarize is not None:
        label = (decided >= policy.binarize).astype("Int64")
        rule = np.where(pos >= 0, rule + f"; binarized: >= {policy.binarize} -> 1", rule)
    provenance = items[["topic", "doc", "votes", "n_votes"]].assign(
        decided=decided, label=label, rule=rule)
    if policy.name == "human-else-automatic":
        provenance["source"] = np.where(pos < 0, "", np.where(
            np.char.startswith(rule.astype(str), f"automatic:{policy.annotator}"), "automatic",
            "human"))
    provenance["settled"] = settled
    provenance = provenance.sort_values(["topic", "doc"], kind="stable", ignore_index=True)
    kept = provenance[provenance["label"].notna()]
    qrels = pd.DataFrame({"topic": kept["topic"].to_numpy(), "doc": kept["doc"].to_numpy(),
                          "label": kept["label"].to_numpy(dtype=np.int64)})
    return qrels, provenance


class _Ballot(NamedTuple):
    """What a decider reads: the judgments, the scale, and their coded votes (see _votes)."""

    judgments: pd.DataFrame
    scale: tuple[int, ...] | list[int]
    coded: Coded
    items: pd.DataFrame
    counts: np.ndarray


# A decider: (ballot, policy) -> (items, label positions (-1: left out), rules), row-aligned.
Decider = Callable[[_Ballot, Policy], tuple[pd.DataFrame, np.ndarray, np.ndarray]]


def _votes(judgments: pd.DataFrame,
           scale: tuple[int, ...] | list[int]) -> tuple[Coded, pd.DataFrame, np.ndarray]:
    """Coded votes, one row per voted pair (``topic, doc, votes, n_votes, spread``), and the
    pairs × scale vote counts. ``votes`` reads ``alice=1 bob=0`` (annotators by name)."""
    coded = code_judgments(judgments, scale, kind="judgment")
    counts = coded.value_counts
    present = counts > 0
    low = np.argmax(present, axis=1)
    high = counts.shape[1] - 1 - np.argmax(present[:, ::-1], axis=1)
    order = np.lexsort((coded.ann, coded.item))  # annotator codes follow name order
    width = len(coded.scale)
    texts = [f"{name}={label}" for name in coded.annotators for label in coded.scale]
    pieces = pa.DictionaryArray.from_arrays(
        pa.array(coded.ann[order] * width + coded.pos[order]), pa.array(texts, pa.string()))
    offsets = np.r_[0, np.cumsum(counts.sum(axis=1))].astype(np.int64)
    votes = pc.binary_join(
        pa.LargeListArray.from_arrays(pa.array(offsets), pieces.dictionary_decode()), " ")
    items = pd.DataFrame({"topic": coded.topics[coded.item_topic].astype(str),
                          "doc": coded.item_doc.astype(str),
                          "votes": votes.to_numpy(zero_copy_only=False),
                          "n_votes": counts.sum(axis=1), "spread": high - low})
    return coded, items, counts


def _adjudications(judgments: pd.DataFrame, scale: tuple[int, ...] | list[int]) -> pd.DataFrame:
    """The latest adjudication per pair: ``topic, doc, adjudicator, adjudicated`` (its label)."""
    columns = ["topic", "doc", "adjudicator", "adjudicated"]
    if "kind" not in judgments.columns:
        return pd.DataFrame(columns=columns)
    rows = judgments[judgments["kind"] == "adjudication"]
    if "created_at" in rows.columns:
        rows = rows.sort_values("created_at", kind="stable")
    rows = rows.drop_duplicates(["topic", "doc"], keep="last")
    code_judgments(rows, scale, kind="adjudication")  # validates the labels against the scale
    return pd.DataFrame({"topic": rows["topic"].astype(str).to_numpy(),
                         "doc": rows["doc"].astype(str).to_numpy(),
                         "adjudicator": rows["annotator"].astype(str).to_numpy(),
                         "adjudicated": rows["label"].to_numpy(dtype=np.int64)}, columns=columns)


def _majority(counts: np.ndarray, ties: str) -> tuple[np.ndarray, np.ndarray]:
    """The most frequent grade; ties broken to the lower/higher grade, or skipped (-1)."""
    tied = (counts == counts.max(axis=1, initial=0)[:, None]) & (counts > 0)
    tie = tied.sum(axis=1) > 1
    lower = np.argmax(tied, axis=1)
    higher = counts.shape[1] - 1 - np.argmax(tied[:, ::-1], axis=1)
    pos = {"lower": lower, "higher": higher, "skip": np.where(tie, -1, lower)}[ties]
    outcome = {"lower": "lower label", "higher": "higher label", "skip": "skipped"}[ties]
    return pos, np.where(tie, f"majority tie, {outcome}", "majority").astype(object)


def _mean(counts: np.ndarray, ties: str) -> tuple[np.ndarray, np.ndarray]:
    """The mean grade rounded half up: floor((2·Σ grades + n) / 2n), exact in integers."""
    n = counts.sum(axis=1)
    total = counts @ np.arange(counts.shape[1])
    pos = (2 * total + n) // np.maximum(2 * n, 1)
    means, index = np.unique(total / np.maximum(n, 1), return_inverse=True)
    texts = np.array([f"mean grade {m:.4g}, rounded half up" for m in means], dtype=object)
    return pos, texts[index]


def _extreme(highest: bool):
    def decide(counts: np.ndarray, ties: str) -> tuple[np.ndarray, np.ndarray]:
        present = counts[:, ::-1] if highest else counts
        pos = np.argmax(present > 0, axis=1)
        pos = counts.shape[1] - 1 - pos if highest else pos
        return pos, np.full(len(counts), "max" if highest else "min", dtype=object)
    return decide


def _on_counts(decide: Callable[[np.ndarray, str], tuple[np.ndarray, np.ndarray]]) -> Decider:
    """A decider from a rule over the pairs × scale vote counts and the tie rule."""
    def decider(ballot: _Ballot, policy: Policy) -> tuple[pd.DataFrame, np.ndarray, np.ndarray]:
        return (ballot.items, *decide(ballot.counts, policy.ties))
    return decider


def _one_annotator(ballot: _Ballot,
                   policy: Policy) -> tuple[pd.DataFrame, np.ndarray, np.ndarray]:
    """The named annotator's grade on the pairs they judged, -1 (left out) elsewhere."""
    coded, name = ballot.coded, policy.annotator or ""
    matches = np.flatnonzero(coded.annotators == name)
    if len(matches) == 0:
        raise UsageError(f"--policy annotator:{name}: no judgments by an annotator named {name!r}")
    pos = np.full(len(ballot.items), -1, dtype=np.int64)
    mine = coded.ann == matches[0]
    pos[coded.item[mine]] = coded.pos[mine]
    rule = np.where(pos >= 0, f"annotator:{name}", f"not judged by {name}").astype(object)
    return ballot.items, pos, rule


def _adjudicated(ballot: _Ballot,
                 policy: Policy) -> tuple[pd.DataFrame, np.ndarray, np.ndarray]:
    """The adjudicator's grade where a pair was adjudicated, else the majority's.

    A pair adjudicated without votes is included (it was judged, by the adjudicator).
    """
    items, counts = ballot.items, ballot.counts
    adjudications = _adjudications(ballot.judgments, ballot.scale)
    keys = pd.MultiIndex.from_arrays([items["topic"], items["doc"]])
    where = keys.get_indexer(pd.MultiIndex.from_arrays([adjudications["topic"],
                                                        adjudications["doc"]]))
    extra = adjudications.loc[where < 0, ["topic", "doc"]].assign(votes="", n_votes=0, spread=0)
    items = pd.concat([items, extra], ignore_index=True)
    where = np.where(where < 0, len(keys) + np.cumsum(where < 0) - 1, where)
    counts = np.vstack([counts, np.zeros((len(extra), counts.shape[1]), dtype=counts.dtype)])
    pos, rule = _majority(counts, policy.ties)
    rule = "no adjudication; " + rule
    pos[where] = np.searchsorted(np.asarray(ballot.coded.scale),
                                 adjudications["adjudicated"].to_numpy(dtype=np.int64))
    rule[where] = ("adjudicated by " + adjudications["adjudicator"]).to_numpy(dtype=object)
    return items, pos, rule


def _human_else_automatic(ballot: _Ballot,
                          policy: Policy) -> tuple[pd.DataFrame, np.ndarray, np.ndarray]:
    """People's majority where a person voted; else the automatic judge's label; else -1."""
    name, judgments = policy.annotator or "", ballot.judgments
    votes = judgments[judgments["kind"] == "judgment"] if "kind" in judgments else judgments
    mine = (votes["annotator"] == name).to_numpy()
    if not mine.any():
        raise UsageError(f"--policy human-else-automatic:{name}: no judgments by an automatic "
                         f"judge named {name!r}")
    machine = (votes["source"] == "automatic").to_numpy() if "source" in votes else False
    items = ballot.items
    keys = pd.MultiIndex.from_arrays([items["topic"], items["doc"]])
    pos = np.full(len(items), -1, dtype=np.int64)
    rule = np.full(len(items), "voted only by other automatic judges", dtype=object)
    judge = votes[mine]
    where = keys.get_indexer(pd.MultiIndex.from_arrays([judge["topic"].astype(str),
                                                        judge["doc"].astype(str)]))
    pos[where] = np.searchsorted(np.asarray(ballot.coded.scale),
                                 judge["label"].to_numpy(dtype=np.int64))
    rule[where] = f"automatic:{name}"
    people = votes[~mine & ~machine]
    if len(people):
        _, their_items, counts = _votes(people, ballot.scale)
        decided, why = _majority(counts, policy.ties)
        where = keys.get_indexer(pd.MultiIndex.from_arrays([their_items["topic"],
                                                            their_items["doc"]]))
        pos[where], rule[where] = decided, why
    return items, pos, rule


def fit_policy_model(judgments: pd.DataFrame, scale: tuple[int, ...] | list[int],
                     policy: Policy) -> tuple[Coded, CrowdResult]:
    """The coded votes and ``policy``'s model fitted to them, seeded with its gold labels."""
    coded = code_judgments(judgments, scale, kind="judgment")
    gold = np.full(len(coded.item_topic), -1, dtype=np.int64)
    leave_out = None
    if policy.gold == "adjudicated":
        rows = _adjudications(judgments, scale)
    elif policy.gold is not None:
        leave_out = policy.gold.partition(":")[2]
        matches = np.flatnonzero(coded.annotators == leave_out)
        if len(matches) == 0:
            raise UsageError(f"--gold {policy.gold}: no judgments by an annotator named "
                             f"{leave_out!r}")
        mine = coded.ann == matches[0]
        gold[coded.item[mine]] = coded.pos[mine]
    if policy.gold == "adjudicated" and len(rows):
        keys = pd.MultiIndex.from_arrays([coded.topics[coded.item_topic].astype(str),
                                          coded.item_doc.astype(str)])
        where = keys.get_indexer(pd.MultiIndex.from_arrays([rows["topic"], rows["doc"]]))
        found = where >= 0
        gold[where[found]] = np.searchsorted(np.asarray(coded.scale),
                                             rows["adjudicated"].to_numpy(np.int64)[found])
    return coded, fit_crowd(coded, policy.name, gold, leave_out=leave_out)


def _model(ballot: _Ballot, policy: Policy) -> tuple[pd.DataFrame, np.ndarray, np.ndarray]:
    """The argmax of the model's posterior (ties: the lower label) on every voted pair."""
    _, result = fit_policy_model(ballot.judgments, ballot.scale, policy)
    best = result.posterior[np.arange(len(result.decided)), result.decided]
    seeded = "" if policy.gold is None else f", gold {policy.gold}"
    rule = np.char.add(f"{policy.name}{seeded}: posterior ", np.char.mod("%.4f", best))
    return ballot.items, result.decided, rule.astype(object)


# The implementation of every policy of pooljudge.annotate.consensus_policies.POLICY_HELP, by name.
DECIDERS: dict[str, Decider] = {
    "majority": _on_counts(_majority),
    "adjudicated": _adjudicated,
    "mean": _on_counts(_mean),
    "max": _on_counts(_extreme(True)),
    "min": _on_counts(_extreme(False)),
    "annotator": _one_annotator,
    "human-else-automatic": _human_else_automatic,
    **dict.fromkeys(MODEL_POLICIES, _model),
}
