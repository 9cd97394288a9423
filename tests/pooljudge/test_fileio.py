"""File helpers: JSON Lines with path:line errors, write-then-rename keeping modes."""

from __future__ import annotations

import os
import stat

import pytest

from pooljudge.errors import InputError
from pooljudge.fileio import atomic_writer, jsonl_objects


def test_jsonl_objects_skips_blank_lines_and_numbers_the_rest() -> None:
    text = '{"id": 1}\n\n  \n{"id": 2}\n'
    assert list(jsonl_objects(text, "x.jsonl")) == [(1, {"id": 1}), (4, {"id": 2})]


@pytest.mark.parametrize(("text", "line", "message"), [
    ('{"id": 1}\n{"id": \n', 2, "not valid JSON"),
    ('{"id": 1}\n\n[1, 2]\n', 3, "expected a JSON object"),
], ids=["broken", "not-an-object"])
def test_jsonl_objects_names_the_bad_line(text: str, line: int, message: str) -> None:
    with pytest.raises(InputError, match=message) as caught:
        list(jsonl_objects(text, "x.jsonl"))
    assert str(caught.value).startswith(f"x.jsonl:{line}: ")


def test_atomic_writer_leaves_the_old_file_on_error(tmp_path) -> None:
    target = tmp_path / "out.txt"
    target.write_text("old")
    with pytest.raises(RuntimeError), atomic_writer(target) as handle:
        handle.write("half")
        raise RuntimeError("boom")
    assert target.read_text() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.txt"]


def test_atomic_writer_gives_new_files_the_umask_mode_not_0600(tmp_path) -> None:
    previous = os.umask(0o022)
    try:
        with atomic_writer(tmp_path / "new.txt") as handle:
            handle.write("x")
    finally:
        os.umask(previous)
    assert stat.S_IMODE((tmp_path / "new.txt").stat().st_mode) == 0o644
