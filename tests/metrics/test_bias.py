"""Leave-one-run-out and leave-one-group-out against independent computations (pytrec_eval)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from pooljudge.metrics.bias import BIAS_COLUMNS, group_by_prefix, leave_out

from pooljudge.errors import InputError, UsageError
from pooljudge.formats.trec import read_qrels, read_run, run_name


def _tops(runs: dict[str, pd.DataFrame], depth: int) -> dict[str, set[tuple[str, str]]]:
    """Each run's top ``depth`` pairs, ranked score descending then doc id descending."""
    tops = {}
    for name, run in runs.items():
        ranked = run.sort_values(["topic", "score", "doc"], ascending=[True, False, False])
        top = ranked.groupby("topic", sort=False).head(depth)
        tops[name] = set(zip(top["topic"], top["doc"], strict=True))
    return tops


def _independent(qrels, runs, depth, groups):
    """(with, without, unique relevant, Judged@10 without) per run, with pytrec_eval scores."""
    import pytrec_eval

    tops = _tops(runs, depth)
    labels = {(t, d): lab for t, d, lab in zip(qrels["topic"], qrels["doc"], qrels["label"],
                                               strict=True)}
    topics = sorted(set(qrels["topic"]))
    everything = set().union(*tops.values())
    out = {}
    for name, run in runs.items():
        others = set().union(*(tops[o] for o in runs if groups[o] != groups[name]))
        run_dict: dict[str, dict[str, float]] = {}
        for t, d, s in zip(run["topic"], run["doc"], run["score"], strict=True):
            run_dict.setdefault(t, {})[d] = float(s)
        scores = []
        for pool in (everything, others):
            judged: dict[str, dict[str, int]] = {}
            for t, d in pool & labels.keys():
                judged.setdefault(t, {})[d] = int(labels[(t, d)])
            evaluator = pytrec_eval.RelevanceEvaluator(judged, {"map", "P_10", "ndcg_cut_10"})
            result = evaluator.evaluate(run_dict)
            scores.append({key: np.mean([result.get(t, {}).get(key, 0.0) for t in topics])
                           for key in ("map", "P_10", "ndcg_cut_10")})
            if pool is others:
                judged_shares = []
                for t in topics:
                    ranked = sorted(run_dict.get(t, {}).items(), key=lambda x: (x[1], x[0]),
                                    reverse=True)[:10]
                    judged_shares.append(np.mean([d in judged.get(t, {}) for d, _ in ranked])
                                         if ranked else 0.0)
                scores.append(float(np.mean(judged_shares)))
        unique = {(t, d) for (t, d) in everything - others if labels.get((t, d), -1) >= 1}
        out[name] = (scores[0], scores[1], len(unique), scores[2])
    return out


def _check(table, expected):
    keys = {"AP": "map", "P@10": "P_10", "nDCG@10": "ndcg_cut_10"}
    assert list(table.columns) == BIAS_COLUMNS
    for row in table.itertuples(index=False):
        with_run, without_run, unique, judged = expected[row.run]
        key = keys[row.measure]
        assert row.with_run == pytest.approx(with_run[key], abs=1e-9), (row.run, row.measure)
        assert row.without_run == pytest.approx(without_run[key], abs=1e-9)
        assert row.difference == pytest.approx(without_run[key] - with_run[key], abs=1e-9)
        assert row.unique_relevant == unique
        assert row.judged_without == pytest.approx(judged, abs=1e-12)


def _generated(seed: int, n_runs: int = 5):
    rng = np.random.default_rng(seed)
    qrels_rows, runs = [], {}
    for t in range(6):
        for d in rng.choice(60, size=30, replace=False):
            qrels_rows.append((str(t + 1), f"doc{d:02d}", int(rng.choice([0, 0, 1, 2]))))
    for r in range(n_runs):
        rows = []
        for t in range(6 if r else 5):  # the first run skips a topic
            docs = rng.choice(60, size=25, replace=False)
            rows += [(str(t + 1), f"doc{d:02d}", float(rng.integers(0, 6))) for d in docs]
        runs[f"team{r % 2}-run{r}"] = pd.DataFrame(rows, columns=["topic", "doc", "score"])
    return pd.DataFrame(qrels_rows, columns=["topic", "doc", "label"]), runs


@pytest.mark.parametrize("seed", [0, 1])
def test_leave_one_run_out_on_generated_runs_with_ties(seed):
    qrels, runs = _generated(seed)
    table = leave_out(qrels, runs, 5, compat="9")
    assert len(table) == 3 * len(runs)
    assert (table["left_out"] == table["run"]).all()
    _check(table, _independent(qrels, runs, 5, {name: name for name in runs}))


def test_leave_one_group_out_by_prefix():
    qrels, runs = _generated(3, n_runs=6)
    groups = group_by_prefix(list(runs), 5)
    assert set(groups.values()) == {"team0", "team1"}
    table = leave_out(qrels, runs, 4, groups=groups, compat="9")
    assert set(zip(table["run"], table["left_out"], strict=True)) == set(groups.items())
    _check(table, _independent(qrels, runs, 4, groups))


def test_hand_made_case_unique_document_becomes_unjudged():
    qrels = pd.DataFrame({"topic": ["1"] * 3, "doc": ["a", "b", "c"], "label": [1, 1, 0]})
    runs = {"x": pd.DataFrame({"topic": "1", "doc": ["a", "c"], "score": [2.0, 1.0]}),
            "y": pd.DataFrame({"topic": "1", "doc": ["b", "c"], "score": [2.0, 1.0]})}
    table = leave_out(qrels, runs, 1, ["P@1"]).set_index("run")
    # Pool of both: {a, b}; without x: {b}, so x's only relevant document is unjudged, and
    # neither of x's documents (a, c) is judged any more.
    assert table.loc["x", ["with_run", "without_run", "unique_relevant", "judged_without"]
                     ].tolist() == [1.0, 0.0, 1, 0.0]
    assert table.loc["y", ["with_run", "without_run", "unique_relevant", "judged_without"]
                     ].tolist() == [1.0, 0.0, 1, 0.0]
    # Topic 1 keeps being evaluated even when leaving a run out drops its last judgment.
    lone = leave_out(qrels.iloc[[0]], {"x": runs["x"]}, 1, ["AP", "RBPResidual"])
    # Without x nothing is judged: AP 0; residual 0.2 (a) + 0.16 (c) + tail 0.8^2 = 1.
    assert lone["with_run"].tolist() == pytest.approx([1.0, 0.16 + 0.64])
    assert lone["without_run"].tolist() == pytest.approx([0.0, 1.0])


def test_run_without_group_is_rejected():
    qrels, runs = _generated(0, n_runs=2)
    with pytest.raises(InputError, match="no group for run"):
        leave_out(qrels, runs, 3, groups={"team0-run0": "a"})
    with pytest.raises(InputError, match="depth must be at least 1"):
        leave_out(qrels, runs, 0)
    with pytest.raises(UsageError, match="prefix length"):
        group_by_prefix(["a"], 0)


@pytest.mark.slow
def test_robust03_against_pytrec_eval(shared_data):
    folder = shared_data / "robust03"
    qrels = read_qrels(folder / "qrels.txt")
    runs = {run_name(p): read_run(p) for p in sorted((folder / "runs").glob("input.*.gz"))}
    table = leave_out(qrels, runs, 20, compat="9")  # pytrec_eval is trec_eval 9
    assert set(table["run"]) == set(runs) and len(runs) == 17
    _check(table, _independent(qrels, runs, 20, {name: name for name in runs}))
    assert (table["unique_relevant"] > 0).any()


def _files(tmp_path, qrels, runs):
    from pooljudge.formats.trec import write_qrels, write_run

    write_qrels(qrels, tmp_path / "qrels.txt")
    paths = []
    for name, run in runs.items():
        write_run(run.assign(tag="t"), tmp_path / name)
        paths.append(str(tmp_path / name))
    return str(tmp_path / "qrels.txt"), paths
