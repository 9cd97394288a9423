"""The passages of a pool from a unit map: checked rows, and the map's line of each row."""

from __future__ import annotations

import gzip

import pandas as pd
import pytest

from pooljudge.errors import InputError
from pooljudge.formats.passages import map_line_numbers, pooled_passages
from pooljudge.formats.units import read_units

DOCUMENTS = pd.DataFrame({"id": ["D", "E"], "title": "", "text": ["0123456789", "abc"]})


@pytest.mark.parametrize(("text", "lines"), [
    ("chunk doc start end\n\n# note\nc1 D 0 5\n\nc2 E 0 3\n", [4, 6]),
    ("# no header\nc1 D 0 5\nc2 E 0 3", [2, 3]),
    ("CHUNK DOC\nc1 D\n", [2]),
    ("doc chunk\nc1 D\n", [1, 2]),            # not a header: the reader takes it as a row
])
def test_map_lines_follow_the_readers_rows(tmp_path, text, lines):
    path = tmp_path / "map.txt"
    path.write_text(text, encoding="utf-8")
    assert map_line_numbers(path).tolist() == lines
    assert len(read_units(path)) == len(lines)
    packed = tmp_path / "map.txt.gz"
    packed.write_bytes(gzip.compress(text.encode()))
    assert map_line_numbers(packed).tolist() == lines


def test_pooled_passages_are_the_pooled_chunks_once_in_pool_order():
    units = pd.DataFrame({"chunk": ["c1", "c2", "c3"], "doc": ["D", "D", "E"],
                          "start": [0, 5, 0], "end": [5, 10, 3]})
    out = pooled_passages(pd.Series(["c3", "c1", "c3"]), units, DOCUMENTS)
    assert out.values.tolist() == [["c3", "E", 0, 3], ["c1", "D", 0, 5]]
    assert list(out.dtypes.astype(str))[2:] == ["int64", "int64"]


def test_a_chunk_with_an_offset_missing_is_named_by_its_map_line(tmp_path):
    units = pd.DataFrame({"chunk": ["c1", "c2"], "doc": ["D", "D"],
                          "start": pd.array([0, pd.NA], dtype="Int64"),
                          "end": pd.array([5, pd.NA], dtype="Int64")})
    with pytest.raises(InputError, match=r"^unit map row 2: chunk c2 has no offsets$"):
        pooled_passages(pd.Series(["c2"]), units, DOCUMENTS)


def test_a_frame_listing_a_chunk_twice_is_refused():
    units = pd.DataFrame({"chunk": ["c1", "c1"], "doc": ["D", "E"], "start": 0, "end": 1})
    with pytest.raises(InputError, match=r"^unit map row 2: chunk c1 listed twice$"):
        pooled_passages(pd.Series(["c1"]), units, DOCUMENTS)
