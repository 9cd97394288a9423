"""The consistency check: silent on every normal write path, loud on each broken invariant."""

from __future__ import annotations

import pandas as pd
import pytest
import sqlalchemy as sa
from pooljudge.annotate.store import (
    add_annotator,
    annotator_id,
    consistency_problems,
    import_judgments,
    next_pair,
    record_judgment,
    session_scope,
    skip_pair,
)

from pooljudge.errors import InputError


def _ids(engine, campaign: str, names: list[str]) -> list[int]:
    with session_scope(engine) as session:
        for name in names:
            add_annotator(session, campaign=campaign, name=name,
                          role="admin" if name == "boss" else "annotator")
    with session_scope(engine) as session:
        return [annotator_id(session, campaign=campaign, name=n) for n in names]


def _problems(engine, campaign: str) -> list[str]:
    with session_scope(engine, readonly=True) as session:
        return consistency_problems(session, campaign=campaign)


@pytest.mark.parametrize("assign_mode", ["pair", "topic"])
def test_every_normal_write_path_keeps_the_counters(engine, make_campaign, assign_mode):
    campaign = make_campaign(overlap=2, n_topics=3, n_docs=4, assign_mode=assign_mode)
    alice, bob, carol, boss = _ids(engine, campaign, ["alice", "bob", "carol", "boss"])
    for person in (alice, bob, carol):  # claims, judgments, a relabel, a skip
        for _ in range(3):
            with session_scope(engine) as session:
                view = next_pair(session, annotator_id=person)
                record_judgment(session, annotator_id=person, pair_id=view.pair_id, label=1)
        with session_scope(engine) as session:
            view = next_pair(session, annotator_id=person)
            skip_pair(session, annotator_id=person, pair_id=view.pair_id)
        with session_scope(engine) as session:
            next_pair(session, annotator_id=person)  # a live claim stays open
    with session_scope(engine) as session:
        first = next(iter(_judged_pairs(session, alice)))
        record_judgment(session, annotator_id=alice, pair_id=first, label=0)  # version 2
        record_judgment(session, annotator_id=boss, pair_id=first, label=1, kind="adjudication")
    frame = pd.DataFrame({"annotator": ["bob", "llm", "llm"], "topic": ["t2", "t0", "t1"],
                          "doc": ["d3", "d0", "d1"], "label": [0, 1, 1]})
    with session_scope(engine) as session:
        import_judgments(session, campaign=campaign, frame=frame, label_sources=["llm"])
    assert _problems(engine, campaign) == []


def _campaign_id(session, campaign: str) -> int:
    return session.execute(sa.text("SELECT id FROM campaign WHERE name = :n"),
                           {"n": campaign}).scalar_one()


def _judged_pairs(session, annotator: int) -> list[int]:
    return session.execute(sa.text("SELECT pair_id FROM judgment WHERE annotator_id = :a "
                                   "ORDER BY id"), {"a": annotator}).scalars().all()


_BREAKAGES = {
    "pair.judged": "UPDATE pair SET judged = judged + 1 WHERE id = :pair",
    "pair.open_slots": "UPDATE pair SET open_slots = open_slots + 1 WHERE id = :pair",
    "annotator_topic.judged": "UPDATE annotator_topic SET judged = judged + 1 WHERE "
                              "annotator_id IN (SELECT id FROM annotator WHERE campaign_id = :c)",
    "annotator_topic.judged ": "DELETE FROM annotator_topic WHERE annotator_id IN "
                               "(SELECT id FROM annotator WHERE campaign_id = :c)",
    "judgment versions": "UPDATE judgment SET version = 3 WHERE pair_id = :pair",
}


@pytest.mark.parametrize("expected", sorted(_BREAKAGES), ids=str.strip)
def test_each_broken_invariant_is_reported(engine, make_campaign, expected):
    campaign = make_campaign(overlap=2, n_topics=2, n_docs=3)
    (alice,) = _ids(engine, campaign, ["alice"])
    with session_scope(engine) as session:
        view = next_pair(session, annotator_id=alice)
        record_judgment(session, annotator_id=alice, pair_id=view.pair_id, label=1)
    assert _problems(engine, campaign) == []
    with session_scope(engine) as session:
        session.execute(sa.text(_BREAKAGES[expected]),
                        {"pair": view.pair_id, "c": _campaign_id(session, campaign)})
    problems = _problems(engine, campaign)
    assert problems and any(line.startswith(expected.strip()) for line in problems), problems


def test_topic_slots_are_checked_in_campaigns_assigned_by_topic(engine, make_campaign):
    campaign = make_campaign(overlap=2, n_topics=2, n_docs=3, assign_mode="topic")
    (alice,) = _ids(engine, campaign, ["alice"])
    with session_scope(engine) as session:
        next_pair(session, annotator_id=alice)
    assert _problems(engine, campaign) == []
    with session_scope(engine) as session:
        session.execute(sa.text("UPDATE topic SET open_slots = 2 WHERE campaign_id = :c"),
                        {"c": _campaign_id(session, campaign)})
    assert any(line.startswith("topic.open_slots") for line in _problems(engine, campaign))


def test_many_differences_are_counted_beyond_the_examples(engine, make_campaign):
    campaign = make_campaign(overlap=1, n_topics=5, n_docs=10)
    with session_scope(engine) as session:
        session.execute(sa.text("UPDATE pair SET judged = 7 WHERE campaign_id = :c"),
                        {"c": _campaign_id(session, campaign)})
    problems = _problems(engine, campaign)
    assert len(problems) == 21 and problems[-1] == "pair.judged differs from the judgments: " \
        "30 more"


def test_unknown_campaign_is_an_input_error(engine):
    with session_scope(engine, readonly=True) as session, pytest.raises(InputError):
        consistency_problems(session, campaign="nope")


def test_campaigns_check_command_reports_and_exits_1_on_a_mismatch(db_url, engine,
                                                                   make_campaign, capsys):
    from pooljudge.cli import main

    campaign = make_campaign(overlap=2, n_topics=2, n_docs=3)
    assert main(["campaigns", "check", campaign, "--db", db_url]) == 0
    assert "every counter agrees" in capsys.readouterr().err
    with session_scope(engine) as session:
        session.execute(sa.text("UPDATE pair SET judged = 1 WHERE campaign_id = :c"),
                        {"c": _campaign_id(session, campaign)})
    assert main(["campaigns", "check", campaign, "--db", db_url]) == 1
    captured = capsys.readouterr()
    assert captured.out.count("pair.judged differs") == 6
    assert "6 inconsistencies" in captured.err


def test_a_claim_ending_on_a_pair_filled_meanwhile_returns_no_slot(engine, make_campaign):
    """K = 1: alice holds d0's slot, bob's judgment of d0 arrives by import (the pair is now
    complete), then alice's lease ends. Her slot must not come back: nobody may judge d0 again."""
    campaign = make_campaign(overlap=1, n_topics=1, n_docs=2)
    alice, _ = _ids(engine, campaign, ["alice", "bob"])
    with session_scope(engine) as session:
        view = next_pair(session, annotator_id=alice, lease_seconds=-1)  # ends at once
    assert view.doc_id == "d0"
    frame = pd.DataFrame({"annotator": ["bob"], "topic": ["t0"], "doc": ["d0"], "label": [1]})
    with session_scope(engine) as session:
        import_judgments(session, campaign=campaign, frame=frame, source="human")
    with session_scope(engine) as session:
        following = next_pair(session, annotator_id=alice)  # releases the ended claim first
    assert following is not None and following.doc_id == "d1"
    assert _problems(engine, campaign) == []
    with session_scope(engine) as session:
        record_judgment(session, annotator_id=alice, pair_id=following.pair_id, label=0)
        assert next_pair(session, annotator_id=alice) is None  # d0 is complete with bob's
    assert _problems(engine, campaign) == []
