"""Real processes: kill -9 mid-run, Ctrl-C, and two judges' processes at once."""

from __future__ import annotations

import signal
import time

import pytest

from .helpers import autojudge_args, labels, start_process, stored

TIMEOUT = 120


def _wait_for_labels(engine, count: int, process) -> None:
    """Poll until the judge has ``count`` labels committed (the process still running)."""
    deadline = time.monotonic() + TIMEOUT
    while len(stored(engine)) < count:
        if process.poll() is not None:
            pytest.fail(f"the run ended early: {process.communicate()}")
        if time.monotonic() > deadline:
            pytest.fail("no labels arrived")
        time.sleep(0.05)


def _finish(process) -> tuple[int, str, str]:
    out, err = process.communicate(timeout=TIMEOUT)
    return process.returncode, out, err


def test_kill_9_then_rerun_labels_every_pair_once(engine, make_campaign, server_for, api_key):
    campaign = make_campaign(4, 10)
    server = server_for(campaign, latency=0.05)
    args = autojudge_args(campaign, server, "--concurrency", "4")
    process = start_process(args, api_key)
    _wait_for_labels(engine, 6, process)
    process.send_signal(signal.SIGKILL)
    assert process.wait(timeout=TIMEOUT) == -signal.SIGKILL
    survived = labels(engine)
    assert 6 <= len(survived) < len(campaign.truth)
    status, out, err = _finish(start_process(args, api_key))
    assert status == 0, err
    assert f"skipped {len(survived)}" in out
    assert labels(engine) == {p: server.answers[p] for p in campaign.truth}
    assert all(row[3] == 1 and row[5] is not None for row in stored(engine))


def test_ctrl_c_commits_what_arrived_and_exits_130(engine, make_campaign, server_for, api_key):
    campaign = make_campaign(4, 10)
    server = server_for(campaign, latency=0.2)
    args = autojudge_args(campaign, server, "--concurrency", "4")
    process = start_process(args, api_key)
    _wait_for_labels(engine, 4, process)
    process.send_signal(signal.SIGINT)
    status, out, err = _finish(process)
    assert status == 130, err
    assert "interrupted" in out and err.strip() == "pooljudge: interrupted"
    answered = {(r.topic, r.doc) for r in server.requests}
    done = labels(engine)
    assert set(done) == answered  # the requests in flight were waited for and committed
    assert len(done) < len(campaign.truth)
    status, _, err = _finish(start_process(args, api_key))
    assert status == 0, err
    assert labels(engine) == {p: server.answers[p] for p in campaign.truth}


def test_two_processes_at_once_never_label_a_pair_twice(engine, make_campaign, server_for,
                                                       api_key):
    campaign = make_campaign(4, 10)
    server = server_for(campaign, latency=0.02)
    args = autojudge_args(campaign, server, "--concurrency", "4")
    first, second = start_process(args, api_key), start_process(args, api_key)
    results = [_finish(first), _finish(second)]
    assert [status for status, _, _ in results] == [0, 0], results
    assert labels(engine) == {p: server.answers[p] for p in campaign.truth}
    with engine.connect() as connection:
        import sqlalchemy as sa

        judges = connection.execute(sa.text(
            "SELECT COUNT(*) FROM annotator WHERE name = 'llm-a'")).scalar()
        provenance = connection.execute(sa.text("SELECT COUNT(*) FROM auto_judgment")).scalar()
    assert judges == 1 and provenance == len(campaign.truth)
