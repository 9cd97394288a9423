"""``pooljudge compare-policies``: rankings under every consensus policy against majority."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from pooljudge.metrics.correlate import ordering, swapped_pairs
from pooljudge.metrics.evaluate import evaluate

from pooljudge.cli import main
from pooljudge.formats.trec import read_qrels
from tests.cli.test_export_models import campaign  # noqa: F401 - the fixture


def _runs(tmp_path, judgments) -> list[str]:
    pairs = judgments[["topic", "doc"]].drop_duplicates()
    rng = np.random.default_rng(3)
    paths = []
    for r in range(5):
        frame = pairs.assign(q="Q0", rank=0, score=rng.random(len(pairs)), tag=f"r{r}")
        path = tmp_path / f"r{r}"
        frame[["topic", "q", "doc", "rank", "score", "tag"]].to_csv(
            path, sep=" ", header=False, index=False)
        paths.append(str(path))
    return paths


def test_rankings_flips_and_tau(campaign, tmp_path, capsys):  # noqa: F811
    url, judgments = campaign
    runs = _runs(tmp_path, judgments)
    status = main(["compare-policies", "--db", url, "--campaign", "c", "-m", "AP",
                   "--format", "json", *runs])
    out, err = capsys.readouterr()
    assert status == 0, err
    found = json.loads(out)
    summary = pd.DataFrame(found["summary"]).set_index("policy")
    assert list(summary.index) == ["majority", "adjudicated", "mean", "ds", "mace", "glad"]
    assert summary.loc["majority", "kendall_tau"] == pytest.approx(1.0)
    flips = pd.DataFrame(found["flips"])
    # the flips of DS are those of the orderings under the qrels export writes
    under = {}
    for policy in ("majority", "ds"):
        path = tmp_path / policy
        assert main(["export", "--db", url, "--campaign", "c", "--policy", policy,
                     "-o", str(path)]) == 0
        scores = evaluate(read_qrels(path), runs, ["AP"], per_topic=False)
        under[policy] = ordering(pd.Series(scores["value"].to_numpy(float),
                                           index=scores["run"].to_numpy()))
    expected = swapped_pairs(under["majority"], under["ds"])
    ds = flips[flips["policy"] == "ds"]
    assert list(zip(ds["above_under_majority"], ds["above_under_policy"],
                    strict=True)) == expected
    assert summary.loc["ds", "swaps"] == len(expected)
    ranks = pd.DataFrame(found["ranks"])
    assert list(ranks[ranks["measure"] == "AP"].sort_values("ds")["run"]) == under["ds"]
