"""File helpers: JSON Lines with path:line errors, write-then-rename keeping modes."""

from __future__ import annotations

import contextlib
import os
import stat
import threading
from pathlib import Path

import pytest

from pooljudge.errors import InputError
from pooljudge.formats.files import atomic_writer, jsonl_objects, read_bytes


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


def test_a_symlink_survives_and_its_target_is_replaced(tmp_path) -> None:
    real = tmp_path / "data" / "real.tsv"
    real.parent.mkdir()
    real.write_text("old")
    link = tmp_path / "link.tsv"
    link.symlink_to(real)
    with atomic_writer(link) as handle:
        handle.write("new")
    assert link.is_symlink() and os.readlink(link) == str(real)
    assert real.read_text() == "new"
    assert sorted(p.name for p in real.parent.iterdir()) == ["real.tsv"]


def test_a_fifo_is_written_in_place(tmp_path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    received: list[bytes] = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()))
    reader.start()
    with atomic_writer(fifo) as handle:
        handle.write("through the pipe\n")
    reader.join(timeout=10)
    assert received == [b"through the pipe\n"]
    assert stat.S_ISFIFO(fifo.stat().st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pipe"]


@pytest.mark.parametrize("mode", ["w", "wb"])
def test_dev_null_is_written_in_place_not_replaced(mode: str) -> None:
    before = os.stat("/dev/null")
    with atomic_writer("/dev/null", mode=mode) as handle:
        handle.write(b"x" if "b" in mode else "x")
    after = os.stat("/dev/null")
    assert stat.S_ISCHR(after.st_mode) and after.st_ino == before.st_ino


def test_dev_full_stays_a_device_and_the_failure_names_it() -> None:
    with pytest.raises(InputError, match=r"^/dev/full: cannot write: No space left"), \
            atomic_writer("/dev/full") as handle:
        handle.write("x" * 100)
    assert stat.S_ISCHR(os.stat("/dev/full").st_mode)


@pytest.mark.parametrize(("make", "reason"), [
    (lambda t: t, "is a directory"),
    (lambda t: t / "plain.txt" / "out.tsv", "Not a directory"),
    (lambda t: t / "missing" / "out.tsv", "does not exist"),
    (lambda t: Path("/proc/pooljudge.tsv"), "cannot write"),
], ids=["directory", "under-a-file", "missing-folder", "proc"])
def test_an_unwritable_path_is_an_input_error_and_leaves_no_file(tmp_path, make, reason) -> None:
    (tmp_path / "plain.txt").write_text("keep")
    target = make(tmp_path)
    with pytest.raises(InputError, match=reason) as caught, atomic_writer(target) as handle:
        handle.write("x")
    assert str(caught.value).startswith(f"{target}: ")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["plain.txt"]
    assert (tmp_path / "plain.txt").read_text() == "keep"


def test_standard_output_failures_name_stdout(monkeypatch) -> None:
    full = open("/dev/full", "w")  # noqa: SIM115 - closed below
    monkeypatch.setattr("sys.stdout", full)
    try:
        with pytest.raises(InputError, match=r"^<stdout>: cannot write"), \
                atomic_writer("-") as handle:
            handle.write("x")
    finally:
        monkeypatch.undo()
        with contextlib.suppress(OSError):
            full.close()


@pytest.mark.parametrize("payload", [b"\xef\xbb\xbf1 0 d1 1\n", b"1 0 d1 1\n"])
def test_read_bytes_drops_a_byte_order_mark(tmp_path, payload: bytes) -> None:
    path = tmp_path / "f"
    path.write_bytes(payload)
    assert read_bytes(path) == b"1 0 d1 1\n"


def test_gzip_that_does_not_inflate_is_an_input_error(tmp_path) -> None:
    path = tmp_path / "f.gz"
    path.write_bytes(b"\x1f\x8b\x08\x00" + b"garbage" * 20)
    with pytest.raises(InputError, match="corrupt gzip data"):
        read_bytes(path)


def test_a_closed_pipe_on_standard_output_stays_a_broken_pipe(monkeypatch) -> None:
    """cli.main ends quietly when the reader of a pipe (``| head``) stops early."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    stream = os.fdopen(write_end, "w")
    monkeypatch.setattr("sys.stdout", stream)
    try:
        with pytest.raises(BrokenPipeError), atomic_writer("-") as handle:
            handle.write("x")
    finally:
        monkeypatch.undo()
        with contextlib.suppress(OSError):
            stream.close()
