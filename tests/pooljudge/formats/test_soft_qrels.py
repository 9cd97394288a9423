"""Soft qrels: written, read back equal; every malformed line refused with path:line."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from pooljudge.errors import InputError
from pooljudge.formats.soft_qrels import read_soft_qrels, write_soft_qrels


def test_round_trip(tmp_path):
    rng = np.random.default_rng(7)
    p = rng.dirichlet(np.ones(3), size=50)
    frame = pd.DataFrame({"topic": np.repeat([f"t{i % 4}" for i in range(50)], 3),
                          "doc": np.repeat([f"d {i}" for i in range(50)], 3),
                          "label": np.tile([0, 1, 2], 50), "probability": p.ravel()})
    path = tmp_path / "soft.tsv"
    write_soft_qrels(frame, path, comment="model ds")
    back = read_soft_qrels(path)
    pd.testing.assert_frame_equal(back, frame.astype({"label": "int64"}))
    assert (back["probability"].to_numpy() == p.ravel()).all()  # bit for bit


HEADER = "topic\tdoc\tlabel\tprobability\n"


@pytest.mark.parametrize(("text", "line", "why"), [
    ("t\td\t1\t1\n", 1, "header"),
    (HEADER + "t\td\t1\n", 2, "4 tab-separated"),
    (HEADER + "t\td\tx\t1\n", 2, "not an integer"),
    (HEADER + "t\td\t1\t1.5\n", 2, "in [0, 1]"),
    (HEADER + "t\td\t1\tnan\n", 2, "in [0, 1]"),
    (HEADER + "t\td\t0\t0.5\nt\td\t0\t0.5\n", 3, "repeated"),
    (HEADER + "t\td\t0\t0.5\nt\te\t0\t1\nt\td\t1\t0.4\n", 4, "sum to"),
    ("# c\n" + HEADER + "\n", 3, "4 tab-separated"),
])
def test_malformed_is_refused_with_path_and_line(tmp_path, text, line, why):
    path = tmp_path / "bad.tsv"
    path.write_text(text)
    with pytest.raises(InputError) as caught:
        read_soft_qrels(path)
    assert str(caught.value).startswith(f"{path}:{line}:") and why in str(caught.value)


def test_empty_is_refused(tmp_path):
    path = tmp_path / "empty.tsv"
    path.write_text(HEADER)
    with pytest.raises(InputError, match="no soft qrels"):
        read_soft_qrels(path)
