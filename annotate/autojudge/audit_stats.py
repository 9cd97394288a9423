"""The numbers of a judge audit: flip rates with intervals, and circularity.

**Flip rate** of a probe kind: ``k / n``, ``n`` its probes that got a label and ``k`` those the
judge called relevant (label ≥ ``relevant``), with the Wilson score interval at ``confidence``
(``statsmodels.stats.proportion.proportion_confint(method="wilson")``); ``n = 0`` gives NaN
(no interval).

**People's decision** on a pair: relevant when at least half of the people who labelled it gave
a label ≥ ``relevant``; a probe is made only from pairs *no* person called relevant.

**Circularity**: an automatic judge may favour the output of models of its own family. Given
each run's declared family, the pairs retrieved by at least one run of the judge's family form
the group ``same family``; the pairs retrieved by none of them ``other families`` (a run missing
from the mapping counts as another family). For each group and for ``all`` pairs that both the
people and the judge labelled: ``n``, the share of pairs where the judge's binary decision
equals the people's (with its Wilson interval) and Cohen's κ of the two binary decisions (NaN
when undefined: no pair, or both sides used one decision only).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
from pooljudge.annotate.agreement import kappa_from_tables

__all__ = ["GROUPS", "RATE_COLUMNS", "circularity", "family_runs", "flip_rates",
           "people_decisions", "wilson"]

RATE_COLUMNS = ["probe", "n", "failed", "relevant", "rate", "low", "high"]
GROUPS = ("same family", "other families", "all")


def wilson(k: np.ndarray, n: np.ndarray, confidence: float = 0.95
           ) -> tuple[np.ndarray, np.ndarray]:
    """Wilson score intervals of ``k`` successes in ``n`` trials (NaN where ``n = 0``)."""
    from statsmodels.stats.proportion import proportion_confint

    k, n = np.asarray(k, dtype=float), np.asarray(n, dtype=float)
    safe = np.where(n > 0, n, 1)
    low, high = proportion_confint(k, safe, alpha=1 - confidence, method="wilson")
    low = np.where(k == 0, 0.0, low)  # exact bounds where rounding would leave 1e-18
    high = np.where(k == n, 1.0, high)
    return np.where(n > 0, low, np.nan), np.where(n > 0, high, np.nan)


def flip_rates(kinds: Sequence[str], labels: Sequence[int | None], *, relevant: int,
               order: Sequence[str], confidence: float = 0.95) -> pd.DataFrame:
    """One row per probe kind of ``order`` (columns :data:`RATE_COLUMNS`) from each probe's
    kind and label (None: the judge gave no label)."""
    frame = pd.DataFrame({"probe": list(kinds), "label": pd.array(list(labels), dtype="Int64")})
    labelled = frame["label"].notna()
    flipped = labelled & (frame["label"].fillna(relevant - 1) >= relevant)
    grouped = pd.DataFrame({"probe": frame["probe"], "n": labelled.astype(int),
                            "failed": (~labelled).astype(int),
                            "relevant": flipped.astype(int)}).groupby("probe").sum()
    table = grouped.reindex(list(order), fill_value=0).reset_index()
    n, k = table["n"].to_numpy(), table["relevant"].to_numpy()
    table["rate"] = np.where(n > 0, k / np.where(n > 0, n, 1), np.nan)
    table["low"], table["high"] = wilson(k, n, confidence)
    return table[RATE_COLUMNS]


def people_decisions(labels: pd.DataFrame, *, relevant: int) -> pd.DataFrame:
    """Per pair of ``labels`` (columns topic, doc, label: one row per person and pair):
    columns topic, doc, people, relevant_votes, decision (bool, see the module docstring)."""
    votes = labels.assign(vote=(labels["label"].to_numpy() >= relevant).astype(int))
    table = votes.groupby(["topic", "doc"], sort=True).agg(
        people=("vote", "size"), relevant_votes=("vote", "sum")).reset_index()
    table["decision"] = 2 * table["relevant_votes"] >= table["people"]
    return table


def family_runs(runs: Sequence[str], families: Mapping[str, str], family: str) -> list[str]:
    """The runs among ``runs`` whose declared family is ``family``, sorted."""
    return sorted(r for r in set(runs) if families.get(r) == family)


def circularity(pairs: pd.DataFrame, people: pd.DataFrame, judge: pd.DataFrame, *,
                matching: Sequence[str], relevant: int, confidence: float = 0.95
                ) -> pd.DataFrame:
    """Judge–people agreement by group (:data:`GROUPS`).

    ``pairs``: topic, doc, runs (comma-separated); ``people``: :func:`people_decisions`;
    ``judge``: topic, doc, label (the judge's labels); ``matching``: the runs of the judge's
    family. Columns group, n, agree, agreement, low, high, kappa.
    """
    both = people.merge(judge[["topic", "doc", "label"]], on=["topic", "doc"]).merge(
        pairs[["topic", "doc", "runs"]], on=["topic", "doc"], how="left")
    retrieved = both["runs"].fillna("").astype(str).str.split(",").explode()
    same = (retrieved.isin(list(matching)).groupby(level=0).any()
            .reindex(both.index, fill_value=False).to_numpy(dtype=bool))
    people_yes = both["decision"].to_numpy(dtype=bool)
    judge_yes = both["label"].to_numpy() >= relevant
    rows = []
    for group, member in zip(GROUPS, (same, ~same, np.ones(len(both), dtype=bool)),
                             strict=True):
        p, j = people_yes[member], judge_yes[member]
        table = np.array([[np.sum(~p & ~j), np.sum(~p & j)], [np.sum(p & ~j), np.sum(p & j)]])
        rows.append((group, int(member.sum()), int(np.sum(p == j)),
                     float(kappa_from_tables(table[None])[0])))
    frame = pd.DataFrame(rows, columns=["group", "n", "agree", "kappa"])
    n, k = frame["n"].to_numpy(), frame["agree"].to_numpy()
    frame["agreement"] = np.where(n > 0, k / np.where(n > 0, n, 1), np.nan)
    frame["low"], frame["high"] = wilson(k, n, confidence)
    return frame[["group", "n", "agree", "agreement", "low", "high", "kappa"]]
