"""End to end, in process: faults injected by the test server, labels and failures stored."""

from __future__ import annotations

import pytest

from pooljudge.cli import main
from tests.autojudge import conftest as judges
from tests.autojudge.helpers import autojudge_args, counters, failures, labels, stored

# the automatic judges' fixtures (tests/autojudge/conftest.py), before tests/cli/conftest.py's
api_key, db_url, engine, make_campaign, server_for = (
    judges.api_key, judges.db_url, judges.engine, judges.make_campaign, judges.server_for)


def test_all_pairs_under_faults_then_rerun_retries_failures(
        engine, make_campaign, server_for, api_key, capsys):
    campaign = make_campaign(3, 6)
    server = server_for(campaign, retry_after="0.2", slow_seconds=1.5, noise=0.3)
    server.plan("t0", "d0", "429")
    server.plan("t0", "d1", "500", "503")
    server.plan("t0", "d2", "malformed")
    server.plan("t0", "d3", "drop")
    server.plan("t0", "d4", "slow")
    server.plan("t0", "d5", "nolabel")               # re-asked once, then labelled
    server.plan("t1", "d0", "nolabel", "nolabel")    # failed
    server.plan("t1", "d1", "outside", "outside")    # failed
    server.plan("t1", "d2", "500", "500", "500")     # failed: 3 attempts allowed
    slots = counters(engine)
    args = autojudge_args(campaign, server, "--timeout", "0.5", "--max-attempts", "3",
                          "--backoff", "0.01", "--concurrency", "4")
    assert main(args) == 0
    summary = capsys.readouterr().out
    assert "labelled 15, failed 3, skipped 0" in summary
    done = labels(engine)
    failed = {("t1", "d0"), ("t1", "d1"), ("t1", "d2")}
    assert set(done) == set(campaign.truth) - failed
    assert done == {pair: server.answers[pair] for pair in done}
    assert failures(engine) == failed
    assert counters(engine) == slots  # an automatic judge never takes a slot
    attempts = {(t, d): n for t, d, _, _, _, n, _, _ in stored(engine)}
    assert {pair: attempts[pair] for pair in [("t0", "d0"), ("t0", "d1"), ("t0", "d5")]} \
        == {("t0", "d0"): 2, ("t0", "d1"): 3, ("t0", "d5"): 2}
    assert all(len(server.requests_for(*pair)) == n for pair, n in attempts.items())
    assert {row[4] for row in stored(engine)} == {"automatic"}

    assert main([*args[:-2], "--db", campaign.url, "--failures"]) == 0
    listed = capsys.readouterr().out
    assert "no valid label after a re-ask" in listed and "HTTP 500" in listed
    assert sum(line.startswith("llm-a") or " llm-a " in line
               for line in listed.splitlines()) == 3

    before = len(server.requests)
    assert main(args) == 0
    assert "labelled 3, failed 0, skipped 15" in capsys.readouterr().out
    assert {(r.topic, r.doc) for r in server.requests[before:]} == failed
    assert set(labels(engine)) == set(campaign.truth)
    assert failures(engine) == set()


@pytest.mark.parametrize("limit", [4])
def test_limit_and_skip_done(engine, make_campaign, server_for, api_key, capsys, limit):
    campaign = make_campaign(2, 5)
    server = server_for(campaign)
    assert main(autojudge_args(campaign, server, "--limit", str(limit))) == 0
    assert "labelled 4" in capsys.readouterr().out and len(labels(engine)) == 4
    assert main(autojudge_args(campaign, server)) == 0
    assert "labelled 6, failed 0, skipped 4" in capsys.readouterr().out
    assert labels(engine) == campaign.truth
    assert len(server.requests) == 10
