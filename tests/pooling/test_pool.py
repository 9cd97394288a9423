"""Depth-k pools: membership, best rank and runs against independent computations."""

from __future__ import annotations

import math
import random
from collections import defaultdict

import numpy as np
import pandas as pd
import pytest
from pooljudge.pooling import apply_budget, build_pool, topic_order
from pooljudge.pooling.static_orders import static_order

from pooljudge.errors import InputError
from pooljudge.formats.trec import read_run_columns


def oracle_pool(runs: dict[str, list[tuple[str, str, float]]], depth: int) -> dict:
    """(topic, doc) -> (best rank, sorted run names), by plain sorting: score desc, doc desc."""
    found: dict[tuple[str, str], tuple[float, set[str]]] = {}
    for name, rows in runs.items():
        by_topic = defaultdict(list)
        for topic, doc, score in rows:
            by_topic[topic].append((score, doc))
        for topic, items in by_topic.items():
            for rank, (_, doc) in enumerate(sorted(items, reverse=True)[:depth], start=1):
                best, names = found.get((topic, doc), (math.inf, set()))
                found[(topic, doc)] = (min(best, rank), names | {name})
    return {key: (int(best), ",".join(sorted(names))) for key, (best, names) in found.items()}


def as_dict(pool) -> dict:
    pairs = pool.pairs
    return {(t, d): (int(b), r) for t, d, b, r in
            zip(pairs["topic"], pairs["doc"], pairs["best_rank"], pairs["runs"], strict=True)}


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("depth", [1, 3, 10, 100])
def test_membership_matches_oracle_with_heavy_ties(seed, depth, kit):
    runs = kit.tied_runs(seed)
    pool = build_pool({name: kit.run_frame(rows) for name, rows in runs.items()}, depth)
    assert as_dict(pool) == oracle_pool(runs, depth)


def test_files_and_frames_give_the_same_pool(tmp_path, kit):
    runs = kit.tied_runs(11)
    files = {name: read_run_columns(kit.write_run_file(tmp_path / name, rows))
             for name, rows in runs.items()}
    from_files = build_pool(files, 5)
    from_frames = build_pool({name: kit.run_frame(rows) for name, rows in runs.items()}, 5)
    pd.testing.assert_frame_equal(from_files.pairs, from_frames.pairs)
    pd.testing.assert_frame_equal(from_files.entries, from_frames.entries)


@pytest.mark.filterwarnings("ignore::DeprecationWarning", "ignore::FutureWarning")
def test_matches_trectools_top_x_on_tie_free_numeric_data(tmp_path, kit):
    trectools = pytest.importorskip("trectools")
    rng = random.Random(3)
    paths, runs = [], {}
    for r in range(5):
        rows = []
        for topic in ("301", "302", "310", "45"):
            docs = rng.sample(range(500), 60)
            scores = rng.sample(range(10_000), 60)
            rows += [(topic, f"DOC{d}", s / 7.0) for d, s in zip(docs, scores, strict=True)]
        rng.shuffle(rows)
        paths.append(kit.write_run_file(tmp_path / f"run{r}", rows))
        runs[f"run{r}"] = read_run_columns(paths[-1])
    theirs = trectools.TrecPoolMaker().make_pool(
        [trectools.TrecRun(str(p)) for p in paths], strategy="topX", topX=20).pool
    ours = build_pool(runs, 20).pairs.groupby("topic")["doc"].apply(set).to_dict()
    assert {int(t): docs for t, docs in ours.items()} == {int(t): d for t, d in theirs.items()}


def test_pairs_are_sorted_by_topic_value_then_document_bytes(kit):
    runs = {"a": kit.run_frame([("10", "b", 1.0), ("9", "é", 1.0), ("9", "z", 2.0), ("x", "a", 1.0),
                            ("09", "a", 1.0)])}
    pairs = build_pool(runs, 10).pairs
    assert list(zip(pairs["topic"], pairs["doc"], strict=True)) == [
        ("09", "a"), ("9", "z"), ("9", "é"), ("10", "b"), ("x", "a")]
    assert topic_order(["b", "2", "10", "a", "02"]) == ["02", "2", "10", "a", "b"]


def test_normalised_scores_are_min_max_within_run_and_topic(kit):
    runs = {"a": kit.run_frame([("1", "x", 10.0), ("1", "y", 8.0), ("1", "z", 0.0), ("2", "x", 4.0),
                            ("2", "y", 4.0)])}
    pool = build_pool(runs, 10)
    norm = dict(zip(pool.pairs["topic"].to_numpy()[pool.entries["pair"]] + pool.pairs["doc"]
                    .to_numpy()[pool.entries["pair"]], pool.entries["norm"], strict=True))
    assert norm == {"1x": 1.0, "1y": 0.8, "1z": 0.0, "2x": 1.0, "2y": 1.0}


def test_exclude_removes_judged_pairs_and_keeps_the_rest_unchanged(kit):
    runs = {name: kit.run_frame(rows) for name, rows in kit.tied_runs(5).items()}
    full = build_pool(runs, 8)
    judged = full.pairs.iloc[::3][["topic", "doc"]].assign(label=-1)
    judged = pd.concat([judged, pd.DataFrame({"topic": ["zz"], "doc": ["nowhere"], "label": [1]})])
    reduced = build_pool(runs, 8, exclude=judged)
    expected = {k: v for i, (k, v) in enumerate(as_dict(full).items()) if i % 3 != 0}
    assert as_dict(reduced) == expected
    assert reduced.entries["pair"].max() == len(reduced.pairs) - 1


def test_excluding_everything_gives_an_empty_pool(kit):
    runs = {"a": kit.run_frame(kit.ranked_run("1", ["x", "y"]))}
    pool = build_pool(runs, 5, exclude=pd.DataFrame({"topic": ["1", "1"], "doc": ["x", "y"]}))
    assert pool.pairs.empty and pool.entries.empty


def test_budget_keeps_the_floor_first_then_follows_the_order(kit):
    runs = {"A": kit.run_frame(kit.ranked_run("1", ["a1", "a2", "a3", "a4"])),
            "B": kit.run_frame(kit.ranked_run("1", ["b1", "b2", "b3", "b4"]))}
    pool = build_pool(runs, 4)
    order = static_order(pool, "docid")  # a1 a2 a3 a4 b1 b2 b3 b4
    kept = apply_budget(pool, order, budget=3, floor=1)
    assert list(kept["doc"]) == ["a1", "b1", "a2"]
    assert list(kept["order"]) == [1, 2, 3]
    assert list(kept["floor"]) == [True, True, False]


def test_floor_is_kept_even_beyond_the_budget(kit):
    runs = {"A": kit.run_frame(kit.ranked_run("1", ["a1", "a2", "a3"])),
            "B": kit.run_frame(kit.ranked_run("1", ["b1", "b2", "b3"])),
            "C": kit.run_frame(kit.ranked_run("2", ["c1", "c2"]))}
    pool = build_pool(runs, 3)
    kept = apply_budget(pool, static_order(pool, "docid"), budget=3, floor=2)
    assert kept.groupby("topic")["doc"].apply(list).to_dict() == {
        "1": ["a1", "a2", "b1", "b2"], "2": ["c1", "c2"]}


def test_budget_is_per_topic_and_without_floor_follows_order(kit):
    rows = kit.ranked_run("1", ["x", "w", "v"]) + kit.ranked_run("2", ["y", "u"])
    runs = {"A": kit.run_frame(rows)}
    pool = build_pool(runs, 3)
    kept = apply_budget(pool, static_order(pool, "rrf"), budget=1)
    assert list(zip(kept["topic"], kept["doc"], strict=True)) == [("1", "x"), ("2", "y")]


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"depth": 0}, "depth"),
])
def test_build_pool_rejects_bad_arguments(kwargs, message, kit):
    with pytest.raises(InputError, match=message):
        build_pool({"a": kit.run_frame([("1", "x", 1.0)])}, **kwargs)


def test_build_pool_rejects_no_runs_and_repeated_names(kit):
    with pytest.raises(InputError, match="no runs"):
        build_pool({}, 5)
    frame = kit.run_frame([("1", "x", 1.0)])
    with pytest.raises(InputError, match="two runs"):
        build_pool([("a", frame), ("a", frame)], 5)


def test_apply_budget_rejects_bad_arguments(kit):
    pool = build_pool({"a": kit.run_frame([("1", "x", 1.0)])}, 5)
    order = np.ones(1, dtype=np.int64)
    with pytest.raises(InputError, match="budget"):
        apply_budget(pool, order, budget=0)
    with pytest.raises(InputError, match="floor"):
        apply_budget(pool, order, floor=-1)
