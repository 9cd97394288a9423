"""``pooljudge simulate`` when one of its processes dies: a clear error, not a hang."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
from pooljudge.annotate.store import judgments_frame, open_engine, session_scope

from pooljudge.cli import main

N_DOCS = 20_000  # enough that the simulation is still running when a worker is killed


def _campaign(folder: Path) -> str:
    """A one-topic campaign of N_DOCS pairs in ``folder / p.db``; its database URL."""
    docs = [f"D{i}" for i in range(N_DOCS)]
    (folder / "topics.tsv").write_text("id\ttitle\tdescription\tnarrative\n1\tt\td\tn\n")
    pd.DataFrame({"id": docs, "title": "x", "text": "y"}).to_json(
        folder / "docs.jsonl", orient="records", lines=True)
    pd.DataFrame({"topic": "1", "doc": docs, "order": range(1, N_DOCS + 1),
                  "best_rank": range(1, N_DOCS + 1), "runs": "A"}).to_csv(
        folder / "pool.tsv", sep="\t", index=False)
    (folder / "qrels.txt").write_text("1 0 D1 1\n")
    url = f"sqlite:///{folder / 'p.db'}"
    assert main(["init", "c", "--topics", str(folder / "topics.tsv"), "--docs",
                 str(folder / "docs.jsonl"), "--pool", str(folder / "pool.tsv"),
                 "--db", url]) == 0
    return url


def _spawned_workers(pid: int) -> list[int]:
    """Child processes of ``pid`` started by multiprocessing's spawn (not its resource tracker)."""
    children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    found = []
    for child in map(int, children):
        try:
            command = Path(f"/proc/{child}/cmdline").read_bytes()
        except FileNotFoundError:
            continue
        if b"spawn_main" in command:
            found.append(child)
    return found


def _judged(url: str) -> int:
    engine = open_engine(url)
    with session_scope(engine, readonly=True) as session:
        count = len(judgments_frame(session, campaign="c"))
    engine.dispose()
    return count


def test_a_killed_worker_ends_simulate_with_a_clear_error(tmp_path: Path) -> None:
    url = _campaign(tmp_path)
    process = subprocess.Popen(
        [sys.executable, "-m", "pooljudge", "simulate", "annotators", "--campaign", "c", "--truth",
         str(tmp_path / "qrels.txt"), "--annotators", "2", "--workers", "2", "--db", url],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while len(workers := _spawned_workers(process.pid)) < 2 or _judged(url) < 50:
            assert process.poll() is None and time.monotonic() < deadline
            time.sleep(0.1)
        os.kill(workers[0], signal.SIGKILL)
        _, err = process.communicate(timeout=60)
    finally:
        process.kill()
    assert process.returncode == 1, err
    assert "Traceback" not in err
    assert err.strip().splitlines()[-1].startswith("pooljudge: error: a simulating process died")
    assert 50 <= _judged(url) < N_DOCS  # what was committed stays; the rest was not faked
