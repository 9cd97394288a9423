"""``pooljudge bias``: leave-one-run-out and leave-one-group-out tables, the same numbers as the
Python API, and bad inputs as one line."""

from __future__ import annotations

from pooljudge.metrics.bias import leave_out

from tests.metrics.test_bias import _files, _generated


def test_bias_cli_tsv_matches_the_python_api(tmp_path, capsys):
    from pooljudge.cli import main

    qrels, runs = _generated(5)
    qrels_path, paths = _files(tmp_path, qrels, runs)
    assert main(["bias", qrels_path, *paths, "--depth", "4", "-m", "AP", "-m", "P@5",
                 "--format", "tsv"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split("\t")[:4] == ["run", "left_out", "measure", "with_run"]
    header = lines[0].split("\t")
    assert {"run", "measure", "with_run", "without_run"} <= set(header)
    rows = [dict(zip(header, line.split("\t"), strict=True)) for line in lines[1:]]
    expected = leave_out(qrels, runs, 4, ["AP", "P@5"])
    assert len(rows) == len(expected)
    for row, want in zip(rows, expected.itertuples(index=False), strict=True):
        assert (row["run"], row["measure"]) == (want.run, want.measure)
        assert float(row["with_run"]) == want.with_run  # full precision in tsv
        assert float(row["without_run"]) == want.without_run


def test_bias_cli_group_map_and_bad_inputs(tmp_path, capsys):
    from pooljudge.cli import main

    qrels, runs = _generated(6, n_runs=4)
    qrels_path, paths = _files(tmp_path, qrels, runs)
    mapping = tmp_path / "groups.txt"
    mapping.write_text("".join(f"{name} {name[:5]}\n" for name in runs))
    assert main(["bias", qrels_path, *paths, "--depth", "3", "--group-map", str(mapping),
                 "--format", "json"]) == 0
    import json

    records = json.loads(capsys.readouterr().out)
    assert {r["left_out"] for r in records} == {"team0", "team1"}
    mapping.write_text(f"{next(iter(runs))} team0\n")
    assert main(["bias", qrels_path, *paths, "--depth", "3", "--group-map", str(mapping)]) == 2
    assert "no group for run(s)" in capsys.readouterr().err
    assert main(["bias", qrels_path, *paths, "--depth", "0"]) == 2
    assert "--depth: must be at least 1" in capsys.readouterr().err
    assert main(["bias", qrels_path, *paths, "--depth", "3", "-m", "Nope@3"]) == 2
    assert "unknown measure" in capsys.readouterr().err
    bad = tmp_path / "bad.qrels"
    bad.write_text("1 0 d1 1\n1 0 d2 x\n")
    out = tmp_path / "out.tsv"
    assert main(["bias", str(bad), *paths, "--depth", "3", "-o", str(out)]) == 2
    assert capsys.readouterr().err.startswith(f"pooljudge: error: {bad}:2: label is not an integer")
    assert not out.exists()
