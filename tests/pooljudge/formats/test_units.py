"""The unit map reader: ``chunk doc`` (and ``chunk doc start end``) lines, every bad line named."""

from __future__ import annotations

import gzip

import numpy as np
import pandas as pd
import pytest

from pooljudge.errors import InputError
from pooljudge.formats.units import read_unit_columns, read_units, unit_columns


def _write(tmp_path, text: str | bytes, name: str = "units.tsv"):
    path = tmp_path / name
    path.write_bytes(text if isinstance(text, bytes) else text.encode("utf-8"))
    return path


def test_two_columns_with_header_comments_blanks_tabs_and_hostile_ids(tmp_path):
    path = _write(tmp_path, "# a map\nCHUNK\tDOC\n\nc1\td1\n  c2   d1  \r\n<b>&c3\td\u00e92\n"
                            "#c4 d4\n")
    frame = read_units(path)
    assert frame["chunk"].tolist() == ["c1", "c2", "<b>&c3"]
    assert frame["doc"].tolist() == ["d1", "d1", "d\u00e92"]
    assert str(frame["start"].dtype) == "Int64" and frame["start"].isna().all()
    assert frame["end"].isna().all()
    assert not read_unit_columns(path).has_offsets


def test_offsets_gzip_and_a_chunk_named_like_the_header_when_not_first(tmp_path):
    text = "chunk doc start end\nc1 d1 0 120\nc2 d1 120 120\nchunk doc 5 9\n"
    path = _write(tmp_path, gzip.compress(text.encode()), "units.gz")
    frame = read_units(path)
    assert frame["chunk"].tolist() == ["c1", "c2", "chunk"]
    assert frame["start"].tolist() == [0, 120, 5] and frame["end"].tolist() == [120, 120, 9]
    assert read_unit_columns(path).has_offsets


def test_a_header_alone_is_no_map(tmp_path):
    with pytest.raises(InputError, match="no 'chunk doc' lines"):
        read_units(_write(tmp_path, "chunk doc\n"))


BAD = [
    ("one field", "c1\n", 1, "expected 'chunk doc' or 'chunk doc start end', found 1"),
    ("three fields", "# x\nc1 d1 7\n", 2, "found 3 field(s)"),
    ("mixed counts", "c1 d1\nc2 d2 0 3\n", 2, "expected 2 fields ('chunk doc', as on the first"),
    ("mixed counts 4", "c1 d1 0 3\n\nc2 d2\n", 3, "expected 4 fields"),
    ("offset text", "c1 d1 0 3\nc2 d2 x 3\n", 2, "start is not an integer: 'x'"),
    ("offset float", "c1 d1 0 3.5\n", 1, "end is not an integer: '3.5'"),
    ("offset huge", "c1 d1 0 99999999999999999999\n", 1, "end is out of range"),
    ("negative", "c1 d1 0 3\nc2 d2 -1 3\n", 2, "start must not be negative: -1"),
    ("start after end", "chunk doc start end\nc1 d1 0 3\nc2 d2 9 3\n", 3,
     "start 9 is after end 3"),
    ("two documents", "c1 d1\n# note\nc2 d1\nc1 d2\n", 4,
     "chunk 'c1' is mapped to two documents: 'd1' (line 1) and 'd2'"),
    ("listed twice", "c1 d1\nc2 d1\nc2 d1\n", 3, "chunk 'c2' listed twice (first on line 2)"),
    ("utf8", b"c1 d1\nc\xff d2\n", 2, "not valid UTF-8"),
]


@pytest.mark.parametrize(("text", "line", "message"), [c[1:] for c in BAD],
                         ids=[c[0] for c in BAD])
def test_bad_lines_are_named(tmp_path, text, line, message):
    path = _write(tmp_path, text)
    with pytest.raises(InputError) as caught:
        read_unit_columns(path)
    assert str(caught.value).startswith(f"{path}:{line}: ")
    assert message in str(caught.value)


@pytest.mark.parametrize("text", ["", "  \n\n", "# only a comment\n"])
def test_empty_maps(tmp_path, text):
    with pytest.raises(InputError, match=r"empty|no 'chunk doc' lines"):
        read_units(_write(tmp_path, text))


def test_frames_are_checked_like_files():
    frame = unit_columns(pd.DataFrame({"chunk": ["a", "b"], "doc": ["x", "x"],
                                       "start": [1, None], "end": [2, None]}))
    assert frame.start.to_pylist() == [1, None] and frame.end.to_pylist() == [2, None]
    bad = [
        ({"chunk": ["a"]}, "missing column(s) doc"),
        ({"chunk": ["a", "a"], "doc": ["x", "y"]}, "row 1: chunk 'a' is mapped to two documents: "
                                                   "'x' (row 0) and 'y'"),
        ({"chunk": ["a", None], "doc": ["x", "y"]}, "row 1: missing chunk id"),
        ({"chunk": ["a", "b"], "doc": ["x", "y"], "start": [1.5, 2], "end": [2, 3]},
         "row 0: start is not an integer: '1.5'"),
        ({"chunk": ["a", "b"], "doc": ["x", "y"], "start": [1, None], "end": [2, 3]},
         "row 1: start and end go together: give both or neither"),
        ({"chunk": ["a"], "doc": ["x"], "start": [4], "end": [3]}, "row 0: start 4 is after end 3"),
    ]
    for columns, message in bad:
        with pytest.raises(InputError) as caught:
            unit_columns(pd.DataFrame(columns), name="map")
        assert str(caught.value) == f"map: {message}"


def test_a_large_map_reads_as_written(tmp_path):
    n = 200_000
    chunks = np.char.add("c", np.arange(n).astype(str))
    docs = np.char.add("d", (np.arange(n) // 7).astype(str))
    text = "".join(f"{c}\t{d}\t{i}\t{i + 5}\n" for i, (c, d) in enumerate(zip(chunks, docs,
                                                                                strict=True)))
    columns = read_unit_columns(_write(tmp_path, text))
    assert columns.chunk.to_pylist() == chunks.tolist()
    assert columns.doc.to_pylist() == docs.tolist()
    assert columns.end.to_pylist()[-1] == n + 4
    clash = text + f"c{n - 1}\td0\t0\t1\n"
    with pytest.raises(InputError, match=f":{n + 1}: chunk 'c{n - 1}' is mapped to two documents"):
        read_unit_columns(_write(tmp_path, clash, "clash.tsv"))
