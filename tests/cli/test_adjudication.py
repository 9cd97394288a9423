"""``pooljudge adjudication list`` on a campaign built by the store: the queue until decided."""

from __future__ import annotations

from tests.support import graded_campaign as graded
from tests.support.graded_campaign import adjudicate, run

campaign = graded.campaign  # the fixture: alice, bob, carol and adjudicator dave


def test_adjudication_list_shows_the_queue_until_decided(campaign, capsys):
    url, name = campaign
    status, out, _ = run(capsys, "adjudication", "list", "--campaign", name, "--db", url,
                         "--format", "tsv")
    assert status == 0
    queue = out.splitlines()
    assert queue[0] == "topic\tdoc\tvotes\tn_votes\tspread"
    # Two grades apart: t0/d0 (0 0 2), t1/d2 (1 0 2).
    assert [line.split("\t")[:2] for line in queue[1:]] == [["t0", "d0"], ["t1", "d2"]]
    adjudicate(url, "t0", "d0", 0)
    status, out, _ = run(capsys, "adjudication", "list", "--campaign", name, "--db", url,
                         "--format", "tsv")
    assert [line.split("\t")[:2] for line in out.splitlines()[1:]] == [["t1", "d2"]]
    status, out, _ = run(capsys, "adjudication", "list", "--campaign", name, "--db", url,
                         "--all")
    assert "dave" in out
