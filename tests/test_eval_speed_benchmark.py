"""benchmarks/eval_speed.py: which tools it times and how it prints their ratios (no timing)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.support.benchmarks import load_benchmark


@pytest.fixture(scope="module")
def bench():
    return load_benchmark("eval_speed")


def test_a_trec_eval_binary_is_timed_when_named(bench, monkeypatch, tmp_path):
    monkeypatch.setenv("TREC_EVAL", "/opt/te/trec_eval")
    tools = bench.commands(Path("q"), Path("r"), Path("s.py"))
    assert tools["trec_eval"] == ["/opt/te/trec_eval", "-c", "-m", "P.10", "-m", "ndcg_cut.10",
                                  "-m", "map", "-m", "recip_rank", "q", "r"]
    monkeypatch.delenv("TREC_EVAL")
    monkeypatch.setenv("PATH", str(tmp_path))  # no trec_eval on PATH
    assert list(bench.commands(Path("q"), Path("r"), Path("s.py"))) == ["pooljudge",
                                                                        "pytrec_eval"]


def test_a_baseline_runs_its_own_sources(bench, tmp_path):
    tools = bench.commands(Path("q"), Path("r"), Path("s.py"), baseline=str(tmp_path))
    assert tools["baseline"][:2] == ["env", f"PYTHONPATH={tmp_path}"]
    # -P: the working folder must not come before the baseline's folder on sys.path
    assert tools["baseline"][2:] == tools["pooljudge"]
    assert tools["pooljudge"][:4] == [sys.executable, "-P", "-m", "pooljudge"]


def test_ratios_are_printed_side_by_side(bench, capsys):
    results = {"pooljudge": (1.0, 2.0, 100.0), "pytrec_eval": (4.0, 4.0, 400.0),
               "trec_eval": (2.0, 1.0, 50.0)}
    bench.report(2_000_000, results, 3)
    lines = capsys.readouterr().out.splitlines()
    assert lines[1] == "2,000,000 run lines, 3 runs each (interleaved)"
    assert lines[-4].split() == ["pooljudge", "/", "pytrec_eval", "trec_eval"]
    assert lines[-3].split() == ["wall", "0.25", "0.50"]
    assert lines[-2].split() == ["CPU", "0.50", "2.00"]
    assert lines[-1].split() == ["peak", "memory", "0.25", "2.00"]


def test_kept_inputs_are_named_by_every_parameter(bench, tmp_path):
    """--data reuses an input only if it was generated alike: size, topics, judged, order."""
    names = {bench.input_paths(tmp_path, 2_000_000, topics, judged, order)
             for topics in (1000, 2000) for judged in (100, 200)
             for order in ("random", "ranked")}
    assert len(names) == 8 and len({path for pair in names for path in pair}) == 16


def test_generated_files_are_where_the_inputs_are_looked_for(bench, tmp_path):
    assert bench.generate(tmp_path, 40, 4, 3, order="ranked") == bench.input_paths(
        tmp_path, 40, 4, 3, "ranked")
    run = bench.input_paths(tmp_path, 40, 4, 3, "ranked")[1].read_text().splitlines()
    assert len(run) == 40 and run[0].split()[0] == "1"
