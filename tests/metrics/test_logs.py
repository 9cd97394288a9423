"""Logs to runs, topics, topic groups and latency, against a record-by-record oracle."""

from __future__ import annotations

import itertools
import json
import random

import numpy as np
import pandas as pd
import pytest
from pooljudge.metrics.latency import LATENCY_COLUMNS, latency_table
from pooljudge.metrics.log_index import LogIndex
from pooljudge.metrics.log_queries import (
    log_topics,
    normalised_values,
    query_strata,
    select_queries,
    several_values,
    topic_groups,
)
from pooljudge.metrics.logs import log_runs

from pooljudge.formats.logs import read_logs
from tests.support.logs import sample_records, write_jsonl


def _logs(tmp_path, records):
    return read_logs(write_jsonl(tmp_path / "log.jsonl", records))


def _run_name(record: dict) -> str:
    name = record.get("config") or "default"
    return name + (f"@{record['index_version']}" if record.get("index_version") else "")


def oracle_runs(records: list[dict]) -> dict[str, list[tuple]]:
    """The module docstring's rules, one record at a time."""
    runs: dict[str, list[tuple]] = {}
    seen = set()
    for record in records:
        name, topic = _run_name(record), record["query_id"]
        if (name, topic) in seen:
            continue
        seen.add((name, topic))
        items = sorted((item.get("rank", position), item["id"], item.get("score"))
                       for position, item in enumerate(record["results"], start=1))
        kept, docs = [], set()
        for rank, doc, score in items:
            if doc not in docs:
                docs.add(doc)
                kept.append((rank, doc, score))
        consistent = all(s is not None for _, _, s in kept) and all(
            a[2] > b[2] or (a[2] == b[2] and a[1] > b[1]) for a, b in itertools.pairwise(kept))
        biggest = max((r for r, _, _ in kept), default=0)
        runs.setdefault(name, []).extend(
            (topic, doc, rank, float(score) if consistent else float(biggest + 1 - rank))
            for rank, doc, score in kept)
    return {name: sorted(rows, key=lambda r: (r[0], r[2])) for name, rows in sorted(runs.items())}


def _random_records(seed: int, n: int = 300) -> list[dict]:
    """Repeated queries, missing configs and versions, repeated documents, unsorted and missing
    ranks, tied and inconsistent scores."""
    rng = random.Random(seed)
    records = []
    for _ in range(n):
        size = rng.choice([0, 1, 3, 6, 20])
        docs = [f"d{rng.randrange(15)}" for _ in range(size)]
        ranks = rng.sample(range(1, 40), size) if rng.random() < 0.6 else None
        scores = ([rng.choice([1.0, 2.0, 3.0, rng.uniform(0, 9)]) for _ in range(size)]
                  if rng.random() < 0.7 else None)
        if scores and ranks and rng.random() < 0.5:  # consistent: score falls with rank
            scores = [100.0 - r for r in ranks]
        results = []
        for i, doc in enumerate(docs):
            item = {"id": doc}
            if ranks:
                item["rank"] = ranks[i]
            if scores:
                item["score"] = scores[i]
            results.append(item)
        record = {"query_id": f"q{rng.randrange(25)}", "results": results}
        if rng.random() < 0.8:
            record["config"] = rng.choice(["bm25", "dense", "hybrid"])
        if rng.random() < 0.7:
            record["index_version"] = rng.choice(["v1", "v2"])
        records.append(record)
    return records


def _as_rows(runs) -> dict[str, list[tuple]]:
    return {name: [(str(t), str(d), int(r), float(s)) for t, d, r, s in frame[
        ["topic", "doc", "rank", "score"]].itertuples(index=False, name=None)]
        for name, frame in runs.runs()}


@pytest.mark.parametrize("seed", range(6))
def test_runs_match_the_record_by_record_oracle(tmp_path, seed):
    records = _random_records(seed)
    runs = log_runs(_logs(tmp_path, records))
    assert _as_rows(runs) == oracle_runs(records)


def test_runs_follow_the_logged_ranks_under_trec_eval_order(tmp_path):
    from pooljudge.kernels.ranking import rank_run

    records = _random_records(11)
    for name, frame in log_runs(_logs(tmp_path, records)).runs():
        ranked = rank_run(frame.assign(topic=frame["topic"].astype(str),
                                       doc=frame["doc"].astype(str)))
        got = ranked.sort_values(["topic", "rank"], kind="stable")
        logged = frame.assign(topic=frame["topic"].astype(str)).sort_values(
            ["topic", "rank"], kind="stable")
        assert list(got["doc"].astype(str)) == list(logged["doc"].astype(str)), name


def test_repeats_and_replaced_scores_are_counted_in_warnings(tmp_path):
    records = [
        {"query_id": "q1", "config": "c", "results": [{"id": "a", "score": 1.0},
                                                      {"id": "b", "score": 2.0}]},
        {"query_id": "q1", "config": "c", "results": [{"id": "z"}]},
        {"query_id": "q2", "config": "c", "results": [{"id": "a"}, {"id": "a"}]},
        {"query_id": "q3", "config": "c", "results": [{"id": "a", "score": 5.0},
                                                      {"id": "b", "score": 5.0}]},
    ]
    runs = log_runs(_logs(tmp_path, records))
    text = " | ".join(runs.warnings)
    assert "1 retrieval(s) repeat a query already logged for the same run (first repeat on " \
           "line 2)" in text
    assert "1 result(s) list a document already listed higher for the same query (first on " \
           "line 3)" in text
    assert "2 retrieval(s) log scores that order their results differently" in text
    frame = runs.run(0)
    assert list(frame["score"]) == [2.0, 1.0, 1.0, 2.0, 1.0]


def test_the_run_frame_is_tidy_and_complete(tmp_path):
    records = sample_records()
    runs = log_runs(_logs(tmp_path, records))
    assert runs.names == ["bm25@v1", "bm25@v2", "dense@v1", "dense@v2"]
    whole = runs.frame()
    assert list(whole.columns) == ["run", "topic", "doc", "rank", "score"]
    assert len(whole) == sum(len(r["results"]) for r in records)
    assert whole.groupby("run").size().to_dict() == dict.fromkeys(runs.names, 12 * 5)


def test_topics_keep_the_first_text_and_warn_about_others(tmp_path):
    records = [{"query_id": "q2", "results": []},
               {"query_id": "q1", "query": "first\ttext", "results": []},
               {"query_id": "q1", "query": "second", "results": []},
               {"query_id": "q3", "query": "only", "results": []}]
    table, warnings = log_topics(_logs(tmp_path, records))
    assert table.to_dict("list") == {"id": ["q1", "q2", "q3"],
                                     "title": ["first\ttext", "", "only"]}
    assert warnings == ["1 query id(s) are logged with different query texts (e.g. q1): each "
                        "keeps its first"]


def test_topic_groups_follow_the_strata_rule_the_first_logged_value(tmp_path):
    """q1 is logged with two categories: it is in the group of its first (billing), as its
    stratum is, and both say so in the same warning."""
    records = [{"query_id": "q1", "category": "billing", "language": "en", "results": []},
               {"query_id": "q1", "category": "billing", "tenant": "t 1", "results": []},
               {"query_id": "q2", "category": "returns", "language": "en", "results": []},
               {"query_id": "q1", "category": "returns", "results": []}]
    logs = _logs(tmp_path, records)
    groups = topic_groups(logs)
    assert list(groups.itertuples(index=False, name=None)) == [
        ("q1", "category=billing"), ("q2", "category=returns"),
        ("q1", "language=en"), ("q2", "language=en"), ("q1", "tenant=t 1")]
    strata, strata_warnings = query_strata(logs, "category")
    assert strata.to_dict("list") == {"query_id": ["q1", "q2"], "stratum": ["billing", "returns"]}
    message = ("1 query id(s) are logged with several values of category (e.g. q1): each is "
               "counted in its first")
    assert several_values(logs) == strata_warnings == [message]


def test_groups_and_strata_read_a_field_by_one_rule_one_line_trimmed_blank_as_none(tmp_path):
    """`` billing`` and ``billing\t`` are one value (so q1, logged with both, has one), a tab
    inside is a space, a blank value is none; groups and strata agree, and one warning counts
    the query ids whose first value changed."""
    records = [{"query_id": "q1", "category": " billing", "results": []},
               {"query_id": "q1", "category": "billing\t", "results": []},
               {"query_id": "q2", "category": "ship\tping", "results": []},
               {"query_id": "q3", "category": "  ", "results": []},
               {"query_id": "q4", "category": "billing", "results": []}]
    logs = _logs(tmp_path, records)
    groups = topic_groups(logs, ("category",))
    assert list(groups.itertuples(index=False, name=None)) == [
        ("q1", "category=billing"), ("q2", "category=ship ping"), ("q4", "category=billing")]
    strata, warnings = query_strata(logs, "category")
    assert strata["stratum"].tolist()[:2] == ["billing", "ship ping"]
    assert pd.isna(strata["stratum"].iloc[2]) and strata["stratum"].iloc[3] == "billing"
    assert warnings == [] and several_values(logs, ("category",)) == []
    assert normalised_values(logs, ("category", "language")) == [
        "3 query id(s) have a category value with tabs, line breaks or blanks at its ends: read "
        "as one line, the ends removed, a blank value as none (e.g. q1)"]


def test_latency_percentiles_match_numpy_per_run(tmp_path):
    records = sample_records(queries=30, seed=5)
    records.append({"query_id": "q0", "config": "untimed", "results": []})
    table = latency_table(_logs(tmp_path, records))
    assert list(table.columns) == LATENCY_COLUMNS
    for row in table.itertuples(index=False):
        if row.run == "untimed":
            assert (row.queries, row.retrievals, row.timed) == (1, 1, 0)
            assert np.isnan([row.mean_ms, row.p50_ms, row.p95_ms, row.p99_ms]).all()
            continue
        values = [r["latency_ms"] for r in records if _run_name(r) == row.run
                  and "latency_ms" in r]
        assert row.timed == len(values) and row.retrievals == 30
        assert row.mean_ms == pytest.approx(np.mean(values))
        assert [row.p50_ms, row.p95_ms, row.p99_ms] == pytest.approx(
            list(np.percentile(values, [50, 95, 99])))


def test_latency_counts_every_retrieval_and_distinct_queries(tmp_path):
    records = [{"query_id": "q1", "latency_ms": 10, "results": []},
               {"query_id": "q1", "latency_ms": 30, "results": []},
               {"query_id": "q2", "results": []}]
    row = latency_table(_logs(tmp_path, records)).iloc[0]
    assert (row["run"], row["queries"], row["retrievals"], row["timed"]) == ("default", 2, 3, 2)
    assert (row["mean_ms"], row["p50_ms"]) == (20.0, 20.0)


def test_select_queries_keeps_their_retrievals_and_names_the_missing(tmp_path):
    records = sample_records()
    logs = _logs(tmp_path, records)
    chosen, missing = select_queries(logs, ["q3", "q5", "nope"])
    assert missing == ["nope"]
    assert set(chosen.retrievals["query_id"]) == {"q3", "q5"}
    expected = oracle_runs([r for r in records if r["query_id"] in {"q3", "q5"}])
    assert _as_rows(log_runs(chosen)) == expected


def test_query_strata_take_the_first_value_and_warn_about_several(tmp_path):
    records = [{"query_id": "q2", "category": "a", "results": []},
               {"query_id": "q1", "results": []},
               {"query_id": "q2", "category": "b", "results": []}]
    logs = _logs(tmp_path, records)
    strata, warnings = query_strata(logs, "category", LogIndex.of(logs))
    assert strata["query_id"].tolist() == ["q1", "q2"]
    assert pd.isna(strata["stratum"].iloc[0]) and strata["stratum"].iloc[1] == "a"
    assert warnings and "1 query id(s) are logged with several values of category" in warnings[0]
    assert query_strata(logs, None)[0]["stratum"].tolist() == ["all", "all"]


def test_a_log_without_results_gives_empty_runs(tmp_path):
    runs = log_runs(_logs(tmp_path, [{"query_id": "q1", "results": []}]))
    assert runs.names == ["default"] and runs.run(0).empty
    assert json.dumps(runs.warnings) == "[]"
