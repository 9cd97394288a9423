"""benchmarks/bias_corrections.py: its deletions, its jackknife against the package's own
delete-one influences, its summary, and one short run on robust03 (no claim on the figures)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest
from pooljudge.metrics.linearised import influence
from pooljudge.metrics.registry import parse

from tests.metrics.test_linearised import _case
from tests.support.benchmarks import load_benchmark


@pytest.fixture(scope="module")
def bench():
    return load_benchmark("bias_corrections")


@pytest.mark.parametrize("seed", [1, 2])
def test_each_deletion_reweights_the_rest_of_its_cell(bench, seed):
    """Every judged row of π < 1 in a cell with two or more is deleted exactly once, in the
    replicate of its position within its topic; there the rest of its cell weighs n/(n − 1)
    and every other row keeps its weight. Rows of π = 1 are never deleted."""
    _, p = _case(seed)
    weights, rows, replicate, factor = bench.deletions(p)
    eligible = p.judged & (p.inclusion < 1.0)
    n = p.per_cell(eligible.astype(float))
    assert sorted(rows) == sorted(np.flatnonzero(eligible & (n[p.cell] > 1)))
    for d, j, f in zip(rows, replicate, factor, strict=True):
        cell = p.cell == p.cell[d]
        expected = np.where(cell & eligible, n[p.cell[d]] / (n[p.cell[d]] - 1), p.weight)
        expected[d] = 0.0
        topic = p.topic == p.topic[d]
        np.testing.assert_array_equal(weights[j][topic], expected[topic])
        assert f == pytest.approx((n[p.cell[d]] - 1) / n[p.cell[d]])
    assert np.all(weights[:, p.inclusion == 1.0] == p.weight[p.inclusion == 1.0])


@pytest.mark.parametrize("name, tolerance", [("infNDCG", 1e-12), ("xinfAP", 1e-5)])
@pytest.mark.parametrize("seed", [1, 2])
def test_jackknife_by_brute_force_equals_the_package_influences(bench, name, tolerance, seed):
    """For xinfAP and infNDCG the package's delete-one influence already reweights the cell
    (pooljudge.metrics.linearised), so θ̃ = θ̂ + Σ ((n_c − 1)/n_c) z_d over the deleted rows must
    equal the
    script's brute force (xinfAP up to its ε = 1e-5 smoothing of the counts it reweights)."""
    r, p = _case(seed)
    m = parse(name)
    theta = m.spec.compute(r, m)
    deleted = bench.deletions(p)
    _, rows, _, factor = deleted
    z = influence(r, m)
    by_hand = theta + np.bincount(p.topic[rows], weights=factor * z[rows],
                                  minlength=len(theta))
    np.testing.assert_allclose(bench.jackknifed(r, m, theta, p, deleted), by_hand, rtol=0,
                               atol=tolerance)
    assert not np.allclose(by_hand, theta)  # the correction is not empty


def test_no_deletion_leaves_the_estimate(bench):
    """A sample judged whole (π = 1 everywhere) has nothing to delete: θ̃ = θ̂."""
    r, p = _case(3)
    whole = dataclasses.replace(p, inclusion=np.ones_like(p.inclusion), _cache={})
    r = dataclasses.replace(r, prels=whole, _cache={})
    m = parse("statAP")
    theta = m.spec.compute(r, m)
    deleted = bench.deletions(whole)
    assert len(deleted[1]) == 0
    np.testing.assert_array_equal(bench.jackknifed(r, m, theta, whole, deleted), theta)


def test_summary_counts_the_runs_within_three_se(bench):
    """Two runs, four draws: run 0 unbiased, run 1 off by far more than 3 SE."""
    truth = np.array([0.5, 0.5])
    plain = np.array([[0.49, 0.60], [0.51, 0.61], [0.50, 0.60], [0.50, 0.61]])
    fixed = np.array([[0.50, 0.50], [0.50, 0.50], [0.49, 0.51], [0.51, 0.49]])
    plain_line, fixed_line = bench.summary(truth, plain, fixed)
    assert "within 3 SE  1/2" in plain_line and "within 3 SE  2/2" in fixed_line
    assert "RMSE/plain 1.00-1.00" in plain_line


def test_a_short_run_on_robust03(bench, shared_data: Path, capsys):
    assert bench.main(["--data", str(shared_data), "--draws", "2", "--designs", "strata",
                       "--estimators", "xinfAP"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("strata(10:1.0,100:") and lines[0].endswith("2 draws (seed 7)")
    assert lines[1].strip() == "xinfAP"
    assert lines[2].split()[0] == "plain" and lines[3].split()[0] == "jackknife"


def test_one_draw_is_refused(bench, capsys):
    with pytest.raises(SystemExit) as stop:
        bench.main(["--data", "/nonexistent", "--draws", "1"])
    assert stop.value.code == 2 and "at least 2" in capsys.readouterr().err
