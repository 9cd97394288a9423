"""Sampled pools (pooljudge.pooling.sampling): designs as text, sample sizes, inclusion
probabilities
checked against 2,000 seeded draws, the file's round trip, and robust03's timing."""

from __future__ import annotations

import time

import numpy as np
import pandas as pd
import pytest
from pooljudge.pooling import build_pool
from pooljudge.pooling.sampling import (
    SAMPLED_POOL,
    Design,
    draw,
    parse_design,
    plan_sample,
    sample_pool,
    stratum_summary,
)
from pooljudge.pooling.sampling_draws import bounded_shares, largest_remainder

from pooljudge.errors import InputError
from pooljudge.formats.trec import read_pool, write_pool


@pytest.fixture
def pool(kit):
    """Topics of 6, 9 and 12 pooled documents, depth 6: r0 ranks d0.., r1 the same documents
    backwards, r2 r0's top 3 (so the first documents weigh most in a fused prior)."""
    rows: dict[str, list[tuple[str, str, float]]] = {"r0": [], "r1": [], "r2": []}
    for topic, size in (("1", 6), ("2", 9), ("10", 12)):
        names = [f"d{i}" for i in range(size)]
        rows["r0"] += kit.ranked_run(topic, names[:6])
        rows["r1"] += kit.ranked_run(topic, names[::-1][:6])
        rows["r2"] += kit.ranked_run(topic, names[:3])
    return build_pool({name: kit.run_frame(part) for name, part in rows.items()}, 6)


DESIGNS = [
    ("uniform(rate=0.3)", Design("uniform", None, 0.3)),
    ("UNIFORM( depth = 6, rate = 1 )", Design("uniform", 6, 1.0)),
    ("strata(2:1.0,4:0.5,6:0.25)", Design("strata", 6, strata=((2, 1.0), (4, 0.5), (6, 0.25)))),
    ("strata(6:0.5)", Design("strata", 6, strata=((6, 0.5),))),
    ("pps", Design("pps")),
    ("pps(prior=RRF,depth=6,rate=0.4)", Design("pps", 6, 0.4, "rrf")),
    ("pps(prior=rbp)", Design("pps", prior="rbp")),
]


@pytest.mark.parametrize(("text", "design"), DESIGNS, ids=[t for t, _ in DESIGNS])
def test_designs_parse_and_print_back(text, design):
    assert parse_design(text) == design
    assert parse_design(str(design)) == design


BAD = [
    ("", "cannot parse sampling design"),
    ("random(rate=0.1)", "unknown sampling design 'random'; known: uniform, strata, pps"),
    ("uniform@5", "takes no @cutoff"),
    ("uniform(k=1)", "no parameter 'k'; uniform takes depth, rate"),
    ("uniform(depth=0)", "depth must be a positive integer, got '0'"),
    ("uniform(depth=1.5)", "depth must be a positive integer"),
    ("uniform(rate=0)", "a rate must be a number in (0, 1], got '0'"),
    ("uniform(rate=1.5)", "a rate must be a number in (0, 1]"),
    ("uniform(rate=x)", "a rate must be a number in (0, 1]"),
    ("strata()", "give the strata as last-rank:rate"),
    ("strata(10)", "parameters are written name=value or name:value, got '10'"),
    ("strata(30:0.5,10:1.0)", "stratum bounds must increase"),
    ("strata(10:1.0,10:0.5)", "parameter 10 is given twice"),
    ("strata(x:0.5)", "a stratum bound must be a positive integer, got 'x'"),
    ("strata(10:nan)", "a rate must be a number in (0, 1]"),
    ("pps(prior=bm25)", "unknown prior 'bm25'; known: ap, rrf, rbp"),
]


@pytest.mark.parametrize(("text", "message"), BAD, ids=[t or "empty" for t, _ in BAD])
def test_bad_designs_are_one_line_input_errors(text, message):
    with pytest.raises(InputError) as raised:
        parse_design(text, source="--sample")
    assert message in str(raised.value)
    assert str(raised.value).startswith("--sample: ") and "\n" not in str(raised.value)


@pytest.mark.parametrize(("design", "budget", "message"), [
    ("uniform(depth=10,rate=0.5)", None, "needs a pool of depth 10, not 6"),
    ("strata(3:1.0)", None, "needs a pool of depth 3, not 6"),
    ("uniform", None, "needs rate=R or a budget"),
    ("pps(prior=ap)", None, "needs rate=R or a budget"),
    ("uniform", 0, "budget must be at least 1"),
    ("uniform", 2, "budget of 2 pairs is too small for this design: every topic and stratum "
     "needs one, 3 in all"),
    ("strata(2:1.0,6:0.5)", 5, "6 in all"),
])
def test_plans_that_cannot_be_made(pool, design, budget, message):
    with pytest.raises(InputError, match=message.replace("(", r"\(")):
        plan_sample(pool, parse_design(design), budget=budget)


SAMPLED = ["uniform(rate=0.3)", "strata(2:1.0,4:0.5,6:0.25)", "pps(prior=ap,rate=0.3)",
           "pps(prior=rrf,rate=0.6)", "pps(prior=rbp,rate=0.3)"]


@pytest.mark.parametrize("budget", [None, 8, 17])
@pytest.mark.parametrize("text", SAMPLED)
def test_inclusion_sums_to_the_sample_size_of_every_topic(pool, text, budget):
    sample = sample_pool(pool, parse_design(text), budget=budget, seed=3)
    assert tuple(sample.columns) == SAMPLED_POOL
    assert len(sample) == len(pool.pairs)
    per_topic = sample.groupby("topic").agg(pi=("inclusion", "sum"), n=("sampled", "sum"))
    np.testing.assert_allclose(per_topic["pi"], per_topic["n"], rtol=0, atol=1e-9)
    assert ((sample["inclusion"] > 0) & (sample["inclusion"] <= 1)).all()
    if budget is not None:
        assert sample["sampled"].sum() == budget


@pytest.mark.parametrize("text", [*SAMPLED, "pps(prior=ap,rate=0.6)"])
def test_empirical_inclusion_matches_pi_within_four_standard_errors(pool, text):
    plan = plan_sample(pool, parse_design(text), budget=None)
    rng = np.random.default_rng(20)
    draws = 2000
    hits = np.zeros(len(pool.pairs))
    for _ in range(draws):
        taken = draw(plan, rng)
        hits += taken
        np.testing.assert_array_equal(np.bincount(plan.cell, taken), plan.size)  # fixed size
    pi = plan.inclusion
    error = np.sqrt(pi * (1 - pi) / draws)
    assert (np.abs(hits / draws - pi) <= 4 * error + 1e-12).all()


def test_pps_takes_the_heavy_pairs_for_certain(pool):
    plan = plan_sample(pool, parse_design("pps(prior=ap,rate=0.6)"))
    assert (plan.inclusion == 1).any() and (plan.inclusion < 1).any()
    best = pool.pairs["best_rank"].to_numpy()  # a heavier prior, a larger π
    assert plan.inclusion[best == 1].mean() > plan.inclusion[best == 6].mean()


def test_same_seed_same_sample_other_seed_other_sample(pool):
    design = parse_design("uniform(rate=0.5)")
    first = sample_pool(pool, design, budget=None, seed=7)
    pd.testing.assert_frame_equal(first, sample_pool(pool, design, budget=None, seed=7))
    other = sample_pool(pool, design, budget=None, seed=8)
    assert not first[["topic", "doc", "sampled"]].equals(other[["topic", "doc", "sampled"]])


def test_sampled_pairs_come_first_in_judging_order(pool):
    order = np.arange(len(pool.pairs))[::-1].copy()  # reverse: the last doc of a topic first
    sample = sample_pool(pool, parse_design("uniform(rate=0.5)"), budget=None, seed=1,
                         order=order)
    assert list(pd.unique(sample["topic"])) == ["1", "2", "10"]
    for _, group in sample.groupby("topic", sort=False):
        assert group["order"].tolist() == list(range(1, len(group) + 1))
        flags = group["sampled"].tolist()
        assert flags == sorted(flags, reverse=True)
        sampled_docs = group.loc[group["sampled"] == 1, "doc"].tolist()
        assert sampled_docs == sorted(sampled_docs, reverse=True)


def test_budget_is_split_over_topics_by_largest_remainder(pool):
    # Topics of 6, 9 and 12 pairs (27): a budget of 10 has quotas 2.22, 3.33, 4.44.
    design = parse_design("uniform")
    sizes = sample_pool(pool, design, budget=10, seed=0).groupby("topic", sort=False)[
        "sampled"].sum()
    assert sizes.to_dict() == {"1": 2, "2": 3, "10": 5}
    assert sample_pool(pool, design, budget=99, seed=0)["sampled"].all()


def test_strata_follow_best_rank_and_rates(pool):
    design = parse_design("strata(2:1.0,4:0.5,6:0.1)")
    sample = sample_pool(pool, design, budget=None, seed=2)
    expected = np.searchsorted([2, 4, 6], sample["best_rank"].to_numpy()) + 1
    np.testing.assert_array_equal(sample["stratum"], expected)
    for (_, stratum), cell in sample.groupby(["topic", "stratum"]):
        size = len(cell)
        n = max(1, int(np.floor((1.0, 0.5, 0.1)[stratum - 1] * size + 0.5)))
        assert cell["sampled"].sum() == n
        np.testing.assert_allclose(cell["inclusion"], n / size)
    summary = stratum_summary(sample, design)
    assert summary["ranks"].tolist() == ["1-2", "3-4", "5-6"]
    assert summary["population"].sum() == len(sample)
    assert summary["pi_min"].iat[0] == summary["pi_max"].iat[0] == 1.0


def test_stratum_summary_needs_a_design_with_its_depth(pool):
    """A design naming no depth has no last rank to show ("1-None" before): refused."""
    design = parse_design("uniform(rate=0.5)")
    sample = sample_pool(pool, design.at_depth(pool.depth), budget=None, seed=0)
    with pytest.raises(ValueError, match="names no depth"):
        stratum_summary(sample, design)
    summary = stratum_summary(sample, design.at_depth(pool.depth))
    assert summary["ranks"].tolist() == [f"1-{pool.depth}"]


def test_budget_within_a_topic_follows_rates_times_sizes():
    shares = bounded_shares(np.array([1.0 * 2, 0.5 * 4, 0.1 * 30]), np.zeros(3, dtype=np.int64),
                            np.array([10.0]), np.ones(3), np.array([2.0, 4.0, 30.0]))
    np.testing.assert_allclose(shares, [2, 3.2, 4.8])  # 2.86 > 2: fixed at 2, 8 split 2:3
    sizes = largest_remainder(shares, np.zeros(3, dtype=np.int64), np.array([10]))
    assert sizes.tolist() == [2, 3, 5]


def test_bounded_shares_cap_at_one_and_keep_the_total():
    pi = bounded_shares(np.array([10.0, 1, 1, 1, 1, 1, 1]), np.zeros(7, dtype=np.int64),
                        np.array([3.0]), np.zeros(7), np.ones(7))
    np.testing.assert_allclose(pi, [1, *[1 / 3] * 6])


def test_an_empty_pool_gives_an_empty_sample(kit):
    empty = build_pool({"a": kit.run_frame(kit.ranked_run("1", ["x"]))}, 1,
                       exclude=pd.DataFrame({"topic": ["1"], "doc": ["x"]}))
    sample = sample_pool(empty, parse_design("uniform(rate=0.5)"), budget=None, seed=0)
    assert sample.empty and tuple(sample.columns) == SAMPLED_POOL


def test_the_pool_file_round_trips_exactly(pool, tmp_path):
    sample = sample_pool(pool, parse_design("pps(prior=rrf,rate=0.3)"), budget=None, seed=4)
    path = tmp_path / "pool.tsv"
    write_pool(sample, path)
    header = path.read_text(encoding="utf-8").splitlines()[0].split("\t")
    assert header == list(SAMPLED_POOL)
    back = read_pool(path)
    pd.testing.assert_frame_equal(back, sample, check_dtype=False)
    assert back["inclusion"].dtype == np.float64 and back["sampled"].dtype == np.int64
    assert (back["inclusion"].to_numpy() == sample["inclusion"].to_numpy()).all()


NOT_PI = "inclusion probability is not a number in (0, 1]: {!r}"
# column -> bad values; each value's message is the template filled with it
BAD_VALUES = {
    "stratum": {"0": "stratum must be at least 1: {!r}", "x": "stratum is not an integer: {!r}"},
    "inclusion": dict.fromkeys(["0", "1.5", "nan", "p"], NOT_PI),
    "sampled": dict.fromkeys(["2", ""], "sampled must be 0 or 1: {!r}"),
}
BAD_LINES = [(column, value, template.format(value))
             for column, cases in BAD_VALUES.items() for value, template in cases.items()]


@pytest.mark.parametrize(("column", "value", "message"), BAD_LINES,
                         ids=[f"{c}={v}" for c, v, _ in BAD_LINES])
def test_read_pool_names_the_line_of_a_bad_sample_field(tmp_path, column, value, message):
    good = {"topic": "1", "doc": "d", "order": "1", "best_rank": "1", "runs": "a",
            "stratum": "1", "inclusion": "0.5", "sampled": "1"}
    bad = {**good, "doc": "e", column: value}
    lines = ["\t".join(good), "\t".join(good.values()), "\t".join(bad.values())]
    path = tmp_path / "pool.tsv"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(InputError) as raised:
        read_pool(path)
    assert str(raised.value) == f"{path}:3: {message}"


def test_a_sampled_pool_needs_all_three_columns(tmp_path):
    path = tmp_path / "pool.tsv"
    path.write_text("topic\tdoc\torder\tbest_rank\truns\tinclusion\n1\td\t1\t1\ta\t0.5\n",
                    encoding="utf-8")
    with pytest.raises(InputError, match=r":1: header lacks column\(s\) stratum, sampled"):
        read_pool(path)
    frame = pd.DataFrame({"topic": ["1"], "doc": ["d"], "order": [1], "best_rank": [1],
                          "runs": ["a"], "stratum": [1], "inclusion": [0.0], "sampled": [1]})
    with pytest.raises(ValueError, match="inclusion in"):
        write_pool(frame, tmp_path / "out.tsv")
    with pytest.raises(ValueError, match="lacks columns"):
        write_pool(frame.drop(columns="sampled"), tmp_path / "out.tsv")


@pytest.mark.slow
def test_robust03_whole_pool_at_20_percent_in_under_a_second(shared_data):
    from pooljudge.formats.trec import read_run_columns, run_name

    folder = shared_data / "robust03" / "runs"
    runs = {run_name(p): read_run_columns(p) for p in sorted(folder.glob("*.gz"))}
    assert len(runs) == 17
    full = build_pool(runs, 100)
    budget = round(0.2 * len(full.pairs))
    for text in ("uniform", "strata(10:1.0,30:0.5,100:0.1)", "pps(prior=ap)"):
        start = time.perf_counter()
        sample = sample_pool(full, parse_design(text), budget=budget, seed=1)
        seconds = time.perf_counter() - start
        print(f"robust03 {text}: {budget} of {len(sample)} pairs in {seconds:.3f} s")
        assert sample["sampled"].sum() == budget and len(sample) == len(full.pairs)
        totals = sample.groupby("topic").agg(pi=("inclusion", "sum"), n=("sampled", "sum"))
        np.testing.assert_allclose(totals["pi"], totals["n"], atol=1e-8)
