"""benchmarks/sampled_speed.py: the steps it times and how it prints the ratios (no timing)."""

from __future__ import annotations

import sys

import pytest

from tests.support.benchmarks import load_benchmark


@pytest.fixture(scope="module")
def bench():
    return load_benchmark("sampled_speed")


def test_every_design_is_sampled_and_estimated_with_and_without_se(bench, tmp_path):
    inputs = (tmp_path / "p", tmp_path / "q", tmp_path / "i")
    tools = bench.steps(["a.gz", "b.gz"], tmp_path, inputs, tmp_path / "s.py")
    assert list(tools) == ["pool pps", "pool strata", "pool uniform", "estimate",
                           "estimate --se", "estimate --se table", "infAP",
                           "infAP pytrec_eval"]
    assert tools["pool strata"][tools["pool strata"].index("--sample") + 1] == \
        "strata(10:1.0,30:0.5,100:0.1)"
    assert tools["estimate --se"] == [*tools["estimate"], "--se"]
    assert tools["estimate --se table"] == [*tools["estimate"][:-2], "--se"]
    assert tools["estimate"][-2:] == ["--format", "tsv"]
    assert tools["infAP pytrec_eval"] == [sys.executable, str(tmp_path / "s.py"),
                                          str(tmp_path / "i"), "a.gz", "b.gz"]
    both = bench.with_baseline(tools, "/old")
    assert both["estimate @baseline"] == ["env", "PYTHONPATH=/old", *tools["estimate"]]
    assert "infAP pytrec_eval @baseline" not in both


def test_the_goal_and_the_ratios_are_printed(bench, capsys):
    results = {"pool pps": (0.5, 0.4, 200.0), "estimate": (1.0, 0.8, 190.0),
               "estimate --se": (1.5, 1.4, 230.0), "estimate --se table": (1.6, 1.5, 230.0),
               "infAP": (1.0, 1.0, 200.0),
               "infAP pytrec_eval": (4.0, 2.0, 170.0), "estimate @baseline": (2.0, 1.6, 180.0)}
    bench.report(results, 3)
    out = capsys.readouterr().out
    assert "infAP pooljudge / pytrec_eval: 0.25, 0.50" in out
    assert "estimate now / before: 0.50, 0.50" in out
    assert "pool pps + estimate: 1.50 s wall, 0.75 of the 2 s goal" in out
    assert "pool pps + estimate --se: 2.00 s wall, 1.00 of the 2 s goal" in out
    assert "pool pps + estimate --se table: 2.10 s wall, 1.05 of the 2 s goal" in out
