"""``pooljudge correlate``: two judgment sets, the swaps between them as JSON, TSV and text."""

from __future__ import annotations

import pytest

REF = ["a", "b", "c", "d"]



def test_correlate_cli_reports_swaps_between_two_judgment_sets(tmp_path, capsys):
    import json

    from pooljudge.cli import main

    # Run x finds d1 and d2 (relevant under A); y finds d3 and d4 (relevant under B).
    (tmp_path / "a.qrels").write_text("1 0 d1 1\n1 0 d2 1\n1 0 d3 0\n1 0 d4 0\n")
    (tmp_path / "b.qrels").write_text("1 0 d1 0\n1 0 d2 0\n1 0 d3 1\n1 0 d4 1\n")
    (tmp_path / "x").write_text("1 Q0 d1 1 2 x\n1 Q0 d2 2 1 x\n")
    (tmp_path / "y").write_text("1 Q0 d3 1 2 y\n1 Q0 d4 2 1 y\n")
    (tmp_path / "z").write_text("1 Q0 d1 1 2 z\n1 Q0 d3 2 1 z\n")
    args = ["correlate", str(tmp_path / "a.qrels"), str(tmp_path / "b.qrels"),
            *(str(tmp_path / n) for n in "xyz"), "-m", "P@2"]
    assert main([*args, "--format", "json"]) == 0
    document = json.loads(capsys.readouterr().out)
    summary = document["summary"][0]
    # A: x 1.0, z 0.5, y 0.0; B: y 1.0, z 0.5, x 0.0 -> fully reversed.
    assert summary["measure"] == "P@2" and summary["swaps"] == 3
    assert summary["tau_ap"] == pytest.approx(-1.0) and summary["kendall_tau"] == pytest.approx(-1)
    assert {(s["above_in_a"], s["above_in_b"]) for s in document["swaps"]} == {
        ("x", "z"), ("x", "y"), ("z", "y")}
    assert main([*args, "--format", "tsv"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "measure\trun\tscore_a\trank_a\tscore_b\trank_b\tchange"
    assert lines[1] == "P@2\tx\t1.0\t1\t0.0\t3\t-2"
    assert main(args) == 0
    assert "pairs that swap places" in capsys.readouterr().out
