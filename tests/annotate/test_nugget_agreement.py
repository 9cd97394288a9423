"""Agreement on nugget assignments: weighted kappa equals scikit-learn's, alpha equals
``krippendorff.alpha`` (ordinal), overall and per topic, on the doubly-assessed cells."""

from __future__ import annotations

import krippendorff
import numpy as np
import pandas as pd
import pytest
from pooljudge.annotate.nugget_agreement import assignment_agreement
from pooljudge.annotate.records import NUGGET_LABELS
from sklearn.metrics import cohen_kappa_score


def _cells(seed: int) -> pd.DataFrame:
    """Three assessors; a and b share most cells (b agrees with a 70% of the time), c labels a
    few; some cells have one label only."""
    rng = np.random.default_rng(seed)
    rows = []
    for t in range(5):
        for answer in range(3):
            for nugget in range(4):
                cell = (f"A{t}.{answer}", f"t{t}", f"n{t}.{nugget}")
                first = int(rng.integers(3))
                rows.append((*cell, "a", NUGGET_LABELS[first]))
                if rng.random() < 0.8:
                    second = first if rng.random() < 0.7 else int(rng.integers(3))
                    rows.append((*cell, "b", NUGGET_LABELS[second]))
                if rng.random() < 0.2:
                    rows.append((*cell, "c", NUGGET_LABELS[int(rng.integers(3))]))
    return pd.DataFrame(rows, columns=["answer", "topic", "nugget", "assessor", "label"])


def _shared(cells: pd.DataFrame, a: str, b: str) -> pd.DataFrame:
    wide = cells.pivot_table(index=["topic", "answer", "nugget"], columns="assessor",
                             values="label", aggfunc="first")
    code = {label: i for i, label in enumerate(NUGGET_LABELS)}
    return wide[[a, b]].dropna().apply(lambda c: c.map(code)).reset_index()


def _alpha(cells: pd.DataFrame) -> float:
    code = {label: i for i, label in enumerate(NUGGET_LABELS)}
    wide = cells.assign(code=cells["label"].map(code)).pivot_table(
        index="assessor", columns=["answer", "nugget"], values="code", aggfunc="first")
    return krippendorff.alpha(reliability_data=wide.to_numpy(dtype=float),
                              level_of_measurement="ordinal", value_domain=[0, 1, 2])


@pytest.mark.parametrize("seed", range(4))
def test_weighted_kappa_and_alpha_equal_the_reference_libraries(seed):
    cells = _cells(seed)
    report = assignment_agreement(cells, per_topic=True, spec=None)
    pairs = report.pairs.set_index(["a", "b"])
    for a, b in (("a", "b"), ("a", "c"), ("b", "c")):
        shared = _shared(cells, a, b)
        expected = cohen_kappa_score(shared[a], shared[b], weights="linear", labels=[0, 1, 2])
        assert pairs.loc[(a, b), "n"] == len(shared)
        assert float(pairs.loc[(a, b), "weighted_kappa_linear"]) == pytest.approx(expected)
    assert report.overall["krippendorff_alpha_ordinal"] == pytest.approx(_alpha(cells))
    per_topic = report.per_topic_pairs.set_index(["topic", "a", "b"])
    topics = report.per_topic_overall.set_index("topic")
    for topic, group in cells.groupby("topic"):
        shared = _shared(group, "a", "b")
        expected = cohen_kappa_score(shared["a"], shared["b"], weights="linear",
                                     labels=[0, 1, 2])
        assert float(per_topic.loc[(topic, "a", "b"), "weighted_kappa_linear"]) == \
            pytest.approx(expected)
        assert float(topics.loc[topic, "krippendorff_alpha_ordinal"]) == \
            pytest.approx(_alpha(group))
