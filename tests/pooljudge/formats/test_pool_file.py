"""The pool file's writer (:mod:`pooljudge.formats.pool_file`) writes exactly the bytes of
pandas' ``to_csv(sep="\\t", index=False, lineterminator="\\n")``: for frames and Arrow tables,
every float64 as ``repr`` (tiny, huge, integral, signed zero, NaN, inf), and through pandas
itself whatever it would quote or does not know."""

from __future__ import annotations

import csv
import io

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

from pooljudge.formats.pool_file import write_pool_file

SPECIAL = [0.0, -0.0, np.nan, np.inf, -np.inf, 1.0, -3.0, 1e16, 1e15, 123456789012345.0, 5e-324,
           1e-4, 9.99e-5, 2.0**53, 0.1 + 0.2, 1e9, 999999999.5, 1e9 + 0.5]


def _frame(rows: int = 6000, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    floats = np.concatenate([rng.random(rows), 10 ** rng.uniform(-8, 20, rows)
                             * rng.choice([-1, 1], rows), np.round(rng.random(rows) * 1e6),
                             SPECIAL])
    n = len(floats)
    return pd.DataFrame({
        "topic": rng.choice(["1", "02", "é"], n).astype(object),
        "doc": np.array([f"d{i}" for i in range(n)], dtype=object),
        "order": np.arange(n), "best_rank": rng.integers(-5, 10**12, n),
        "runs": np.array(["a,b"] * n, dtype=object), "inclusion_like": floats,
        "f32": floats.astype(np.float32), "flag": rng.random(n) < 0.5,
        "small": rng.integers(0, 255, n).astype(np.uint8)})


def _pandas(frame: pd.DataFrame) -> str:
    buffer = io.StringIO()
    frame.to_csv(buffer, sep="\t", index=False, lineterminator="\n")
    return buffer.getvalue()


def _written(pool, tmp_path) -> str:
    path = tmp_path / "pool.tsv"
    write_pool_file(pool, path)
    return path.read_bytes().decode("utf-8")


def test_a_frame_is_written_as_pandas_writes_it(tmp_path):
    frame = _frame()
    assert _written(frame, tmp_path) == _pandas(frame)
    assert _written(frame.iloc[:0], tmp_path) == _pandas(frame.iloc[:0])


def test_floats_are_written_as_repr(tmp_path):
    values = np.array([v for v in SPECIAL if np.isfinite(v)] + [0.8060488189668513, 1 / 3])
    frame = _frame(0).iloc[:len(values)].assign(inclusion_like=values)
    lines = _written(frame, tmp_path).splitlines()[1:]
    column = list(frame.columns).index("inclusion_like")
    assert [line.split("\t")[column] for line in lines] == [repr(float(v)) for v in values]


def test_a_table_is_written_as_its_frame(tmp_path):
    frame = _frame(seed=1).drop(columns="flag")
    table = pa.Table.from_pandas(frame, preserve_index=False)
    assert _written(table, tmp_path) == _pandas(frame)


@pytest.mark.parametrize(("column", "value"), [
    ("doc", None), ("doc", 5), ("inclusion_like", np.nan)])
def test_what_pandas_would_fill_is_written_by_pandas(tmp_path, column, value):
    frame = _frame(200)
    if column != "inclusion_like":  # text: pandas 3 infers its str dtype, which takes no int
        frame[column] = frame[column].astype(object)
    frame.loc[3, column] = value
    assert _written(frame, tmp_path) == _pandas(frame)


@pytest.mark.parametrize("fallback", [False, True])
@pytest.mark.parametrize("value", ['say "x"', '"', 'a""b', '"a"'])
def test_a_quote_is_written_as_it_is_never_quoted(tmp_path, value, fallback):
    """P1: pandas would write the first value with its quotes doubled inside quotes; read_pool
    splits at tabs and would keep them, so the pool file never quotes (also where pandas
    writes the file: a missing value elsewhere)."""
    frame = _frame(20)
    frame["doc"] = frame["doc"].astype(object)
    frame.loc[3, "doc"] = value
    if fallback:
        frame["runs"] = frame["runs"].astype(object)
        frame.loc[5, "runs"] = None
    lines = _written(frame, tmp_path).splitlines()
    assert lines[4].split("\t")[1] == value
    assert _written(frame, tmp_path) == _pandas_unquoted(frame)


def _pandas_unquoted(frame: pd.DataFrame) -> str:
    buffer = io.StringIO()
    frame.to_csv(buffer, sep="\t", index=False, lineterminator="\n", quoting=csv.QUOTE_NONE)
    return buffer.getvalue()


@pytest.mark.parametrize(("column", "value"), [
    ("doc", "a\tb"), ("runs", "x\ny"), ("runs", "x\rz")])
def test_a_tab_or_line_break_cannot_be_written(tmp_path, column, value):
    frame = _frame(20)
    frame[column] = frame[column].astype(object)
    frame.loc[3, column] = value
    with pytest.raises(ValueError, match="tab or a line break"):
        write_pool_file(frame, tmp_path / "pool.tsv")
    assert not (tmp_path / "pool.tsv").exists()


def test_other_column_types_are_written_by_pandas(tmp_path):
    frame = _frame(100).assign(extra=pd.Categorical(["x", "y"] * 159))
    assert _written(frame, tmp_path) == _pandas(frame)


def test_missing_columns_and_bad_sample_values_are_refused(tmp_path):
    frame = _frame(10)[["topic", "doc", "order", "best_rank", "runs"]].assign(
        stratum=1, inclusion=0.5, sampled=1)
    with pytest.raises(ValueError, match="lacks columns"):
        write_pool_file(frame.drop(columns="runs"), tmp_path / "out.tsv")
    with pytest.raises(ValueError, match="lacks columns"):
        write_pool_file(frame.drop(columns="sampled"), tmp_path / "out.tsv")
    for column, bad in (("stratum", 0), ("inclusion", 1.5), ("sampled", 2)):
        with pytest.raises(ValueError, match="inclusion in"):
            write_pool_file(frame.assign(**{column: bad}), tmp_path / "out.tsv")


def test_rows_written_block_by_block_make_the_same_file(tmp_path, monkeypatch):
    from pooljudge.formats import pool_file

    frame = _frame(300)
    monkeypatch.setattr(pool_file, "_BLOCK", 7)
    assert _written(frame, tmp_path) == _pandas(frame)
