"""Retrieval logs: the columnar reader, its rules with the line of the first bad record (plain
and gzip), privacy, and the files ``pooljudge logs`` writes."""

from __future__ import annotations

import gzip
import hashlib
import hmac
import json
import math

import numpy as np
import pandas as pd
import pytest

from pooljudge.errors import InputError
from pooljudge.formats.log_files import (
    one_line,
    output_folder,
    read_id_list,
    read_latency,
    write_latency,
    write_log_run,
)
from pooljudge.formats.logs import Privacy, keyed_hash, read_logs, record_problem
from pooljudge.formats.trec import read_run
from tests.support.logs import sample_records, write_jsonl

GOOD = {"query_id": "q1", "results": [{"id": "d1"}, {"id": "d2"}]}


def _expected(records: list[dict]) -> tuple[list, list]:
    """The retrievals and results rows an independent, record-by-record reading gives."""
    retrievals, results = [], []
    for row, record in enumerate(records):
        retrievals.append((record["query_id"], record.get("config"), record.get("category"),
                           record.get("latency_ms")))
        for position, item in enumerate(record["results"], start=1):
            results.append((row, item["id"], item.get("rank", position), item.get("score")))
    return retrievals, results


@pytest.mark.parametrize("gz", [False, True])
def test_reads_every_field_as_logged_with_list_order_and_missing_values(tmp_path, gz):
    records = sample_records()
    logs = read_logs(write_jsonl(tmp_path / "log.jsonl", records, gz=gz))
    retrievals, results = _expected(records)
    got = logs.retrievals
    assert list(got["line"]) == list(range(1, len(records) + 1))
    assert [(q, None if pd.isna(c) else c, None if pd.isna(g) else g,
             None if math.isnan(lat) else lat)
            for q, c, g, lat in zip(got["query_id"], got["config"], got["category"],
                                    got["latency_ms"], strict=True)] == retrievals
    assert list(got["results"]) == [len(r["results"]) for r in records]
    rows = logs.results
    assert [(int(a), b, int(c), None if math.isnan(d) else d)
            for a, b, c, d in rows[["retrieval", "doc", "rank", "score"]].itertuples(
                index=False, name=None)] == results


def test_blank_lines_crlf_and_a_byte_order_mark_keep_exact_line_numbers(tmp_path):
    path = tmp_path / "log.jsonl"
    body = "\r\n".join([json.dumps(GOOD), "", "   ", json.dumps({**GOOD, "query_id": "q2"})])
    path.write_bytes(b"\xef\xbb\xbf" + body.encode() + b"\r\n\n")
    logs = read_logs(path)
    assert list(logs.retrievals["line"]) == [1, 4]
    assert list(logs.retrievals["query_id"]) == ["q1", "q2"]


BAD_LINES = [
    ('{"query_id": "q9", "results": [', "not valid JSON"),
    ('{"results": [{"id": "d1"}]}', "no query_id"),
    ('{"query_id": null, "results": []}', "no query_id"),
    ('{"query_id": 17, "results": []}', "query_id must be a JSON string"),
    ('{"query_id": "q 9", "results": []}', "without blanks"),
    ('{"query_id": "", "results": []}', "non-empty"),
    ('{"query_id": "#9", "results": []}', "starts with '#'"),
    ('{"query_id": "q9"}', "no results list"),
    ('{"query_id": "q9", "results": {"id": "d1"}}', "results must be a list"),
    ('{"query_id": "q9", "results": [{"rank": 1}]}', "result 1: a result without id"),
    ('{"query_id": "q9", "results": [{"id": "d1"}, null]}', "result 2 must be an object"),
    ('{"query_id": "q9", "results": [{"id": 4}]}', "id must be a JSON string"),
    ('{"query_id": "q9", "results": [{"id": "a\\u2028b"}]}', "without blanks"),
    ('{"query_id": "q9", "latency_ms": "41", "results": []}', "latency_ms must be a finite"),
    ('{"query_id": "q9", "latency_ms": -1, "results": []}', "latency_ms must be a finite"),
    ('{"query_id": "q9", "latency_ms": NaN, "results": []}', "latency_ms must be a finite"),
    ('{"query_id": "q9", "results": [{"id": "a", "rank": 1}, {"id": "b"}]}',
     "rank given for 1 of the 2 results"),
    ('{"query_id": "q9", "results": [{"id": "a", "rank": 2}, {"id": "b", "rank": 2}]}',
     "rank 2 appears twice"),
    ('{"query_id": "q9", "results": [{"id": "a", "rank": 0}]}', "rank must be an integer"),
    ('{"query_id": "q9", "results": [{"id": "a", "rank": 1.5}]}', "rank must be an integer"),
    ('{"query_id": "q9", "results": [{"id": "a", "score": Infinity}]}', "score must be a finite"),
    ('{"query_id": "q9", "results": [{"id": "a", "score": "high"}]}', "score must be a finite"),
    ('{"query_id": "q9", "results": [{"id": "a", "score": 1}, {"id": "b"}]}',
     "score given for 1 of the 2"),
    ('{"query_id": "q9", "config": "a/b", "results": []}', "config 'a/b' must be"),
    ('{"query_id": "q9", "index_version": "v 2", "results": []}', "index_version 'v 2'"),
    ('{"query_id": "q9", "category": 3, "results": []}', "category must be a string"),
    ('{"query_id": "q9", "query_id": "q8", "results": []}', "field 'query_id' appears twice"),
    ('{"query_id": "q9", "results": []} {"query_id": "q8", "results": []}', "not valid JSON"),
    ('["q9"]', "expected a JSON object"),
    ('{"query_id": "q9",', "not valid JSON"),
]


@pytest.mark.parametrize(("gz", "blank"), [(False, False), (True, False), (False, True)])
@pytest.mark.parametrize(("line", "message"), BAD_LINES)
def test_a_bad_line_is_named_by_its_line_number(tmp_path, line, message, gz, blank):
    # without a blank line the fast reader must refuse the line itself; with one (which sends
    # every file through the line-by-line pass) the second pass must find the same line
    lines = [json.dumps(GOOD), "" if blank else json.dumps(GOOD), line, json.dumps(GOOD)]
    path = write_jsonl(tmp_path / "log.jsonl", lines, gz=gz)
    with pytest.raises(InputError) as caught:
        read_logs(path)
    assert caught.value.line == 3
    assert message in caught.value.message


def test_a_record_over_two_lines_is_named_by_its_first_line(tmp_path):
    path = tmp_path / "log.jsonl"
    path.write_text(json.dumps(GOOD) + '\n{"query_id": "q2",\n "results": []}\n')
    with pytest.raises(InputError, match=r"log.jsonl:2: not valid JSON"):
        read_logs(path)


def test_invalid_utf8_is_named_by_its_line(tmp_path):
    path = tmp_path / "log.jsonl"
    path.write_bytes(json.dumps(GOOD).encode() + b'\n{"query_id": "q\xff", "results": []}\n')
    with pytest.raises(InputError, match=r":2: not valid UTF-8"):
        read_logs(path)


@pytest.mark.parametrize(("data", "message"), [
    (b"", "no retrievals"), (b"\n  \n", "no retrievals"),
    (b"\x1f\x8b\x08\x00garbage", "cannot read"),
])
def test_empty_or_corrupt_files_are_input_errors(tmp_path, data, message):
    path = tmp_path / "log.jsonl"
    path.write_bytes(data)
    with pytest.raises(InputError, match=message):
        read_logs(path)


def test_a_missing_file_is_an_input_error(tmp_path):
    with pytest.raises(InputError, match="no such file"):
        read_logs(tmp_path / "absent.jsonl")


def test_the_line_by_line_rules_accept_what_the_fast_reader_accepts():
    assert all(record_problem(r) is None for r in sample_records(queries=30, seed=3))


def test_many_blocks_give_the_same_frames_as_one(tmp_path, monkeypatch):
    import pooljudge.formats.logs as module

    path = write_jsonl(tmp_path / "log.jsonl", sample_records(queries=40))
    whole = read_logs(path)
    monkeypatch.setattr(module, "_BLOCK", 2048)
    blocks = read_logs(path)
    pd.testing.assert_frame_equal(whole.retrievals, blocks.retrievals)
    pd.testing.assert_frame_equal(whole.results, blocks.results)


@pytest.mark.parametrize("workers", [2, 3])
def test_ranges_parsed_at_once_give_the_same_frames_and_lines(tmp_path, monkeypatch, workers):
    import pooljudge.formats.log_source as source
    import pooljudge.formats.logs as module

    records = [json.dumps(r) for r in sample_records(queries=40)]
    path = write_jsonl(tmp_path / "log.jsonl", records)
    whole = read_logs(path)
    monkeypatch.setattr(source, "MIN_RANGE", 1000)
    monkeypatch.setattr(module, "_workers", lambda: workers)
    assert len(source.byte_ranges(path, workers)) == workers
    ranged = read_logs(path)
    pd.testing.assert_frame_equal(whole.retrievals, ranged.retrievals)
    pd.testing.assert_frame_equal(whole.results, ranged.results)
    blank = write_jsonl(tmp_path / "blank.jsonl", [*records[:100], "", *records[100:]])
    assert read_logs(blank).retrievals["line"].iloc[-1] == len(records) + 1
    records[150] = '{"query_id": "q1", "results": [{"id": "a b"}]}'
    with pytest.raises(InputError, match=r"bad.jsonl:151: result 1: id 'a b'"):
        read_logs(write_jsonl(tmp_path / "bad.jsonl", records))


def test_private_fields_are_dropped_and_hashed_ones_keyed(tmp_path):
    path = write_jsonl(tmp_path / "log.jsonl", sample_records())
    key = b"secret"
    logs = read_logs(path, Privacy(frozenset({"query"}), frozenset({"query_id", "tenant"}), key))
    assert logs.retrievals["query"].isna().all()
    first = logs.retrievals["query_id"].iloc[0]
    assert first == hmac.new(key, b"q0", hashlib.sha256).hexdigest()[:32]
    assert "q0" not in set(logs.retrievals["query_id"])
    assert logs.retrievals["tenant"].iloc[0] == keyed_hash(key, "acme")
    again = read_logs(path, Privacy(hashed=frozenset({"query_id"}), key=key))
    assert list(again.retrievals["query_id"]) == list(logs.retrievals["query_id"])
    other = read_logs(path, Privacy(hashed=frozenset({"query_id"}), key=b"other"))
    assert other.retrievals["query_id"].iloc[0] != first


def test_privacy_refuses_unknown_fields_and_a_missing_key():
    with pytest.raises(ValueError, match="not a private"):
        Privacy(private=frozenset({"query_id"}))
    with pytest.raises(ValueError, match="need a key"):
        Privacy(hashed=frozenset({"query"}))


def test_output_folder_appears_whole_or_not_at_all(tmp_path):
    target = tmp_path / "out"
    with pytest.raises(RuntimeError), output_folder(target) as folder:
        (folder / "a.txt").write_text("half")
        raise RuntimeError("disk on fire")
    assert not target.exists() and list(tmp_path.iterdir()) == []
    with output_folder(target) as folder:
        (folder / "a.txt").write_text("whole")
    assert (target / "a.txt").read_text() == "whole"
    with pytest.raises(InputError, match="exists and is not an empty folder"), \
            output_folder(target):
        pass


def test_a_written_run_reads_back_in_trec_order(tmp_path):
    run = pd.DataFrame({"topic": ["q1", "q1", "q2"], "doc": ["b", "a", "c"],
                        "rank": np.array([1, 2, 1], np.int32), "score": [2.5, 1 / 3, 1e-20]})
    write_log_run(run, tmp_path / "x.run", "cfg@v1")
    lines = (tmp_path / "x.run").read_text().splitlines()
    assert lines[0] == "q1 Q0 b 1 2.5 cfg@v1"
    back = read_run(tmp_path / "x.run")
    assert list(back["doc"]) == ["b", "a", "c"]
    assert list(back["score"]) == [2.5, 1 / 3, 1e-20]


def test_latency_table_round_trips_and_bad_lines_are_named(tmp_path):
    table = pd.DataFrame({"run": ["a@v1", "b"], "queries": [3, 1], "retrievals": [4, 1],
                          "timed": [4, 0], "mean_ms": [12.25, np.nan], "p50_ms": [1 / 3, np.nan],
                          "p95_ms": [20.0, np.nan], "p99_ms": [21.5, np.nan]})
    write_latency(table, tmp_path / "latency.tsv")
    pd.testing.assert_frame_equal(read_latency(tmp_path / "latency.tsv"), table)
    text = (tmp_path / "latency.tsv").read_text().replace("12.25", "fast")
    (tmp_path / "bad.tsv").write_text(text)
    with pytest.raises(InputError, match=r"bad.tsv:2: expected counts and numbers"):
        read_latency(tmp_path / "bad.tsv")


def test_one_line_replaces_only_breaks_and_counts_the_changes():
    texts, changed = one_line(["a b", "tab\there", "two\nlines\r\n", "a\xa0b"])
    assert texts.to_pylist() == ["a b", "tab here", "two lines ", "a\xa0b"] and changed == 2
    assert one_line([" pad "], strip=True)[0].to_pylist() == ["pad"]
    assert one_line(["fine", "as is"])[1] == 0


def test_id_lists_skip_comments_and_refuse_two_words(tmp_path):
    (tmp_path / "ids.txt").write_text("# sample\nq1\n\nq2\n")
    assert read_id_list(tmp_path / "ids.txt") == ["q1", "q2"]
    (tmp_path / "bad.txt").write_text("q1\nq2 q3\n")
    with pytest.raises(InputError, match=r"bad.txt:2: expected one query id"):
        read_id_list(tmp_path / "bad.txt")


def test_gzip_is_recognised_by_content_not_name(tmp_path):
    data = (json.dumps(GOOD) + "\n").encode()
    (tmp_path / "log.txt").write_bytes(gzip.compress(data))
    assert list(read_logs(tmp_path / "log.txt").retrievals["query_id"]) == ["q1"]


_REPEATED_READS = """
import sys
from pooljudge.errors import InputError
from pooljudge.formats.logs import read_logs
for _ in range(300):
    try:
        read_logs(sys.argv[1])
    except InputError as exc:
        assert ":1: " in str(exc), exc
    else:
        raise SystemExit("read")
"""


@pytest.mark.parametrize("line", ["null", " null", "null {}", "[]"])
@pytest.mark.parametrize("gz", [False, True])
def test_a_line_that_is_no_object_never_crashes_the_process(tmp_path, line, gz):
    """A line holding a JSON ``null`` crashed pyarrow 26's JSON reader (a segmentation fault,
    within 300 reads), and its reading thread aborted the process at exit; such a line never
    reaches pyarrow now and the process ends normally (its own interpreter: a crash would
    take pytest with it)."""
    import subprocess
    import sys

    text = line + "\n" + json.dumps(GOOD) + "\n"
    path = tmp_path / ("log.jsonl.gz" if gz else "log.jsonl")
    path.write_bytes(gzip.compress(text.encode()) if gz else text.encode())
    done = subprocess.run([sys.executable, "-c", _REPEATED_READS, str(path)],
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
