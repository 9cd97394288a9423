"""``pooljudge pool`` and ``pooljudge simulate orders`` end to end, including bad input."""

from __future__ import annotations

import random

import pytest

from pooljudge.cli import main
from pooljudge.formats.trec import read_pool


@pytest.fixture
def run_files(tmp_path, kit):
    return kit.tied_run_files(tmp_path / "runs", 9, 4)


def shuffled_copies(paths, folder, seed):
    """The same runs with their lines shuffled and gzip-free copies, in a shuffled file order."""
    rng = random.Random(seed)
    folder.mkdir()
    copies = []
    for path in paths:
        lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
        rng.shuffle(lines)
        (folder / path.name).write_text("".join(lines), encoding="utf-8")
        copies.append(str(folder / path.name))
    rng.shuffle(copies)
    return copies


@pytest.mark.parametrize("strategy", ["rrf", "take@2", "maxmean", "thompson", "mtf"])
def test_same_inputs_give_byte_identical_pool_files(tmp_path, run_files, strategy):
    outputs = []
    for i in range(3):
        paths = shuffled_copies(run_files, tmp_path / f"copy{i}", seed=i)
        out = tmp_path / f"pool{i}.tsv"
        assert main(["pool", *paths, "--depth", "7", "--strategy", strategy, "-o", str(out)]) == 0
        outputs.append(out.read_bytes())
    assert outputs[0] == outputs[1] == outputs[2]


def test_pool_file_follows_the_contract(tmp_path, run_files):
    out = tmp_path / "pool.tsv"
    assert main(["pool", *map(str, run_files), "--depth", "5", "--budget", "6", "--floor", "1",
                 "-o", str(out)]) == 0
    lines = out.read_text(encoding="utf-8").splitlines()
    assert lines[0].split("\t") == ["topic", "doc", "order", "best_rank", "runs", "n_runs"]
    pool = read_pool(out)
    assert set(pool["topic"]) == {"01", "1", "q7", "topic-b", "10"}
    for _, group in pool.groupby("topic"):
        assert sorted(group["order"]) == list(range(1, len(group) + 1))
        assert len(group) <= max(6, (group["best_rank"] == 1).sum())
    assert set(",".join(pool["runs"]).split(",")) <= {"run0", "run1", "run2", "run3"}


def test_exclude_leaves_out_judged_pairs(tmp_path, run_files):
    full, rest = tmp_path / "full.tsv", tmp_path / "rest.tsv"
    assert main(["pool", *map(str, run_files), "--depth", "4", "-o", str(full)]) == 0
    pool = read_pool(full)
    qrels = tmp_path / "qrels"
    qrels.write_text("".join(f"{t} 0 {d} 1\n" for t, d in zip(pool["topic"][::2],
                                                             pool["doc"][::2], strict=True)))
    assert main(["pool", *map(str, run_files), "--depth", "4", "--exclude", str(qrels),
                 "-o", str(rest)]) == 0
    kept = set(zip(read_pool(rest)["topic"], read_pool(rest)["doc"], strict=True))
    assert kept == set(zip(pool["topic"][1::2], pool["doc"][1::2], strict=True))


@pytest.mark.parametrize("strategy", ["rrf", "take@1", "docid", "borda", "mtf", "maxmean",
                                      "thompson"])
def test_excluding_every_pooled_pair_gives_an_empty_pool_and_says_so(tmp_path, run_files,
                                                                     strategy, capsys):
    full, rest = tmp_path / "full.tsv", tmp_path / "rest.tsv"
    assert main(["pool", *map(str, run_files), "--depth", "4", "-o", str(full)]) == 0
    pool = read_pool(full)
    qrels = tmp_path / "qrels"
    qrels.write_text("".join(f"{t} 0 {d} 1\n" for t, d in zip(pool["topic"], pool["doc"],
                                                              strict=True)))
    capsys.readouterr()
    assert main(["pool", *map(str, run_files), "--depth", "4", "--exclude", str(qrels),
                 "--strategy", strategy, "-o", str(rest)]) == 0
    assert rest.read_text().splitlines() == ["topic\tdoc\torder\tbest_rank\truns\tn_runs"]
    assert "every pooled pair is already judged" in capsys.readouterr().err


def test_stats_print_sizes_contributions_and_overlap(tmp_path, run_files, capsys):
    out = tmp_path / "pool.tsv"
    assert main(["pool", *map(str, run_files), "--depth", "3", "--stats", "-o", str(out)]) == 0
    text = capsys.readouterr().out
    assert "pool size per topic" in text and "run contributions" in text
    assert "run-to-run overlap" in text and "run3" in text


def test_stats_go_to_stderr_when_the_pool_goes_to_stdout(run_files, capsys):
    assert main(["pool", *map(str, run_files), "--depth", "2", "--stats"]) == 0
    captured = capsys.readouterr()
    assert captured.out.startswith("topic\tdoc\torder") and "pool size" in captured.err


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


def test_a_run_named_simulate_is_given_with_a_path(tmp_path, kit, monkeypatch):
    monkeypatch.chdir(tmp_path)
    kit.write_run_file(tmp_path / "simulate", kit.ranked_run("1", ["x", "y"]))
    assert main(["pool", "./simulate", "-o", "out.tsv"]) == 0
    assert set(read_pool(tmp_path / "out.tsv")["runs"]) == {"simulate"}


def test_bad_run_line_names_path_and_line_and_writes_nothing(tmp_path, run_files, capsys):
    bad = tmp_path / "bad"
    bad.write_text("1 Q0 a 1 2.0 t\n1 Q0 b 2 1.0 t\n1 Q0 c 3 high t\n", encoding="utf-8")
    out = tmp_path / "pool.tsv"
    assert main(["pool", *map(str, run_files), str(bad), "-o", str(out)]) == 2
    assert f"{bad}:3:" in capsys.readouterr().err
    assert not out.exists() and list(tmp_path.glob(".pool.tsv*")) == []


def test_failure_leaves_an_existing_pool_file_untouched(tmp_path, run_files, capsys):
    out = tmp_path / "pool.tsv"
    out.write_text("old\n")
    dup = tmp_path / "dup"
    dup.write_text("1 Q0 a 1 2.0 t\n1 Q0 a 2 1.0 t\n", encoding="utf-8")
    assert main(["pool", str(dup), "-o", str(out)]) == 2
    assert f"{dup}:2:" in capsys.readouterr().err
    assert out.read_text() == "old\n"


def test_bad_qrels_in_simulate_names_path_and_line(tmp_path, run_files, capsys):
    qrels = tmp_path / "qrels"
    qrels.write_text("1 0 a 1\n1 0 b x\n", encoding="utf-8")
    assert main(["simulate", "orders", str(qrels), *map(str, run_files)]) == 2
    assert f"{qrels}:2:" in capsys.readouterr().err


@pytest.mark.parametrize(("extra", "message"), [
    (["--depth", "0"], "--depth"),
    (["--budget", "0"], "--budget"),
    (["--floor", "-1"], "--floor"),
    (["--strategy", "nope"], "unknown strategy"),
    (["--strategy", "rrf", "--strategy", "mtf"], "one --strategy"),
    (["--strategy", "maxmean", "--budget", "5"], "static strategy"),
    (["--strategy", "rrf(k=-1)"], "--strategy"),
    (["--plot", "x.png"], "--plot"),
    (["--seed", "-2"], "--seed"),
])
def test_usage_errors_exit_2_and_write_nothing(tmp_path, run_files, capsys, extra, message):
    out = tmp_path / "pool.tsv"
    assert main(["pool", *map(str, run_files), "-o", str(out), *extra]) == 2
    assert message in capsys.readouterr().err
    assert not out.exists()


def test_repeated_run_names_are_refused(tmp_path, run_files, capsys):
    other = tmp_path / "other"
    other.mkdir()
    twin = other / run_files[0].name
    twin.write_bytes(run_files[0].read_bytes())
    assert main(["pool", str(run_files[0]), str(twin)]) == 2
    assert "two runs are named" in capsys.readouterr().err


@pytest.mark.parametrize("extra", [["--budget", "3"], ["--stats"], ["-o", "x.tsv"]])
def test_pool_options_are_refused_by_simulate(tmp_path, run_files, capsys, extra):
    assert main(["simulate", "orders", str(run_files[0]), str(run_files[1]), *extra]) == 2
    assert f"unrecognized arguments: {extra[0]}" in capsys.readouterr().err
