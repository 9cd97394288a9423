"""``pooljudge pool --sample DESIGN``: the sampled pool file, its reproducibility, ``--stats``,
and the option combinations it refuses."""

from __future__ import annotations

import pytest
from pooljudge.pooling.sampling import SAMPLED_POOL

from pooljudge.cli import main
from pooljudge.formats.trec import read_pool


@pytest.fixture
def run_files(tmp_path, kit):
    return [str(path) for path in kit.tied_run_files(tmp_path / "runs", 9, 4)]


def _sample(run_files, out, *extra):
    return main(["pool", *run_files, "--depth", "8", "--sample", "strata(3:1.0,8:0.5)",
                 "-o", str(out), *extra])


def test_same_seed_gives_identical_bytes_and_another_seed_another_sample(tmp_path, run_files):
    paths = [tmp_path / f"pool{i}.tsv" for i in range(3)]
    for path, seed in zip(paths, ("5", "5", "6"), strict=True):
        assert _sample(run_files, path, "--seed", seed) == 0
    assert paths[0].read_bytes() == paths[1].read_bytes()
    assert paths[0].read_bytes() != paths[2].read_bytes()


def test_the_file_lists_the_whole_pool_with_its_probabilities(tmp_path, run_files):
    out, full = tmp_path / "pool.tsv", tmp_path / "full.tsv"
    assert _sample(run_files, out, "--budget", "40") == 0
    assert main(["pool", *run_files, "--depth", "8", "-o", str(full)]) == 0
    assert out.read_text(encoding="utf-8").splitlines()[0].split("\t") == list(SAMPLED_POOL)
    sample = read_pool(out)
    assert sample["sampled"].sum() == 40
    assert sorted(zip(sample["topic"], sample["doc"], strict=True)) == sorted(
        zip(*(read_pool(full)[c] for c in ("topic", "doc")), strict=True))
    assert set(sample["stratum"]) == {1, 2}
    assert (sample.groupby(["topic", "stratum"])["inclusion"].nunique() == 1).all()
    assert _sample(run_files, out) == 0  # without a budget, the rates themselves
    sample = read_pool(out)
    assert (sample.loc[sample["best_rank"] <= 3, "inclusion"] == 1.0).all()
    for _, group in sample.groupby("topic"):
        assert group["order"].tolist() == list(range(1, len(group) + 1))
        assert group["sampled"].tolist() == sorted(group["sampled"], reverse=True)


def test_stats_print_population_sample_and_pi_per_stratum(tmp_path, run_files, capsys):
    assert _sample(run_files, tmp_path / "pool.tsv", "--stats") == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("sampled pool: strata(3:1.0,8:0.5), seed 0: ")
    assert lines[1].split() == ["stratum", "ranks", "population", "sampled", "pi_min",
                                "pi_mean", "pi_max"]
    assert [line.split()[:2] for line in lines[2:]] == [["1", "1-3"], ["2", "4-8"]]


def test_depth_is_the_default_of_a_design_without_one(tmp_path, run_files):
    out = tmp_path / "pool.tsv"
    assert main(["pool", *run_files, "--depth", "4", "--sample", "pps(rate=0.5)",
                 "-o", str(out)]) == 0
    assert read_pool(out)["best_rank"].max() <= 4


def test_a_budget_over_the_pool_samples_everything_with_a_warning(tmp_path, run_files, capsys):
    out = tmp_path / "pool.tsv"
    assert _sample(run_files, out, "--budget", "100000") == 0
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
def test_usage_errors_are_one_line_exit_2_and_write_nothing(tmp_path, run_files, capsys, extra,
                                                           message):
    out = tmp_path / "pool.tsv"
    assert main(["pool", *run_files, "-o", str(out), *extra]) == 2
    error = capsys.readouterr().err
    assert message in error and len(error.strip().splitlines()) == 1
    assert not out.exists()


def test_simulate_with_sample_refuses_a_strategy(run_files, capsys):
    assert main(["simulate", "designs", run_files[0], run_files[1], "--sample", "uniform",
                 "--strategy", "rrf"]) == 2
    assert "unrecognized arguments: --strategy rrf" in capsys.readouterr().err


def test_a_sampled_order_follows_the_strategy(tmp_path, run_files):
    out = tmp_path / "pool.tsv"
    assert _sample(run_files, out, "--strategy", "docid", "--seed", "3") == 0
    sample = read_pool(out)
    for _, group in sample.groupby("topic"):
        sampled = group.loc[group["sampled"] == 1].sort_values("order")
        assert sampled["doc"].tolist() == sorted(sampled["doc"], key=str.encode)
