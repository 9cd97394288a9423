"""The fast paths of `eval --prels`: the qrels key table, the pyarrow prels reader, the estimators'
sums over relevant rows only and the run read one ahead give exactly what the plain ways give."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pooljudge.metrics.qrels_lookup as lookup
import pyarrow as pa
import pytest
from pooljudge.metrics.estimators import _running, _running_at
from pooljudge.metrics.evaluate import score_all
from pooljudge.metrics.join import Ranking

from pooljudge.errors import InputError
from pooljudge.formats import prels as prels_file
from pooljudge.formats.trec import read_prels, write_qrels, write_run

HEADER = "topic\tdoc\tlabel\tstratum\tinclusion\n"


def _qrels_with_keys(keys: np.ndarray, rows: np.ndarray | None = None) -> lookup.Qrels:
    nothing = np.zeros(0, dtype=np.int64)
    return lookup.Qrels(topics=pa.array(["1"]), topic_of_row=nothing, docs=pa.array([]),
                        labels=nothing, offsets=np.array([0, 0]), labels_by_topic=nothing,
                        doc_hash=nothing.astype(np.uint64), hash_keys=keys, hash_rows=rows,
                        hash_keys_unique=True)


def _one_slot_keys(count: int, bits: int, rng: np.random.Generator) -> np.ndarray:
    """``count`` distinct keys whose first slot in a table of 2**bits slots is the same."""
    keys = np.unique(rng.integers(0, 2**63, 1 << 18, dtype=np.uint64))
    slots = lookup._first_slot(keys, np.uint64(64 - bits))
    return keys[slots == np.bincount(slots).argmax()][:count]


@pytest.mark.parametrize("permuted", [False, True])
def test_key_table_finds_every_key_and_no_other(permuted):
    rng = np.random.default_rng(7)
    crowded = _one_slot_keys(6, 12, rng)  # a probe chain of 6 from one slot (table of 2**12)
    keys = np.unique(np.concatenate([crowded, rng.integers(0, 2**63, 900, dtype=np.uint64)]))
    rows = rng.permutation(len(keys)) if permuted else None
    table = lookup._key_table(_qrels_with_keys(keys, rows))
    assert len(table.keys) == 1 << 12 and int((table.rows >= 0).sum()) == len(keys)
    absent = rng.integers(0, 2**63, 5000, dtype=np.uint64)
    absent = np.concatenate([absent[~np.isin(absent, keys)], _one_slot_keys(40, 12, rng)])
    absent = absent[~np.isin(absent, keys)]
    queries = rng.permutation(np.concatenate([keys, absent, keys[:50]]))
    expected_row = dict(zip(keys.tolist(), (np.arange(len(keys)) if rows is None else rows)
                            .tolist(), strict=True))
    expected = np.array([expected_row.get(k, -1) for k in queries.tolist()])
    assert np.array_equal(lookup._probe(table, queries), expected)


def test_key_table_of_no_keys_finds_nothing():
    table = lookup._key_table(_qrels_with_keys(np.zeros(0, dtype=np.uint64)))
    assert lookup._probe(table, np.arange(5, dtype=np.uint64)).tolist() == [-1] * 5


@pytest.mark.parametrize("body", [
    pytest.param("1\ta\t1\t1\t0.5\n1\tb\t\t2\t0.30000000000000004\n2\ta\t-1\t1\t1\n", id="plain"),
    pytest.param("1\ta\t1\t1\t0.5\r\n1\tb\t\t2\t1e-3\r\n\r\n2\ta\t0\t3\t1.0\r\n", id="crlf-blank"),
    pytest.param("2\tz\t\t1\t0.1\n1\ta\t7\t1\t0.25\n2\ty\t-3\t1\t0.5", id="unsorted-no-eol"),
    pytest.param("1\ta\t1.0\t1\t0.5\n1\tb\t+1\t2\t0.5\n", id="float-and-plus-labels"),
    pytest.param("1\ta\t01\t1\t+0.5\n1\tb\t\t2.0\t0.5\n", id="padded-and-plus"),
    pytest.param(" 1\ta \t1\t1\t0.5\n1\tb\t\t1\t 0.5\n  \n", id="blanks-around"),
    pytest.param("1\ta\t1\t1\t0.5\x0c\n1\tc\t0\t1\t0.5\u2028\n", id="unusual-breaks"),
    pytest.param("1\ta\x0cb\t1\t1\t0.5\n", id="break-inside-a-line"),
    pytest.param("1\ta\t1\t1\t0.1234567890123456789012\n1\tb\t0\t1\t5E-1\n", id="long-floats"),
])
def test_fast_reader_equals_the_checking_reader(tmp_path, body):
    path = tmp_path / "p.tsv"
    path.write_bytes((HEADER + body).encode())
    try:
        checked = prels_file._read_checked(path)
    except InputError as error:  # then the same error from the fast reader
        with pytest.raises(InputError, match=f"^{re.escape(str(error))}$"):
            prels_file.read_prels_columns(path)
        return
    pd.testing.assert_frame_equal(read_prels(path), checked, check_dtype=True)
    columns = prels_file.read_prels_columns(path)
    pd.testing.assert_frame_equal(prels_file._frame_of(columns), checked, check_dtype=True)


def test_fast_reader_takes_files_as_written_and_leaves_the_rest():
    def fast(body: str) -> bool:
        return prels_file._fast_columns((HEADER + body).encode()) is not None

    assert fast("1\ta\t1\t1\t0.5\n1\tb\t\t2\t0.30000000000000004\n2\ta\t-1\t1\t1\n")
    assert fast("1\ta\t1\t1\t0.5\r\n\r\n1\tb\t\t2\t1e-3\r\n")
    for odd in ("1\ta\t1.0\t1\t0.5\n", "1\ta\t1\t1\t+0.5\n", "1\ta\t01\t1\t0.5\n",
                " 1\ta\t1\t1\t0.5\n", "1\ta\t1\t1\t0.5\n1\ta\t0\t1\t0.5\n", "1\ta\t1\t0\t0.5\n",
                "1\ta\t1\t1\t0\n", "1\ta\t1\t1\n", "1\ta\x1fb\t1\t1\t0.5\n", "\n"):
        assert not fast(odd), odd


@pytest.mark.parametrize("line", ["1\ta\t1\t1\t1.5", "1\ta\t1\t1\t0", "1\ta\t1e99\t1\t0.5",
                                  "1\ta\t1\t1e99\t0.5", "1\ta\t1\t1.5\t0.5",
                                  "1\tb\t1\t1\t0.5", "1\t \t1\t1\t0.5"])
def test_a_bad_file_gets_the_checking_readers_error(tmp_path, line):
    path = tmp_path / "p.tsv"
    path.write_text(HEADER + "1\tb\t\t1\t0.5\n" + line + "\n")
    with pytest.raises(InputError) as fast:
        prels_file.read_prels_columns(path)
    with pytest.raises(InputError) as checked:
        prels_file._read_checked(path)
    assert str(fast.value) == str(checked.value) and ":3: " in str(fast.value)


def test_running_sums_over_some_rows_equal_the_whole_arrays_bit_for_bit():
    rng = np.random.default_rng(3)
    returned = np.array([0, 5, 0, 40, 1, 0, 300, 7])
    offsets = np.concatenate(([0], np.cumsum(returned)))
    r = Ranking(qrels=_qrels_with_keys(np.zeros(0, dtype=np.uint64)), offsets=offsets,
                labels=np.zeros(offsets[-1], dtype=np.int64), run_only_topics=0)
    r._cache["topic"] = np.repeat(np.arange(len(returned)), returned)  # 8 topics, not 1
    values = np.where(rng.random(offsets[-1]) < 0.3, rng.random(offsets[-1]) / 0.37, 0.0)
    where = np.flatnonzero(values > 0)
    rows = np.sort(rng.choice(offsets[-1], 80, replace=False))
    whole = _running(r, values)
    assert whole[rows].tobytes() == _running_at(r, values[where], where, rows).tobytes()
    assert _running_at(r, values[:0], where[:0], rows).tolist() == [0.0] * len(rows)


def test_runs_read_one_ahead_score_like_runs_read_in_turn(tmp_path):
    rng = np.random.default_rng(5)
    qrels = pd.DataFrame({"topic": ["1"] * 30 + ["2"] * 30, "doc": [f"d{i}" for i in range(60)],
                          "label": rng.integers(0, 3, 60)})
    write_qrels(qrels, tmp_path / "q")
    paths = []
    for name in ("a", "b", "c"):
        write_run(pd.DataFrame({"topic": ["1"] * 40 + ["2"] * 40,
                                "doc": [f"d{i}" for i in rng.permutation(80)],
                                "score": rng.random(80)}), tmp_path / name)
        paths.append(tmp_path / name)
    (tmp_path / "bad").write_text("1 Q0 d1 1 x run\n")
    measures = ["AP", "P@5"]
    from pooljudge.metrics.eval_inputs import parse_all

    parsed = parse_all(measures)
    ahead = score_all(tmp_path / "q", paths, parsed, block_bytes=None)[1]
    blocks = score_all(tmp_path / "q", paths, parsed)[1]
    for one, other in zip(ahead, blocks, strict=True):
        assert one.name == other.name
        assert all(np.array_equal(one.values[m], other.values[m]) for m in parsed)
    seen = []
    with pytest.raises(InputError, match="bad:1"):
        score_all(tmp_path / "q", [*paths, tmp_path / "bad"], parsed, block_bytes=None,
                  runs_seen=lambda result: seen.append(result.name))
    assert seen == ["a", "b", "c"]


def test_prels_scores_take_prepared_qrels_and_read_prels_alike(tmp_path):
    from pooljudge.metrics.eval_inputs import load_qrels, parse_all
    from pooljudge.metrics.prels import load_prels

    qrels = pd.DataFrame({"topic": ["1", "1", "2"], "doc": ["a", "b", "a"], "label": [1, 0, 2]})
    write_qrels(qrels, tmp_path / "q")
    (tmp_path / "p.tsv").write_text(HEADER + "1\ta\t1\t1\t0.5\n1\tb\t0\t2\t0.25\n1\tc\t\t2\t0.25\n"
                                    "2\ta\t2\t1\t1\n")
    write_run(pd.DataFrame({"topic": ["1", "1", "1", "2"], "doc": ["c", "a", "b", "a"],
                            "score": [3.0, 2.0, 1.0, 1.0]}), tmp_path / "r")
    measures = parse_all(["statAP", "xinfAP", "statNDCG"])
    expected = score_all(tmp_path / "q", [tmp_path / "r"], measures, prels=tmp_path / "p.tsv")[1]
    for qrels_input, prels_input in ((load_qrels(tmp_path / "q"), tmp_path / "p.tsv"),
                                     (tmp_path / "q", load_prels(tmp_path / "p.tsv")),
                                     (tmp_path / "q", read_prels(tmp_path / "p.tsv"))):
        (got,) = score_all(qrels_input, [tmp_path / "r"], measures, prels=prels_input)[1]
        assert all(got.values[m].tobytes() == expected[0].values[m].tobytes() for m in measures)
