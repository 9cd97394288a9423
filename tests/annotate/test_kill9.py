"""Kill -9 at any moment leaves the database consistent and every output file whole.

Each test starts a real command as its own process group, kills the whole group with SIGKILL
at several moments (a power cut for that command), and then checks: the store's counters equal
a recount of their rows (:func:`pooljudge.annotate.store.consistency_problems`), nothing is
half-imported,
and an output file is either the old one or the complete new one. Then the same command runs
to the end and the result is exactly what an uninterrupted run gives. SQLite and PostgreSQL.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pandas as pd
from pooljudge.annotate.records import LabelScale
from pooljudge.annotate.store import (
    add_annotator,
    campaign_summary,
    consistency_problems,
    create_campaign,
    judgments_frame,
    list_campaigns,
    session_scope,
)

KILL_AFTER = (0.4, 1.2, 2.5, 4.0)  # seconds after the start: start-up, reading, writing


def _pooljudge(*args: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "pooljudge", *args],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            start_new_session=True)


def _kill_group_after(process: subprocess.Popen, seconds: float) -> bool:
    """SIGKILL the process group after ``seconds`` (or when it ends); whether it was killed."""
    try:
        process.wait(timeout=seconds)
        return False
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
        _wait_group_gone(process.pid)
        return True


def _wait_group_gone(group: int, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            os.killpg(group, 0)
        except ProcessLookupError:
            return
        time.sleep(0.05)
    raise AssertionError(f"process group {group} outlived SIGKILL")


def _wait_for_judgments(engine, campaign: str, *, more_than: int,
                        process: subprocess.Popen) -> None:
    """Until the campaign holds more than ``more_than`` judgments (the command is judging)."""
    deadline = time.monotonic() + 120
    while len(_judgments(engine, campaign)) <= more_than:
        assert process.poll() is None, process.stderr.read().decode()
        assert time.monotonic() < deadline, "no judgment within 120 s"
        time.sleep(0.05)


def _problems(engine, campaign: str) -> list[str]:
    with session_scope(engine, readonly=True) as session:
        return consistency_problems(session, campaign=campaign)


def _judgments(engine, campaign: str) -> pd.DataFrame:
    with session_scope(engine, readonly=True) as session:
        return judgments_frame(session, campaign=campaign, latest_only=False)


def _campaign(engine, collection, *, overlap: int, n_topics: int, n_docs: int) -> str:
    name = f"k-{uuid.uuid4().hex[:8]}"
    with session_scope(engine) as session:
        create_campaign(session, name=name, scale=LabelScale.binary(), overlap=overlap,
                        **collection(n_topics, n_docs))
        add_annotator(session, campaign=name, name="w00")
    return name


def _truth_file(path: Path, n_topics: int, n_docs: int) -> Path:
    path.write_text("".join(f"t{i} 0 d{j} {(i + j) % 2}\n"
                            for i in range(n_topics) for j in range(n_docs)))
    return path


def test_killed_judging_leaves_the_counters_true(engine, db_url, collection, tmp_path):
    """``simulate`` (claims and judgments through the real path, 2 processes) killed again
    and again, then run to the end: every pair gets exactly K judgments."""
    n_topics, n_docs, overlap = 10, 40, 2
    campaign = _campaign(engine, collection, overlap=overlap, n_topics=n_topics, n_docs=n_docs)
    truth = _truth_file(tmp_path / "truth.txt", n_topics, n_docs)
    command = ("simulate", "annotators", "--campaign", campaign, "--truth", str(truth),
               "--annotators", "3", "--workers", "2", "--db", db_url)
    _kill_group_after(_pooljudge(*command), KILL_AFTER[0])  # during start-up
    assert _problems(engine, campaign) == []
    total, counts = n_topics * n_docs * overlap, []
    for seconds in (0.0, 0.3, 1.0):  # after the first new judgment: in the middle of judging
        before = len(_judgments(engine, campaign))
        process = _pooljudge(*command)
        _wait_for_judgments(engine, campaign, more_than=before, process=process)
        killed = _kill_group_after(process, seconds)
        assert _problems(engine, campaign) == [], f"after a kill {seconds} s into judging"
        frame = _judgments(engine, campaign)
        assert (frame["version"] == 1).all()
        assert (frame.groupby(["topic", "doc"]).size() <= overlap).all()
        counts.append((killed, len(frame)))
    assert any(killed and 0 < n < total for killed, n in counts), counts
    finish = _pooljudge(*command)
    assert finish.wait(timeout=300) == 0, finish.stderr.read().decode()
    frame = _judgments(engine, campaign)
    assert len(frame) == total and (frame.groupby(["topic", "doc"]).size() == overlap).all()
    assert _problems(engine, campaign) == []


def test_simulating_processes_die_with_their_command(engine, db_url, collection, tmp_path):
    """SIGKILL of ``simulate`` alone (not its group): its worker processes stop too, instead of
    judging on, unseen, parented to init."""
    campaign = _campaign(engine, collection, overlap=2, n_topics=20, n_docs=200)
    truth = _truth_file(tmp_path / "truth.txt", 20, 200)
    process = _pooljudge("simulate", "annotators", "--campaign", campaign, "--truth", str(truth),
                         "--annotators", "3", "--workers", "2", "--db", db_url)
    _wait_for_judgments(engine, campaign, more_than=0, process=process)
    os.kill(process.pid, signal.SIGKILL)
    process.wait()
    time.sleep(1.0)
    settled = len(_judgments(engine, campaign))
    try:
        _wait_group_gone(process.pid, timeout=5.0)
    finally:
        _kill_stragglers(process.pid)
    time.sleep(1.0)
    assert len(_judgments(engine, campaign)) == settled  # nobody judges after the command died
    assert _problems(engine, campaign) == []


def _kill_stragglers(group: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(group, signal.SIGKILL)


def test_killed_import_stores_all_or_nothing(engine, db_url, collection, tmp_path):
    campaign = _campaign(engine, collection, overlap=1, n_topics=40, n_docs=100)
    pairs = collection(40, 100)["pool"][["topic", "doc"]]
    rows = pd.concat([pairs.assign(annotator=f"src{i}") for i in range(30)])  # 120,000
    big = tmp_path / "big.tsv"
    rows.assign(label=1)[["annotator", "topic", "doc", "label"]].to_csv(big, sep="\t",
                                                                       index=False)
    command = ("judgments", "import", str(big), "--campaign", campaign, "--db", db_url,
               *[f"--new-annotator=src{i}" for i in range(30)])
    for seconds in KILL_AFTER:
        before = len(_judgments(engine, campaign))
        killed = _kill_group_after(_pooljudge(*command), seconds)
        after = len(_judgments(engine, campaign))
        assert after in (before, before + len(rows)), (seconds, before, after)
        assert _problems(engine, campaign) == []
        if not killed:
            break  # the import finished: a later one would be a second import
    assert _problems(engine, campaign) == []


def test_killed_init_leaves_no_half_campaign(engine, db_url, collection, tmp_path):
    data = collection(200, 100)  # 20,000 pairs
    paths = {}
    for key, frame in data.items():
        paths[key] = tmp_path / f"{key}.tsv"
        frame.to_csv(paths[key], sep="\t", index=False)
    topics = tmp_path / "topics.jsonl"
    data["topics"].to_json(topics, orient="records", lines=True)
    docs = tmp_path / "docs.jsonl"
    data["documents"].to_json(docs, orient="records", lines=True)
    for seconds in KILL_AFTER:
        name = f"i-{uuid.uuid4().hex[:8]}"
        process = _pooljudge("init", name, "--topics", str(topics), "--docs", str(docs),
                             "--pool", str(paths["pool"]), "--overlap", "2", "--db", db_url)
        killed = _kill_group_after(process, seconds)
        with session_scope(engine, readonly=True) as session:
            names = [c.name for c in list_campaigns(session)]
        if killed and name not in names:
            continue
        assert name in names, process.stderr.read().decode()
        assert _problems(engine, name) == []
        with session_scope(engine, readonly=True) as session:
            assert campaign_summary(session, campaign=name)["pairs"] == 20_000


def test_killed_export_leaves_the_old_file_or_the_new_one(engine, db_url, collection,
                                                          tmp_path):
    campaign = _campaign(engine, collection, overlap=1, n_topics=100, n_docs=200)
    pairs = collection(100, 200)["pool"][["topic", "doc"]]
    judged = tmp_path / "judged.tsv"
    pairs.assign(annotator="src", label=1)[["annotator", "topic", "doc", "label"]].to_csv(
        judged, sep="\t", index=False)
    done = _pooljudge("judgments", "import", str(judged), "--campaign", campaign, "--db",
                      db_url, "--new-annotator=src")
    assert done.wait(timeout=300) == 0, done.stderr.read().decode()
    qrels = tmp_path / "qrels.txt"
    old = "t0 0 old 1\n"
    qrels.write_text(old)
    complete, seen = None, []
    for seconds in (*KILL_AFTER, 60):
        process = _pooljudge("export", "--campaign", campaign, "--db", db_url, "-o", str(qrels))
        if not _kill_group_after(process, seconds):
            assert process.returncode == 0, process.stderr.read().decode()
            complete = qrels.read_text()
            break
        seen.append((seconds, qrels.read_text()))
        qrels.write_text(old)  # the next run starts from the old file again
    assert complete is not None and len(complete.splitlines()) == 20_000
    for seconds, text in seen:  # killed before the rename, or after it: never in between
        assert text in (old, complete), f"after a kill at {seconds} s: a half-written file"
