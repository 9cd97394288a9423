"""The assignment overlap (revision 0015) on SQLite and PostgreSQL: with K, a person's queue
holds the answers they started and those fewer than K others started; no one gets an answer
twice; a first label on an answer K others hold is refused (two people who opened it at once
never make K + 1); label sources and removed people free their slot; ``nuggets overlap``."""

from __future__ import annotations

import uuid

import pytest
from pooljudge.annotate import store
from pooljudge.annotate.store import Credential, session_scope

from pooljudge.cli import main
from pooljudge.errors import InputError
from pooljudge.formats.nugget_assignments import AssignmentRow
from tests.support.nugget_campaign import make_nugget_campaign, nugget_text

PEOPLE = (("ann", "annotator"), ("bob", "annotator"), ("cy", "annotator"))


@pytest.fixture
def campaign(engine):
    """One topic (301) with 2 nuggets and 3 answers (r1/301, r2/301, r3/301); three people."""
    name = f"c-{uuid.uuid4().hex[:8]}"
    tokens = make_nugget_campaign(engine, name, topics=1, nuggets=2, runs=("r1", "r2", "r3"),
                                  people=PEOPLE)
    return name, {p: Credential("token", t) for p, t in tokens.items()}


def _queue(engine, name, person):
    with session_scope(engine, readonly=True) as session:
        who = store.login(session, credential=person)
        return store.assignment_queue(session, campaign=name, annotator_id=who.id)[
            "answer"].tolist()


def _label(engine, name, person, answer, nugget="301-1", label="support"):
    with session_scope(engine) as session:
        return store.record_nugget_assignment(session, credential=person, campaign=name,
                                              answer=answer, nugget=nugget, label=label)


def _set(engine, name, overlap):
    with session_scope(engine) as session:
        store.set_nugget_overlap(session, campaign=name, overlap=overlap)


def test_without_a_setting_everyone_gets_every_answer(engine, campaign):
    name, people = campaign
    _label(engine, name, people["ann"], "r1/301")
    with session_scope(engine, readonly=True) as session:
        assert store.nugget_overlap(session, campaign=name) is None
    for person in people.values():
        assert _queue(engine, name, person) == ["r1/301", "r2/301", "r3/301"]


def test_overlap_one_hands_each_answer_to_one_person(engine, campaign):
    name, people = campaign
    _set(engine, name, 1)
    ann, bob, cy = people["ann"], people["bob"], people["cy"]
    assert _queue(engine, name, bob) == ["r1/301", "r2/301", "r3/301"]
    _label(engine, name, ann, "r1/301")                     # ann holds r1 (not yet complete)
    assert _queue(engine, name, bob) == ["r2/301", "r3/301"]
    assert _queue(engine, name, ann) == ["r1/301", "r2/301", "r3/301"]
    with pytest.raises(InputError, match=r"already has its 1 assessor .*taken meanwhile"):
        _label(engine, name, bob, "r1/301", "301-2")        # bob's stale screen: refused
    _label(engine, name, ann, "r1/301", "301-2", "not_support")
    _label(engine, name, ann, "r1/301", "301-1", "partial_support")  # a new version: fine
    _label(engine, name, bob, "r2/301")
    assert _queue(engine, name, cy) == ["r3/301"]
    assert _queue(engine, name, ann) == ["r1/301", "r3/301"]
    with session_scope(engine, readonly=True) as session:
        cells = store.nugget_cells(session, campaign=name)
    assert sorted(set(zip(cells["answer"], cells["assessor"], strict=True))) == [
        ("r1/301", "ann"), ("r2/301", "bob")]


def test_overlap_two_with_label_sources_and_removed_people(engine, campaign):
    name, people = campaign
    _set(engine, name, 2)
    ann, bob, cy = people["ann"], people["bob"], people["cy"]
    with session_scope(engine) as session:                  # a model's labels never count
        store.import_nugget_assignments(session, campaign=name, label_sources={"gpt"}, rows=[
            AssignmentRow("301", "r1", None, nugget_text("301", 1), "support", assessor="gpt",
                          line=1)])
    _label(engine, name, ann, "r1/301")
    _label(engine, name, bob, "r1/301")
    assert _queue(engine, name, cy) == ["r2/301", "r3/301"]
    with pytest.raises(InputError, match="already has its 2 assessors"):
        _label(engine, name, cy, "r1/301")
    with session_scope(engine) as session:
        store.remove_annotator(session, campaign=name, name="bob")
    assert _queue(engine, name, cy) == ["r1/301", "r2/301", "r3/301"]  # bob's slot is free
    _label(engine, name, cy, "r1/301")
    _set(engine, name, 1)                                   # lowered: holders keep theirs
    assert _queue(engine, name, ann) == ["r1/301", "r2/301", "r3/301"]
    assert _queue(engine, name, cy) == ["r1/301", "r2/301", "r3/301"]
    _set(engine, name, None)
    with session_scope(engine, readonly=True) as session:
        assert store.nugget_overlap(session, campaign=name) is None


@pytest.mark.parametrize("overlap", [0, -1, 1001])
def test_a_bad_overlap_is_refused(engine, campaign, overlap):
    name, _ = campaign
    with pytest.raises(InputError, match=f"the overlap must be 1 to 1000, not {overlap}"):
        _set(engine, name, overlap)


def test_the_cli_shows_sets_and_resets_the_overlap(engine, db_url, campaign, capsys):
    name, _ = campaign
    command = ["nuggets", "overlap", "--campaign", name, "--db", db_url]
    assert main(command) == 0
    assert main([*command, "2"]) == 0
    assert main(command) == 0
    assert main([*command, "1"]) == 0
    assert main([*command, "all"]) == 0
    assert capsys.readouterr().out.splitlines() == [
        f"campaign {name}: every person assigns every answer",
        f"campaign {name}: at most 2 people assign each answer",
        f"campaign {name}: at most 2 people assign each answer",
        f"campaign {name}: at most 1 person assigns each answer",
        f"campaign {name}: every person assigns every answer"]
    assert main([*command, "0"]) == 2
    assert capsys.readouterr().err.rstrip("\n").endswith(
        "K|all: must be at least 1, got 0 (or all)")
