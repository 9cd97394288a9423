"""Rank correlations with bootstrap intervals: tau_AP-b and tau_GAP against autojudge-evaluate's
own ``pyircore.tauap_b`` and ``tau_gap`` (installed by ``make test``) and against loop-based
transcriptions of their definitions, tau-b against scipy, tau_AP against the existing orderings'
tau_AP, and the coverage of the bootstrap interval in simulation."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from pooljudge.metrics import correlate as point
from pooljudge.metrics.meta_eval import (
    bootstrap,
    kendall_tau_b,
    tau_ap,
    tau_ap_b,
    tau_gap,
    top_k_tau,
)
from scipy import stats


def _reference_tauap_b_one_way(x, y):
    """pyircore's ``tauap_b_ties`` with ``decreasing=True``, as loops over ranks."""
    x, y = -np.asarray(x, float), -np.asarray(y, float)
    rx = stats.rankdata(x)
    ry = stats.rankdata(y, "ordinal")
    p = stats.rankdata(y, "min") - 1
    total, used = 0.0, 0
    for i in range(len(p)):
        if p[i] == 0:
            continue
        used += 1
        above = 0
        for j in range(len(p)):
            if p[j] < p[i] and np.sign(rx[i] - rx[j]) == np.sign(ry[i] - ry[j]):
                above += 1
        total += above / p[i]
    return 0.0 if used == 0 else 2 / used * total - 1


def _reference_tauap_b(x, y):
    return (_reference_tauap_b_one_way(x, y) + _reference_tauap_b_one_way(y, x)) / 2


def _reference_tau_gap(truth, predicted):
    """Gao & Oard's tau_GAP as loops; the predicted order breaks ties by position."""
    n = len(truth)
    order = sorted(range(n), key=lambda k: (-predicted[k], k))
    total, used = 0.0, 0
    for i in range(1, n):
        gaps = correct = 0.0
        for j in range(i):
            g = abs(truth[order[j]] - truth[order[i]])
            gaps += g
            if truth[order[j]] > truth[order[i]]:
                correct += g
        if gaps > 0:
            total += correct / gaps
            used += 1
    return float("nan") if used == 0 else 2.0 / used * total - 1.0


def _vectors_with_ties(rng, count=100):
    for _ in range(count):
        n = int(rng.integers(3, 25))
        levels = int(rng.integers(2, n + 2))  # few levels: many ties
        yield (rng.integers(0, levels, n) / levels, rng.integers(0, levels, n) / levels)


def test_tau_ap_b_and_tau_gap_equal_the_loop_references_on_100_vectors_with_ties():
    pairs = list(_vectors_with_ties(np.random.default_rng(11)))
    assert sum(len(set(a)) < len(a) for a, _ in pairs) > 90
    for a, b in pairs:
        assert tau_ap_b(a, b) == pytest.approx(_reference_tauap_b(a, b), abs=1e-12)
        expected = _reference_tau_gap(list(a), list(b))
        got = float(tau_gap(a, b))
        assert (np.isnan(got) and np.isnan(expected)) or got == pytest.approx(expected,
                                                                              abs=1e-12)
    # vectorised over replicates: the same numbers row by row
    a = np.array([p[0][:3] for p in pairs])
    b = np.array([p[1][:3] for p in pairs])
    expected = [_reference_tauap_b(x, y) for x, y in zip(a, b, strict=True)]
    assert np.allclose(tau_ap_b(a, b), expected, atol=1e-12, rtol=0)


@pytest.fixture(scope="module")
def autojudge_evaluate():
    """autojudge-evaluate's ``pyircore`` and ``tau_gap`` modules, loaded from their files: the
    package is installed without its dependencies (``make test``), and its ``__init__`` imports
    its command line, which needs them."""
    from importlib import metadata, util

    def load(name):
        path = metadata.distribution("autojudge-evaluate").locate_file(
            f"autojudge_evaluate/{name}.py")
        spec = util.spec_from_file_location(f"autojudge_evaluate_{name}", path)
        module = util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module

    return load("pyircore"), load("tau_gap")


def test_tau_ap_b_and_tau_gap_equal_autojudge_evaluates_on_100_vectors_with_ties(
        autojudge_evaluate):
    pyircore, gap = autojudge_evaluate
    pairs = list(_vectors_with_ties(np.random.default_rng(23)))
    assert sum(len(set(a)) < len(a) for a, _ in pairs) > 90
    for a, b in pairs:
        assert tau_ap_b(a, b) == pytest.approx(pyircore.tauap_b(a, b), abs=1e-12)
        expected, got = gap.tau_gap(list(a), list(b)), float(tau_gap(a, b))
        assert (np.isnan(got) and np.isnan(expected)) or got == pytest.approx(expected,
                                                                              abs=1e-12)


def test_kendall_tau_b_equals_scipy_and_tau_ap_the_ordering_form():
    rng = np.random.default_rng(2)
    for a, b in _vectors_with_ties(rng, 50):
        expected = stats.kendalltau(a, b).statistic
        assert float(kendall_tau_b(a, b)) == pytest.approx(expected, nan_ok=True, abs=1e-12)
        a, b = rng.permutation(len(a)) * 1.0, rng.permutation(len(a)) * 1.0
        names = [f"r{i:02d}" for i in range(len(a))]
        expected = point.tau_ap(point.ordering(pd.Series(a, index=names)),
                                point.ordering(pd.Series(b, index=names)))
        assert float(tau_ap(a, b)) == pytest.approx(expected, abs=1e-12)


def test_top_k_tau_only_looks_at_the_reference_top():
    a = np.arange(10.0)[::-1]  # system 0 best
    b = a.copy()
    b[[8, 9]] = b[[9, 8]]  # a swap at the bottom
    assert float(top_k_tau(a, b, k=5)) == 1.0 and float(kendall_tau_b(a, b)) < 1.0
    b[[0, 1]] = b[[1, 0]]
    assert float(top_k_tau(a, b, k=5)) < 1.0


def test_bootstrap_interval_contains_the_point_and_is_seeded():
    rng = np.random.default_rng(4)
    per_a = rng.normal(np.linspace(0, 1, 8), 0.5, size=(30, 8))
    per_b = per_a + rng.normal(0, 0.3, size=per_a.shape)
    one = bootstrap(per_a, per_b, replicates=300, seed=5)
    assert one == bootstrap(per_a, per_b, replicates=300, seed=5)
    assert one != bootstrap(per_a, per_b, replicates=300, seed=6)
    for name, (value, low, high) in one.items():
        assert low <= value <= high, name


def test_simulated_coverage_of_the_bootstrap_tau_interval():
    """Population: system means mu under A and nu under B (their tau-b is the truth); each
    draw samples 50 topics, per-topic scores = mean + topic effect + noise, and checks whether
    the 95% bootstrap interval of tau-b covers the true tau."""
    rng = np.random.default_rng(2026)
    draws, topics, systems, replicates = 500, 50, 8, 400
    mu = np.linspace(0.2, 0.6, systems)
    nu = mu + rng.normal(0, 0.05, systems)
    truth = float(kendall_tau_b(mu, nu))
    effect = rng.normal(0, 0.1, (draws, topics, 1))
    noise = rng.normal(0, 0.15, (2, draws, topics, systems))
    per_a, per_b = mu + effect + noise[0], nu + effect + noise[1]
    rows = rng.integers(0, topics, (draws, replicates, topics))
    take = np.arange(draws)[:, None, None]
    boot_a = per_a[take, rows].mean(axis=2)
    boot_b = per_b[take, rows].mean(axis=2)
    taus = kendall_tau_b(boot_a, boot_b)
    low, high = np.nanpercentile(taus, [2.5, 97.5], axis=1)
    coverage = float(np.mean((low <= truth) & (truth <= high)))
    assert coverage >= 0.93, coverage


def test_correlate_cli_gives_every_coefficient_with_an_interval(tmp_path, capsys):
    import json

    from pooljudge.cli import main

    rng = np.random.default_rng(8)
    topics, docs = 12, 20
    for side in "ab":
        lines = [f"{t} 0 d{d} {int(rng.random() < 0.3 + 0.02 * d)}" for t in range(topics)
                 for d in range(docs)]
        (tmp_path / f"{side}.qrels").write_text("\n".join(lines) + "\n")
    for r in range(6):
        lines = [f"{t} Q0 d{d} {i + 1} {10 - i} r{r}" for t in range(topics)
                 for i, d in enumerate(rng.permutation(docs)[:10])]
        (tmp_path / f"r{r}").write_text("\n".join(lines) + "\n")
    args = ["correlate", str(tmp_path / "a.qrels"), str(tmp_path / "b.qrels"),
            *(str(tmp_path / f"r{r}") for r in range(6)), "-m", "P@10", "--format", "json",
            "--bootstrap", "200", "--seed", "3", "--top-k", "4"]
    assert main(args) == 0
    summary, = json.loads(capsys.readouterr().out)["summary"]
    for name in ("kendall_tau", "tau_ap", "tau_ap_b", "tau_gap", "top_k_tau"):
        value, low, high = summary[name], summary[f"{name}_low"], summary[f"{name}_high"]
        assert -1 <= low <= high <= 1 and low <= value <= high, name
    assert main(args) == 0
    assert json.loads(capsys.readouterr().out)["summary"] == [summary]
    assert main([*args, "--bootstrap", "0"]) == 0
    bare, = json.loads(capsys.readouterr().out)["summary"]
    assert not [k for k in bare if k.endswith(("_low", "_high"))]
    assert bare["tau_gap"] == summary["tau_gap"]
