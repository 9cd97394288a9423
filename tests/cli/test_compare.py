"""``pooljudge compare``: the paired tests against the Python API, with topic groups."""

from __future__ import annotations

import numpy as np
import pytest
from pooljudge.metrics.compare import compare


def test_compare_cli_against_the_api_with_topic_groups(tmp_path, capsys):
    from pooljudge import metrics
    from pooljudge.cli import main

    rng = np.random.default_rng(8)
    (tmp_path / "qrels").write_text("".join(
        f"{t} 0 d{d} {int(rng.integers(0, 2))}\n" for t in range(1, 31) for d in range(20)))
    for name in ("base", "new", "other"):
        (tmp_path / name).write_text("".join(
            f"{t} Q0 d{d} 1 {rng.uniform()} {name}\n" for t in range(1, 31) for d in range(20)))
    groups = tmp_path / "groups"
    groups.write_text("".join(f"{t} {'low' if t <= 15 else 'high'}\n" for t in range(1, 31)))
    runs = [str(tmp_path / n) for n in ("base", "new", "other")]
    assert main(["compare", str(tmp_path / "qrels"), *runs, "-m", "AP", "--baseline", "base",
                 "--topic-groups", str(groups), "--resamples", "500", "--format", "tsv"]) == 0
    captured = capsys.readouterr()
    lines = captured.out.splitlines()
    header = lines[0].split("\t")
    assert header[:4] == ["group", "measure", "baseline", "run"]
    rows = [dict(zip(header, line.split("\t"), strict=True)) for line in lines[1:]]
    assert [(r["group"], r["run"]) for r in rows] == [
        ("all", "new"), ("all", "other"), ("low", "new"), ("low", "other"), ("high", "new"),
        ("high", "other")]
    per_topic = metrics.evaluate(str(tmp_path / "qrels"), runs, ["AP"])
    expected, _ = compare(per_topic, baseline="base", n_resamples=500)
    for row, want in zip(rows[:2], expected.itertuples(index=False), strict=True):
        assert float(row["t_p"]) == want.t_p and float(row["perm_p_holm"]) == want.perm_p_holm
    low = per_topic[per_topic["topic"].isin([str(t) for t in range(1, 16)])]
    expected_low, _ = compare(low, baseline="base", n_resamples=500)
    assert float(rows[2]["run_mean"]) == pytest.approx(expected_low["run_mean"].iat[0])
    assert "group 'low': only 15 topics paired" in captured.err
    assert main(["compare", str(tmp_path / "qrels"), *runs, "--baseline", "nope"]) == 2
    assert "--baseline 'nope' is not among the runs" in capsys.readouterr().err
