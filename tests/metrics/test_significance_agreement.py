"""Agreement on significant differences between two judgment sets (Kutlu et al. 2018 style)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from pooljudge.metrics.significance_agreement import SUMMARY_COLUMNS, significance_agreement

TOPICS = 30


def _tidy(runs: dict[str, np.ndarray], measure: str = "AP") -> pd.DataFrame:
    return pd.DataFrame([(run, f"t{i}", measure, float(v)) for run, values in runs.items()
                         for i, v in enumerate(values)],
                        columns=["run", "topic", "measure", "value"])


def _sets():
    """Under A: y = x + .3, z = x (give or take ±.01, mean 0), w = x + .5; under B:
    y = x + .3, z = x - .3, w = x - .5."""
    rng = np.random.default_rng(1)
    x = rng.uniform(0.2, 0.4, TOPICS)
    alternate = np.where(np.arange(TOPICS) % 2 == 0, 0.01, -0.01)

    def noise():
        return rng.normal(0, 0.02, TOPICS)

    a = {"x": x, "y": x + 0.3 + noise(), "z": x + alternate, "w": x + 0.5 + noise()}
    b = {"x": x, "y": x + 0.3 + noise(), "z": x - 0.3 + noise(), "w": x - 0.5 + noise()}
    return _tidy(a), _tidy(b)


def test_categories_counts_agreement_and_kappa():
    a, b = _sets()
    pairs, summary = significance_agreement(a, b)
    keys = zip(pairs["run_1"], pairs["run_2"], strict=True)
    assert dict(zip(keys, pairs["category"], strict=True)) == {
        ("x", "y"): "both_same", ("x", "z"): "only_b", ("x", "w"): "both_opposite",
        ("y", "z"): "both_same", ("y", "w"): "both_opposite", ("z", "w"): "both_opposite"}
    assert pairs.loc[1, "p_holm_a"] == pytest.approx(1.0)
    assert list(summary.columns) == SUMMARY_COLUMNS
    row = summary.iloc[0]
    assert (row["pairs"], row["both_same"], row["both_opposite"], row["only_a"], row["only_b"],
            row["neither"]) == (6, 2, 3, 0, 1, 0)
    assert row["agreement"] == pytest.approx(2 / 6)
    # significant under A: 5 of 6, under B: 6 of 6 -> p_o = 5/6 = p_e: kappa 0
    assert row["kappa"] == pytest.approx(0.0)
    _, reverse = significance_agreement(b, a)
    assert (reverse.iloc[0]["only_a"], reverse.iloc[0]["only_b"]) == (1, 0)


def test_a_set_against_itself_agrees_fully():
    a, _ = _sets()
    pairs, summary = significance_agreement(a, a)
    assert set(pairs["category"]) == {"both_same", "neither"}
    assert summary.iloc[0]["agreement"] == 1.0 and summary.iloc[0]["kappa"] == 1.0


def test_only_common_topics_are_tested_and_measures_kept_apart():
    a, b = _sets()
    b = b[b["topic"] != "t0"]
    a2 = pd.concat([a, a.assign(measure="P@10")])
    b2 = pd.concat([b, b.assign(measure="P@10")])
    pairs, summary = significance_agreement(a2, b2)
    assert summary["measure"].tolist() == ["AP", "P@10"] and (summary["pairs"] == 6).all()
    assert len(pairs) == 12


def test_correlate_significance_option(tmp_path, capsys):
    import json

    from pooljudge.cli import main

    qrels = ["\n".join(f"{t} 0 d{d} {int(d < 5)}" for t in range(30) for d in range(10)),
             "\n".join(f"{t} 0 d{d} {int(d < 5 if t % 3 else d >= 5)}" for t in range(30)
                       for d in range(10))]
    for name, text in zip(("a.qrels", "b.qrels"), qrels, strict=True):
        (tmp_path / name).write_text(text + "\n")
    runs = []
    rng = np.random.default_rng(3)
    for r in range(4):
        lines = []
        for t in range(30):
            docs = rng.permutation(10)[: 3 + r]
            lines += [f"{t} Q0 d{d} {i + 1} {50 - i} run{r}" for i, d in enumerate(docs)]
        (tmp_path / f"run{r}").write_text("\n".join(lines) + "\n")
        runs.append(str(tmp_path / f"run{r}"))
    args = ["correlate", str(tmp_path / "a.qrels"), str(tmp_path / "b.qrels"), *runs,
            "-m", "P@5", "--bootstrap", "0", "--significance"]
    assert main([*args, "--format", "json"]) == 0
    document = json.loads(capsys.readouterr().out)
    row = document["significance"][0]
    assert row["measure"] == "P@5" and row["pairs"] == 6
    assert sum(row[c] for c in ("both_same", "both_opposite", "only_a", "only_b",
                                "neither")) == 6
    assert len(document["significance_pairs"]) == 6
    assert main(args) == 0
    assert "agreement on significant differences" in capsys.readouterr().out
    assert main([*args, "--judge", str(tmp_path / "a.qrels"), "--format", "json"]) == 0
    judged = json.loads(capsys.readouterr().out)["significance"]
    assert [r["judge"] for r in judged] == ["b.qrels", "a.qrels"]
    assert judged[1]["agreement"] == 1.0
