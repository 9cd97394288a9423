"""Which rule settled each pair of a consensus export, counted; and the pairs no vote decided.

:func:`pooljudge.annotate.consensus.settle` decides the qrels and, with this module, names the
rule that settled each judged pair (its ``settled`` category), so the Export page and
``pooljudge export`` state the same counts. Categories, from the provenance's rule and the
pair's votes (``n_votes``, ``spread``: highest minus lowest grade position):

- ``adjudicated``: an adjudicator's label (policy ``adjudicated``);
- ``single vote``: one vote (majority, mean, max, min: that vote);
- ``unanimous``: two or more votes, all the same label;
- ``majority``: a strict majority of differing votes;
- ``majority tie → lower label`` / ``→ higher label`` / ``→ left out``: the most frequent
  labels tie, and the tie rule (``--ties``) settled the pair, not the votes: these pairs are
  the *undecided* ones (:data:`UNDECIDED`), listed apart so that they can be left out or sent
  to adjudication first;
- ``mean of differing votes``, ``highest of differing votes``, ``lowest of differing votes``;
- ``annotator NAME``, ``automatic judge NAME``, ``people's majority``, ``<model>: highest
  posterior``, and ``left out: ...`` for pairs a policy leaves out (not judged by NAME, voted
  only by other automatic judges).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import pandas as pd

__all__ = ["UNDECIDED", "Settlement", "rule_counts", "settled_category", "summary_text",
           "undecided_pairs"]

UNDECIDED = "majority tie"  # the prefix of the categories a tie rule settled
_TIE_OUTCOMES = {"lower label": "lower label", "higher label": "higher label",
                 "skipped": "left out"}
_TIE_WORDS = {"lower": "lower label", "higher": "higher label", "skip": "left out"}
# policy name -> the words for a pair of differing votes the policy's rule settled
_FROM_VOTES = {"majority": "majority", "adjudicated": "majority",
               "mean": "mean of differing votes", "max": "highest of differing votes",
               "min": "lowest of differing votes"}
_ORDER = ("adjudicated", "unanimous", "majority", "mean of differing votes",
          "highest of differing votes", "lowest of differing votes", "single vote")


class Settlement(NamedTuple):
    """A policy's export: ``qrels`` and ``provenance`` (as
    :func:`~pooljudge.annotate.consensus.consensus_qrels`), ``rules`` (``rule, pairs``: judged
    pairs per category, see :func:`rule_counts`) and ``undecided`` (``topic, doc, votes``:
    the pairs a tie rule settled, by topic and document)."""

    qrels: pd.DataFrame
    provenance: pd.DataFrame
    rules: pd.DataFrame
    undecided: pd.DataFrame


def settled_category(rule: np.ndarray, n_votes: np.ndarray, spread: np.ndarray,
                     policy: str) -> np.ndarray:
    """Each pair's category (above) from its rule (before binarising) and votes; ``policy`` is
    the policy's name. Vectorised: one Python step per distinct rule text."""
    inverse, texts = pd.factorize(np.asarray(rule, dtype=object))
    named = [_category(str(text), policy) for text in texts]
    base = np.array([name for name, _ in named] or [""], dtype=object)[inverse]
    from_votes = np.array([split for _, split in named] or [False], dtype=bool)[inverse]
    n_votes, spread = np.asarray(n_votes), np.asarray(spread)
    return np.where(from_votes & (n_votes == 1), "single vote",
                    np.where(from_votes & (spread == 0), "unanimous", base)).astype(object)


def _category(rule: str, policy: str) -> tuple[str, bool]:
    """A rule text's category, and whether the votes' unanimity refines it."""
    if rule.startswith("adjudicated by "):
        return "adjudicated", False
    rule = rule.removeprefix("no adjudication; ")
    if rule.startswith("majority tie, "):
        return f"{UNDECIDED} → {_TIE_OUTCOMES[rule.removeprefix('majority tie, ')]}", False
    if rule == "majority" and policy == "human-else-automatic":
        return "people's majority", False
    if policy in _FROM_VOTES and (rule in ("majority", "max", "min")
                                  or rule.startswith("mean grade")):
        return _FROM_VOTES[policy], True
    if rule.startswith(("not judged by ", "voted only by ")):
        return f"left out: {rule}", False
    kind, _, who = rule.partition(":")
    if kind in ("annotator", "automatic") and who and ": posterior" not in rule:
        return f"{'annotator' if kind == 'annotator' else 'automatic judge'} {who}", False
    if ": posterior " in rule:
        return rule.rpartition(": posterior ")[0] + ": highest posterior", False
    return rule, False


def rule_counts(category: np.ndarray, policy: str, ties: str) -> pd.DataFrame:
    """Judged pairs per category: ``rule, pairs``. The categories a policy can produce from
    votes are listed even at 0 (``majority``/``adjudicated``: unanimous, majority and the
    tie rule in force; ``adjudicated`` first for that policy); the others when present. Order:
    adjudicated, unanimous, majority (or mean, highest, lowest), single vote, ties, then the
    rest by count."""
    found = pd.Series(category, dtype=object).value_counts(sort=False)
    always: list[str] = []
    if policy in ("majority", "adjudicated"):
        always = ["unanimous", "majority", f"{UNDECIDED} → {_TIE_WORDS[ties]}"]
        always = (["adjudicated"] if policy == "adjudicated" else []) + always
    elif policy in _FROM_VOTES:
        always = ["unanimous", _FROM_VOTES[policy]]
    counts = {name: 0 for name in always} | {str(k): int(v) for k, v in found.items()}
    rank = {name: i for i, name in enumerate(_ORDER)}

    def key(item: tuple[str, int]) -> tuple[int, int, str]:
        name, count = item
        if name in rank:
            return 0, rank[name], name
        return (1 if name.startswith(UNDECIDED) else 2), -count, name

    ordered = sorted(counts.items(), key=key)
    return pd.DataFrame(ordered, columns=["rule", "pairs"]).astype({"pairs": "int64"})


def summary_text(rules: pd.DataFrame) -> str:
    """``adjudicated: 1, unanimous: 14, majority: 0, majority tie → lower label: 10``."""
    return ", ".join(f"{r}: {n}" for r, n in zip(rules["rule"], rules["pairs"], strict=True))


def undecided_pairs(provenance: pd.DataFrame, category: np.ndarray) -> pd.DataFrame:
    """The pairs a tie rule settled: ``topic, doc, votes`` (provenance order)."""
    tied = pd.Series(category, dtype=object).str.startswith(UNDECIDED).to_numpy(dtype=bool)
    return provenance.loc[tied, ["topic", "doc", "votes"]].reset_index(drop=True)
