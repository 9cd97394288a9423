"""The paired judge-A-versus-judge-B test (:func:`pooljudge.metrics.meta_eval.paired_judges`):
its values, its interval, its size under the null in simulation and its power."""

from __future__ import annotations

import numpy as np
import pytest
from pooljudge.metrics.meta_eval import COEFFICIENTS, kendall_tau_b, paired_judges


def _judges(rng, topics: int, systems: int, noise_a: float, noise_b: float):
    """People's per-topic scores (system means + topic effect + noise) and two judges' scores:
    people's plus independent noise of the given spreads."""
    mu = np.linspace(0.2, 0.6, systems)
    ref = mu + rng.normal(0, 0.1, (topics, 1)) + rng.normal(0, 0.15, (topics, systems))
    return (ref, ref + rng.normal(0, noise_a, ref.shape),
            ref + rng.normal(0, noise_b, ref.shape))


def test_values_interval_and_seed():
    ref, a, b = _judges(np.random.default_rng(1), 40, 8, 0.1, 0.4)
    found = paired_judges(ref, a, b, replicates=300, seed=3)
    assert found == paired_judges(ref, a, b, replicates=300, seed=3)
    assert set(found) == set(COEFFICIENTS)
    c_a, c_b, d, low, high, p = found["kendall_tau"]
    assert c_a == pytest.approx(float(kendall_tau_b(ref.mean(0), a.mean(0))))
    assert c_b == pytest.approx(float(kendall_tau_b(ref.mean(0), b.mean(0))))
    assert d == pytest.approx(c_a - c_b) and low <= d <= high and 0 < p <= 1


def test_identical_judges_give_p_one_and_a_zero_interval():
    ref, a, _ = _judges(np.random.default_rng(2), 30, 6, 0.2, 0.2)
    for c_a, c_b, d, low, high, p in paired_judges(ref, a, a.copy(), replicates=200).values():
        assert (d, low, high, p) == (0.0, 0.0, 0.0, 1.0) and c_a == c_b


def test_size_under_the_null_in_simulation():
    """H0 true (both judges add noise of the same spread to people's scores): at 5% the test
    rejects in 5% ± 2% of 1200 draws (binomial SE 0.6%), for every coefficient. The slowest
    test here: about 20 s on one free core (100 randomisations per draw, 20 systems)."""
    rng = np.random.default_rng(2026)
    draws = 1200
    rejected = {name: 0 for name in COEFFICIENTS}
    for _ in range(draws):
        ref, a, b = _judges(rng, 50, 20, 0.25, 0.25)
        found = paired_judges(ref, a, b, replicates=100, seed=int(rng.integers(2**31)))
        for name, values in found.items():
            rejected[name] += values[5] <= 0.05
    rates = {name: count / draws for name, count in rejected.items()}
    assert all(0.03 <= rate <= 0.07 for rate in rates.values()), rates


def test_power_when_one_judge_is_noisier():
    rng = np.random.default_rng(7)
    draws = 60
    rejected = 0
    for _ in range(draws):
        ref, a, b = _judges(rng, 50, 12, 0.05, 0.6)
        _, _, d, _, _, p = paired_judges(
            ref, a, b, replicates=200, seed=int(rng.integers(2**31)))["kendall_tau"]
        rejected += p <= 0.05 and d > 0
    assert rejected / draws >= 0.8


def _collection(tmp_path, topics: int = 12, runs: int = 5):
    """Run r retrieves, on every topic, r relevant documents (under people) then non-relevant
    ones; judge ``same`` copies people, judge ``flipped`` calls relevant the other documents."""
    people, flipped, files = [], [], []
    for t in range(topics):
        for d in range(10):
            people.append(f"{t} 0 d{d} {int(d < 5)}")
            flipped.append(f"{t} 0 d{d} {int(d >= 5)}")
    for r in range(runs):
        docs = [f"d{d}" for d in range(r)] + [f"d{d}" for d in range(5, 10 - r)]
        lines = [f"{t} Q0 {doc} {i + 1} {100 - i} run{r}" for t in range(topics)
                 for i, doc in enumerate(docs)]
        path = tmp_path / f"run{r}"
        path.write_text("\n".join(lines) + "\n")
        files.append(str(path))
    for name, rows in (("people.qrels", people), ("same.qrels", people),
                       ("flipped.qrels", flipped)):
        (tmp_path / name).write_text("\n".join(rows) + "\n")
    return files


def test_correlate_with_several_judges_prints_one_tidy_table(tmp_path, capsys):
    import json

    from pooljudge.cli import main

    runs = _collection(tmp_path)
    args = ["correlate", str(tmp_path / "people.qrels"), str(tmp_path / "same.qrels"), *runs,
            "--judge", str(tmp_path / "flipped.qrels"), "-m", "P@5", "-m", "AP",
            "--bootstrap", "200", "--format", "json"]
    assert main(args) == 0
    document = json.loads(capsys.readouterr().out)
    table = {(r["judge"], r["measure"], r["coefficient"]): r for r in document["correlations"]}
    assert len(table) == 2 * 2 * len(COEFFICIENTS)
    for measure in ("P@5", "AP"):
        same, flipped = table["same.qrels", measure, "kendall_tau"], \
            table["flipped.qrels", measure, "kendall_tau"]
        assert (same["value"], same["low"], same["high"]) == (1.0, 1.0, 1.0)
        assert flipped["value"] == pytest.approx(-1.0)
    paired = {(r["measure"], r["coefficient"]): r for r in document["paired"]}
    assert len(paired) == 2 * len(COEFFICIENTS)
    row = paired["P@5", "kendall_tau"]
    assert (row["judge_a"], row["judge_b"]) == ("same.qrels", "flipped.qrels")
    assert row["difference"] == pytest.approx(2.0) and row["low"] == pytest.approx(2.0)
    # every topic is the same here, so the randomisation's statistic saturates (any swap of
    # fewer or more than half the topics gives |d*| = 2): no power, p high (see the docs)
    assert row["p"] > 0.5
    assert main([*args[:-2], "--format", "tsv"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "judge\tmeasure\tcoefficient\tvalue\tlow\thigh" and len(lines) == 21
    assert main([*args[:-2]]) == 0
    assert "paired tests" in capsys.readouterr().out


def test_correlate_judge_given_twice_is_one_line(tmp_path, capsys):
    from pooljudge.cli import main

    runs = _collection(tmp_path, topics=3, runs=3)
    same = str(tmp_path / "same.qrels")
    assert main(["correlate", str(tmp_path / "people.qrels"), same, *runs, "--judge",
                 same]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["pooljudge: error: --judge: a qrels file is given twice"]
