"""``pooljudge pool`` end to end, including bad input, and ``pool --sample DESIGN``: the sampled
pool file, its reproducibility, ``--stats``, and the option combinations it refuses."""

from __future__ import annotations

import random

import pytest
from pooljudge.pooling.sampling import SAMPLED_POOL

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


@pytest.fixture
def sample_runs(tmp_path, kit):
    return [str(path) for path in kit.tied_run_files(tmp_path / "runs", 9, 4)]


def _sample(sample_runs, out, *extra):
    return main(["pool", *sample_runs, "--depth", "8", "--sample", "strata(3:1.0,8:0.5)",
                 "-o", str(out), *extra])


def test_same_seed_gives_identical_bytes_and_another_seed_another_sample(tmp_path, sample_runs):
    paths = [tmp_path / f"pool{i}.tsv" for i in range(3)]
    for path, seed in zip(paths, ("5", "5", "6"), strict=True):
        assert _sample(sample_runs, path, "--seed", seed) == 0
    assert paths[0].read_bytes() == paths[1].read_bytes()
    assert paths[0].read_bytes() != paths[2].read_bytes()


def test_the_file_lists_the_whole_pool_with_its_probabilities(tmp_path, sample_runs):
    out, full = tmp_path / "pool.tsv", tmp_path / "full.tsv"
    assert _sample(sample_runs, out, "--budget", "40") == 0
    assert main(["pool", *sample_runs, "--depth", "8", "-o", str(full)]) == 0
    assert out.read_text(encoding="utf-8").splitlines()[0].split("\t") == list(SAMPLED_POOL)
    sample = read_pool(out)
    assert sample["sampled"].sum() == 40
    assert sorted(zip(sample["topic"], sample["doc"], strict=True)) == sorted(
        zip(*(read_pool(full)[c] for c in ("topic", "doc")), strict=True))
    assert set(sample["stratum"]) == {1, 2}
    assert (sample.groupby(["topic", "stratum"])["inclusion"].nunique() == 1).all()
    assert _sample(sample_runs, out) == 0  # without a budget, the rates themselves
    sample = read_pool(out)
    assert (sample.loc[sample["best_rank"] <= 3, "inclusion"] == 1.0).all()
    for _, group in sample.groupby("topic"):
        assert group["order"].tolist() == list(range(1, len(group) + 1))
        assert group["sampled"].tolist() == sorted(group["sampled"], reverse=True)


def test_stats_print_population_sample_and_pi_per_stratum(tmp_path, sample_runs, capsys):
    assert _sample(sample_runs, tmp_path / "pool.tsv", "--stats") == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("sampled pool: strata(3:1.0,8:0.5), seed 0: ")
    assert lines[1].split() == ["stratum", "ranks", "population", "sampled", "pi_min",
                                "pi_mean", "pi_max"]
    assert [line.split()[:2] for line in lines[2:]] == [["1", "1-3"], ["2", "4-8"]]


def test_depth_is_the_default_of_a_design_without_one(tmp_path, sample_runs):
    out = tmp_path / "pool.tsv"
    assert main(["pool", *sample_runs, "--depth", "4", "--sample", "pps(rate=0.5)",
                 "-o", str(out)]) == 0
    assert read_pool(out)["best_rank"].max() <= 4


def test_a_budget_over_the_pool_samples_everything_with_a_warning(tmp_path, sample_runs, capsys):
    out = tmp_path / "pool.tsv"
    assert _sample(sample_runs, out, "--budget", "100000") == 0
    assert "covers the whole pool" in capsys.readouterr().err
    assert read_pool(out)["sampled"].all()


@pytest.mark.parametrize(("extra", "message"), [
    (["--sample", "uniform(rate=2)"], "--sample: sampling design uniform(rate=2): a rate must "
     "be a number in (0, 1], got '2'"),
    (["--sample", "strata(10:1.0,20:0.1)", "--depth", "8"],
     "--depth 8 disagrees with --sample strata(10:1.0,20:0.1), of depth 20"),
    (["--sample", "uniform"], "needs rate=R or a budget"),
    (["--sample", "uniform", "--budget", "2"], "budget of 2 pairs is too small"),
    (["--sample", "uniform(rate=0.5)", "--floor", "2"],
     "--floor does not apply to --sample: to judge every run's top 2, give that stratum rate 1, "
     "e.g. strata(2:1.0,100:0.1)"),
    (["--sample", "uniform(rate=0.5)", "--exclude", "q"], "--exclude does not apply to --sample"),
    (["--sample", "uniform(rate=0.5)", "--strategy", "maxmean"], "one static --strategy"),
    (["--sample", "uniform(rate=0.5)", "--strategy", "rrf", "--strategy", "borda"],
     "one static --strategy"),
    (["--sample", "uniform(rate=0.5)", "--plot", "x.png"], "unrecognized arguments: --plot"),
])
def test_usage_errors_are_one_line_exit_2_and_write_nothing(tmp_path, sample_runs, capsys, extra,
                                                           message):
    out = tmp_path / "pool.tsv"
    assert main(["pool", *sample_runs, "-o", str(out), *extra]) == 2
    error = capsys.readouterr().err
    assert message in error and len(error.strip().splitlines()) == 1
    assert not out.exists()


def test_simulate_with_sample_refuses_a_strategy(sample_runs, capsys):
    assert main(["simulate", "designs", sample_runs[0], sample_runs[1], "--sample", "uniform",
                 "--strategy", "rrf"]) == 2
    assert "unrecognized arguments: --strategy rrf" in capsys.readouterr().err


def test_a_sampled_order_follows_the_strategy(tmp_path, sample_runs):
    out = tmp_path / "pool.tsv"
    assert _sample(sample_runs, out, "--strategy", "docid", "--seed", "3") == 0
    sample = read_pool(out)
    for _, group in sample.groupby("topic"):
        sampled = group.loc[group["sampled"] == 1].sort_values("order")
        assert sampled["doc"].tolist() == sorted(sampled["doc"], key=str.encode)
