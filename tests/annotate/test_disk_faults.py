"""Full and read-only disks: one error line, exit 2, and nothing half-written anywhere.

The database (SQLite) and the output files live on a small tmpfs mounted by the test, filled up
or remounted read-only while the command runs into it. Needs root and mount(2), as in CI; the
tests skip elsewhere.
"""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pytest
from pooljudge.annotate.records import LabelScale
from pooljudge.annotate.store import (
    add_annotator,
    consistency_problems,
    create_campaign,
    judgments_frame,
    open_engine,
    session_scope,
)


@pytest.fixture
def small_disk(tmp_path) -> Iterator[Path]:
    """A 32 MB tmpfs mounted at ``tmp_path/disk``, unmounted afterwards."""
    mount = tmp_path / "disk"
    mount.mkdir()
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root")
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=32m", "tmpfs", str(mount)],
                          capture_output=True, text=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip()}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def _fill(disk: Path, leave_bytes: int) -> Path:
    """Fill ``disk`` until about ``leave_bytes`` are free; the filler file."""
    filler = disk / "filler"
    free = os.statvfs(disk).f_bavail * os.statvfs(disk).f_frsize
    with filler.open("wb") as handle:
        handle.write(b"\0" * max(free - leave_bytes, 0))
    return filler


def _remount(disk: Path, mode: str) -> None:
    subprocess.run(["mount", "-o", f"remount,{mode}", str(disk)], check=True)


def _pooljudge(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pooljudge", *args], capture_output=True,
                          text=True, timeout=300, cwd=cwd)


def _assert_one_error_line(done: subprocess.CompletedProcess, *names: str) -> str:
    assert done.returncode == 2, (done.returncode, done.stderr)
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("pooljudge: error: "), done.stderr
    assert "Traceback" not in done.stderr
    for name in names:
        assert name in lines[0], lines[0]
    return lines[0]


def _campaign(url: str, collection, n_topics: int = 20, n_docs: int = 200) -> str:
    name = f"d-{uuid.uuid4().hex[:6]}"
    engine = open_engine(url)
    with session_scope(engine) as session:
        create_campaign(session, name=name, scale=LabelScale.binary(), overlap=2,
                        **collection(n_topics, n_docs))
        add_annotator(session, campaign=name, name="alice")
    engine.dispose()
    return name


def _state(url: str, campaign: str) -> tuple[int, list[str]]:
    engine = open_engine(url)
    try:
        with session_scope(engine, readonly=True) as session:
            return (len(judgments_frame(session, campaign=campaign, latest_only=False)),
                    consistency_problems(session, campaign=campaign))
    finally:
        engine.dispose()


def _big_import(path: Path, collection, sources: int = 20) -> list[str]:
    pairs = collection(20, 200)["pool"][["topic", "doc"]]
    rows = pd.concat([pairs.assign(annotator=f"src{i}") for i in range(sources)])
    rows.assign(label=1)[["annotator", "topic", "doc", "label"]].to_csv(path, sep="\t",
                                                                       index=False)
    return [f"--new-annotator=src{i}" for i in range(sources)]


def test_import_onto_a_full_disk_stores_nothing(small_disk, collection, tmp_path):
    url = f"sqlite:///{small_disk / 'store.db'}"
    campaign = _campaign(url, collection)
    big = tmp_path / "big.tsv"
    sources = _big_import(big, collection)
    filler = _fill(small_disk, leave_bytes=300_000)
    done = _pooljudge("judgments", "import", str(big), "--campaign", campaign, "--db", url,
                      *sources)
    _assert_one_error_line(done, "full")
    filler.unlink()
    assert _state(url, campaign) == (0, [])
    done = _pooljudge("judgments", "import", str(big), "--campaign", campaign, "--db", url,
                      *sources)  # with room again, the same file goes in whole
    assert done.returncode == 0, done.stderr
    assert _state(url, campaign) == (80_000, [])


def test_init_onto_a_full_disk_creates_no_campaign(small_disk, collection, tmp_path):
    url = f"sqlite:///{small_disk / 'store.db'}"
    _campaign(url, collection, n_topics=1, n_docs=1)
    data = collection(200, 100)
    paths = {key: tmp_path / f"{key}.jsonl" for key in ("topics", "documents")}
    for key, path in paths.items():
        data[key].to_json(path, orient="records", lines=True)
    data["pool"].to_csv(tmp_path / "pool.tsv", sep="\t", index=False)
    filler = _fill(small_disk, leave_bytes=200_000)
    done = _pooljudge("init", "big", "--topics", str(paths["topics"]), "--docs",
                      str(paths["documents"]), "--pool", str(tmp_path / "pool.tsv"), "--db", url)
    _assert_one_error_line(done, "full")
    filler.unlink()
    listed = _pooljudge("campaigns", "list", "--format", "tsv", "--db", url)
    assert listed.returncode == 0 and "big" not in listed.stdout.split()


@pytest.mark.parametrize("command", [
    ("annotators", "add", "bob"),
    ("judgments", "import", "{file}"),
])
def test_writes_to_a_read_only_database_fail_cleanly(small_disk, collection, tmp_path, command):
    url = f"sqlite:///{small_disk / 'store.db'}"
    campaign = _campaign(url, collection, n_topics=2, n_docs=5)
    judged = tmp_path / "one.tsv"
    judged.write_text("annotator\ttopic\tdoc\tlabel\nalice\tt0\td0\t1\n")
    _remount(small_disk, "ro")
    try:
        args = [a.format(file=judged) for a in command]
        done = _pooljudge(*args, "--campaign", campaign, "--db", url)
        _assert_one_error_line(done)
    finally:
        _remount(small_disk, "rw")
    assert _state(url, campaign) == (0, [])


def _eval_inputs(folder: Path) -> tuple[Path, Path]:
    qrels, run = folder / "qrels.txt", folder / "run.txt"
    qrels.write_text("".join(f"{t} 0 d{d} {d % 2}\n" for t in range(50) for d in range(100)))
    run.write_text("".join(f"{t} Q0 d{d} {d + 1} {100 - d} r\n"
                           for t in range(50) for d in range(100)))
    return qrels, run


@pytest.mark.parametrize("command", ["eval", "pool", "report"])
def test_output_onto_a_full_disk_keeps_the_old_file(small_disk, tmp_path, command):
    qrels, run = _eval_inputs(tmp_path)
    target = small_disk / "out.txt"
    target.write_text("old\n")
    args = {"eval": ["eval", str(qrels), str(run), "--per-topic", "--format", "tsv"],
            "pool": ["pool", str(run), "--depth", "100"],
            "report": ["report", str(qrels), str(run)]}[command]
    _fill(small_disk, leave_bytes=0)
    done = _pooljudge(*args, "-o", str(target))
    _assert_one_error_line(done, str(target))
    assert target.read_text() == "old\n"
    assert sorted(p.name for p in small_disk.iterdir()) == ["filler", "out.txt"]  # no temp file


def test_export_onto_a_full_disk_keeps_the_old_files(small_disk, collection, tmp_path):
    url = f"sqlite:///{tmp_path / 'store.db'}"
    campaign = _campaign(url, collection)
    big = tmp_path / "big.tsv"
    sources = _big_import(big, collection, sources=2)
    assert _pooljudge("judgments", "import", str(big), "--campaign", campaign, "--db", url,
                      *sources).returncode == 0
    qrels = small_disk / "qrels.txt"
    qrels.write_text("old\n")
    _fill(small_disk, leave_bytes=0)
    done = _pooljudge("export", "--campaign", campaign, "--db", url, "-o", str(qrels))
    _assert_one_error_line(done)
    assert qrels.read_text() == "old\n"
    assert sorted(p.name for p in small_disk.iterdir()) == ["filler", "qrels.txt"]
