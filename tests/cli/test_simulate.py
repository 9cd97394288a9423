"""``pooljudge simulate orders|designs|annotators``: the group, and the spellings before 0.1.0
(``pool simulate``, ``pool simulate --sample``, ``simulate --campaign``) answered by a one-line
pointer to the new spelling, exit 2, before anything is read. The sub-commands' own behaviour:
the tests below (orders), tests/metrics/test_design_simulation.py (designs),
tests/cli/test_simulate_annotators.py (annotators)."""

from __future__ import annotations

import pytest

from pooljudge.cli import main


@pytest.fixture
def run_files(tmp_path, kit):
    return kit.tied_run_files(tmp_path / "runs", 9, 4)


@pytest.mark.parametrize(("argv", "new"), [
    (["pool", "simulate", "q.txt", "run1"], "'pooljudge simulate orders QRELS RUN...'"),
    (["pool", "simulate", "q.txt", "run1", "--sample", "uniform"],
     "'pooljudge simulate designs QRELS RUN...'"),
    (["simulate", "--campaign", "c", "--truth", "q.txt"],
     "'pooljudge simulate annotators --campaign ...'"),
])
def test_an_old_spelling_points_to_the_new_one(tmp_path, monkeypatch, capsys, argv, new):
    monkeypatch.chdir(tmp_path)  # no file named simulate here; q.txt and run1 are never read
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.startswith("pooljudge: error: ") and err.count("\n") == 1
    assert f"is now {new}" in err


def test_a_run_file_named_simulate_is_still_pooled(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "simulate").write_text("1 Q0 a 1 2.0 s\n1 Q0 b 2 1.0 s\n", encoding="utf-8")
    assert main(["pool", "simulate", "-o", "pool.tsv"]) == 0
    assert (tmp_path / "pool.tsv").read_text(encoding="utf-8").count("\n") == 3


def test_simulate_needs_an_action(capsys):
    assert main(["simulate"]) == 2
    assert "required: ACTION" in capsys.readouterr().err


@pytest.mark.parametrize("action", ["orders", "designs", "annotators"])
def test_each_action_has_its_help(capsys, action):
    assert main(["simulate", action, "--help"]) == 0
    assert capsys.readouterr().out.startswith(f"usage: pooljudge simulate {action}")


def test_designs_needs_a_design(tmp_path, capsys):
    assert main(["simulate", "designs", "q.txt", "run1"]) == 2
    assert "required: --sample" in capsys.readouterr().err


def test_simulate_reports_and_plots(tmp_path, run_files, capsys):
    qrels = tmp_path / "qrels"
    qrels.write_text("01 0 d1 1\n1 0 d2 2\nq7 0 é1 1\ntopic-b 0 a 0\n", encoding="utf-8")
    plot = tmp_path / "curves.png"
    assert main(["simulate", "orders", str(qrels), *map(str, run_files), "--depth", "10",
                 "--strategy", "rrf", "--strategy", "mtf", "--plot", str(plot),
                 "--format", "tsv"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split("\t") == ["strategy", "found@10%", "found@20%", "found@30%",
                                    "found@50%", "needed@90%"]
    assert [line.split("\t")[0] for line in lines[1:]] == ["rrf", "mtf"]
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_bad_qrels_in_simulate_names_path_and_line(tmp_path, run_files, capsys):
    qrels = tmp_path / "qrels"
    qrels.write_text("1 0 a 1\n1 0 b x\n", encoding="utf-8")
    assert main(["simulate", "orders", str(qrels), *map(str, run_files)]) == 2
    assert f"{qrels}:2:" in capsys.readouterr().err


@pytest.mark.parametrize("extra", [["--budget", "3"], ["--stats"], ["-o", "x.tsv"]])
def test_pool_options_are_refused_by_simulate(tmp_path, run_files, capsys, extra):
    assert main(["simulate", "orders", str(run_files[0]), str(run_files[1]), *extra]) == 2
    assert f"unrecognized arguments: {extra[0]}" in capsys.readouterr().err
