"""``pooljudge.metrics.design_simulation`` and ``pooljudge simulate designs QRELS RUN... --sample
DESIGN``:
estimates from seeded draws of sampling designs against complete qrels."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest
from pooljudge.metrics.design_simulation import exact_measure, resolve_budget, simulate_designs
from pooljudge.metrics.registry import parse
from pooljudge.pooling.pool import build_pool
from pooljudge.pooling.sampling import parse_design

from pooljudge.cli import main
from pooljudge.errors import UsageError
from pooljudge.formats.trec import run_columns

QRELS = pd.DataFrame({"topic": ["1"] * 4, "doc": ["a", "b", "c", "d"], "label": [1, 0, 1, 0]})
# r1: a b c e -> AP (1 + 2/3) / 2; r2: e b a c -> AP (1/3 + 2/4) / 2; "e" has no qrels line.
RUNS = {"r1": ["a", "b", "c", "e"], "r2": ["e", "b", "a", "c"]}
EXACT_AP = {"r1": (1 + 2 / 3) / 2, "r2": (1 / 3 + 2 / 4) / 2}


def _run(docs: list[str], topic: str = "1") -> pd.DataFrame:
    return pd.DataFrame({"topic": [topic] * len(docs), "doc": docs,
                         "score": np.arange(len(docs), 0, -1, dtype=float)})


def _simulate(designs: list[str], budgets: list, *, seed: int = 0, draws: int = 5,
              measures=("statAP", "xinfAP", "statPrec@10"), runs=RUNS, qrels=QRELS):
    frames = {name: _run(docs) for name, docs in runs.items()}
    pool = build_pool(frames, 4)
    return simulate_designs(
        qrels, {n: run_columns(f, name=n) for n, f in frames.items()}, pool,
        [parse_design(d) for d in designs], budgets, draws=draws, seed=seed, measures=measures)


def test_a_design_taking_every_pair_has_no_error_and_keeps_the_ranking():
    result = _simulate(["uniform(depth=4,rate=1.0)"], [None])
    runs = result.runs.set_index(["measure", "run"])
    for name, ap in EXACT_AP.items():
        for measure in ("statAP", "xinfAP"):
            row = runs.loc[(measure, name)]
            assert row["exact"] == "AP" and row["exact_value"] == pytest.approx(ap)
            assert row["bias"] == pytest.approx(0, abs=1e-4)
            assert row["rmse"] == pytest.approx(0, abs=1e-4)
        assert runs.loc[("statPrec@10", name), "exact_value"] == pytest.approx(0.2)
    summary = result.summary.set_index("measure")
    assert set(result.summary["pairs"]) == {4}  # a b c e: "e", without qrels line, counts 0
    assert summary.loc["statAP", "tau"] == 1.0 and summary.loc["statAP", "tau_ap"] == 1.0
    assert summary.loc["statAP", "rmse"] == 0.0


def test_a_smaller_budget_has_error_and_rmse_squares_add_up():
    result = _simulate(["uniform(depth=4)"], [0.5], draws=20)
    runs = result.runs
    assert set(runs["budget"]) == {"50%"} and set(runs["pairs"]) == {2}
    assert (runs.loc[runs["measure"] == "statAP", "rmse"] > 0).all()
    assert np.allclose(runs["rmse"] ** 2, runs["bias"] ** 2 + runs["sd"] ** 2)
    assert np.allclose(runs["mean"] - runs["exact_value"], runs["bias"])


def test_the_same_seed_gives_the_same_frames_and_another_seed_others():
    first, again = (_simulate(["uniform(depth=4)"], [2], seed=3) for _ in range(2))
    other = _simulate(["uniform(depth=4)"], [2], seed=4)
    pd.testing.assert_frame_equal(first.runs, again.runs)
    pd.testing.assert_frame_equal(first.summary, again.summary)
    assert not first.runs["mean"].equals(other.runs["mean"])


def test_exact_measures_and_budgets():
    assert str(exact_measure(parse("statPrec@10"))) == "P@10"
    assert str(exact_measure(parse("xinfAP"))) == "AP"
    assert str(exact_measure(parse("statNDCG@20"))) == "nDCG@20"
    with pytest.raises(UsageError, match="not an estimator"):
        exact_measure(parse("AP"))
    assert resolve_budget(0.2, 49) == 10
    assert resolve_budget(0.001, 49) == 1
    assert resolve_budget(7, 49) == 7 and resolve_budget(None, 49) is None
    with pytest.raises(UsageError, match="--draws"):
        _simulate(["uniform(depth=4)"], [2], draws=0)


@pytest.fixture
def files(tmp_path):
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("".join(f"{t} 0 {d} {lab}\n" for t, d, lab in
                             QRELS.itertuples(index=False)), encoding="utf-8")
    runs = []
    for name, docs in RUNS.items():
        path = tmp_path / name
        path.write_text("".join(f"1 Q0 {d} {i + 1} {10 - i} {name}\n"
                                for i, d in enumerate(docs)), encoding="utf-8")
        runs.append(str(path))
    return str(qrels), runs


def test_the_command_reports_tsv_json_and_plots(tmp_path, files, capsys):
    qrels, runs = files
    base = ["simulate", "designs", qrels, *runs, "--sample", "uniform(depth=4)",
            "--sample", "strata(2:1.0,4:0.5)", "--budget", "3", "--budget", "80%",
            "--draws", "4", "--seed", "2"]
    plot = tmp_path / "rmse.png"
    assert main([*base, "--format", "tsv", "--plot", str(plot)]) == 0
    table = capsys.readouterr().out.splitlines()
    assert table[0].split("\t")[:6] == ["design", "budget", "pairs", "measure", "exact", "run"]
    assert table[0].split("\t")[-2:] == ["tau", "tau_ap"]
    assert len(table) == 1 + 2 * 2 * 3 * 2  # designs x budgets x measures x runs
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert main([*base, "--format", "json", "-m", "statAP"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert len(report["summary"]) == 4 and len(report["runs"]) == 8
    assert all(math.isfinite(row["rmse"]) for row in report["runs"])


@pytest.mark.parametrize(("extra", "message"), [
    (["--sample", "uniform(depth=4)", "--draws", "0"], "--draws"),
    (["--sample", "uniform(depth=4)", "--budget", "0%"], "--budget"),
    (["--sample", "uniform(depth=4)", "--budget", "150%"], "--budget"),
    (["--sample", "uniform(depth=4)", "--budget", "x%"], "--budget"),
    (["--sample", "uniform(depth=4)", "--sample", "uniform(depth=3)", "--budget", "2"],
     "disagree on the depth"),
    (["--sample", "uniform(depth=4)", "--depth", "3", "--budget", "2"], "disagrees"),
    (["--sample", "uniform(depth=4)", "--budget", "2", "-m", "AP"], "not an estimator"),
    (["--sample", "uniform(depth=4)", "--budget", "2", "--stats"], "unrecognized arguments"),
    (["--sample", "uniform(depth=4)", "--budget", "2", "--strategy", "rrf"],
     "unrecognized arguments"),
    (["--sample", "uniform(depth=4)", "--budget", "2", "-m", "statPrec@10", "--plot", "x.png"],
     "RMSE of MAP"),
])
def test_simulate_usage_errors(files, capsys, extra, message):
    qrels, runs = files
    assert main(["simulate", "designs", qrels, *runs, *extra]) == 2
    assert message in capsys.readouterr().err


@pytest.mark.parametrize(("extra", "message"), [
    (["--draws", "3"], "unrecognized arguments: --draws"),
    (["--format", "json"], "--format: invalid choice: 'json'"),
])
def test_simulate_orders_refuses_the_design_options(files, capsys, extra, message):
    qrels, runs = files
    assert main(["simulate", "orders", qrels, *runs, *extra]) == 2
    assert message in capsys.readouterr().err


@pytest.mark.parametrize(("extra", "message"), [
    (["--budget", "20%"], "P% is for simulate designs"),
    (["--budget", "2", "--budget", "3"], "one --budget"),
    (["--draws", "3"], "unrecognized arguments: --draws"),
    (["-m", "statAP"], "unrecognized arguments: -m"),
])
def test_pool_refuses_the_simulation_options(files, capsys, extra, message):
    assert main(["pool", *files[1], *extra]) == 2
    assert message in capsys.readouterr().err


@pytest.mark.slow
def test_robust03_gives_finite_numbers(shared_data, capsys):
    folder = shared_data / "robust03"
    runs = sorted(str(p) for p in (folder / "runs").iterdir())
    assert main(["simulate", "designs", str(folder / "qrels.txt"), *runs, "--sample",
                 "pps(prior=ap,depth=100)", "--budget", "10%", "--draws", "20",
                 "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert len(report["runs"]) == 3 * len(runs)
    for row in report["summary"]:
        assert all(math.isfinite(row[k]) for k in ("rmse", "mean_abs_bias", "tau", "tau_ap"))
        assert row["tau"] > 0.5


def test_relevant_documents_outside_the_pool_make_the_pool_gap():
    qrels = pd.concat([QRELS, pd.DataFrame({"topic": ["1"], "doc": ["z"], "label": [1]})])
    result = _simulate(["uniform(depth=4,rate=1.0)"], [None], qrels=qrels, measures=["statAP"])
    runs = result.runs.set_index("run")
    assert runs.loc["r1", "exact_value"] == pytest.approx((1 + 2 / 3) / 3)
    assert runs.loc["r1", "pool_gap"] == pytest.approx((1 + 2 / 3) / 2 - (1 + 2 / 3) / 3)
    assert np.allclose(runs["bias"], runs["pool_gap"])
    assert result.summary.loc[0, "pool_gap"] == pytest.approx(runs["pool_gap"].mean())


def test_stacked_draws_equal_draws_estimated_one_at_a_time():
    """The batch computation gives, per draw, what estimating each drawn sample on its own
    gives (three topics, one the second run lacks, strata and xinfAP's counts, nDCG)."""
    from dataclasses import replace

    from pooljudge.metrics.eval_inputs import load_qrels
    from pooljudge.metrics.join import join
    from pooljudge.metrics.prels import bind_prels
    from pooljudge.pooling.sampling import draw, plan_sample

    qrels = pd.DataFrame({"topic": ["1"] * 4 + ["2"] * 3 + ["3"] * 2,
                          "doc": list("abcd") + list("fgh") + list("jk"),
                          "label": [2, 0, 1, 0, 1, 1, 0, 0, 1]})
    frames = {"r1": pd.concat([_run(list("abcex")), _run(list("fghy"), "2"),
                               _run(list("jk"), "3")]),
              "r2": pd.concat([_run(list("ebac")), _run(list("hgf"), "2")])}
    pool = build_pool(frames, 3)
    runs = {n: run_columns(f, name=n) for n, f in frames.items()}
    measures = [parse(m) for m in ("statAP", "xinfAP", "statPrec@2", "statNDCG", "infNDCG@3")]
    design = parse_design("strata(1:1.0,3:0.5)")
    result = simulate_designs(qrels, runs, pool, [design], [None], draws=30, seed=5,
                              measures=measures).runs.set_index(["measure", "run"])
    prepared = load_qrels(qrels)
    pairs = pool.pairs[["topic", "doc"]].merge(qrels, how="left").fillna({"label": 0})
    plan = plan_sample(pool, design)
    prels = bind_prels(pairs.assign(label=pairs["label"].astype(np.int64), stratum=plan.stratum,
                                    inclusion=plan.inclusion), prepared)
    rng = np.random.default_rng([5, 0, 0])
    rankings = {n: join(prepared, r, prels=prels) for n, r in runs.items()}
    alone = {(str(m), n): [] for m in measures for n in runs}
    for _ in range(30):
        drawn = prels.reweighted(draw(plan, rng).astype(np.float64))
        for name, ranking in rankings.items():
            replica = replace(ranking, prels=drawn, _cache=dict(ranking._cache))
            for m in measures:
                alone[(str(m), name)].append(float(np.mean(m.spec.compute(replica, m))))
    for key, values in alone.items():
        assert result.loc[key, "mean"] == pytest.approx(np.mean(values), abs=1e-12), key
        assert result.loc[key, "sd"] == pytest.approx(np.std(values), abs=1e-12), key
    assert result["sd"].max() > 0  # the draws differ
