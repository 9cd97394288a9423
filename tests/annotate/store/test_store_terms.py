"""Highlight terms in the store (both backends): campaign terms per topic, an annotator's own."""

from __future__ import annotations

import re

import pytest
from pooljudge.annotate import store
from pooljudge.annotate.store import session_scope

from pooljudge.errors import InputError
from pooljudge.formats.terms import MAX_TERM_LENGTH, MAX_TERMS


@pytest.fixture
def people(engine, make_campaign):
    """A campaign of topics t0, t1 and the ids of two annotators in it, and one in another."""
    name, other = make_campaign(), make_campaign()
    with session_scope(engine) as session:
        for campaign, person in ((name, "ann"), (name, "bob"), (other, "eve")):
            store.add_annotator(session, campaign=campaign, name=person)
        ids = {person: store.annotator_id(session, campaign=campaign, name=person)
               for campaign, person in ((name, "ann"), (name, "bob"), (other, "eve"))}
    return name, other, ids


def _terms(engine, annotator_id: int, topic: str) -> store.TopicTerms:
    with session_scope(engine, readonly=True) as session:
        return store.highlight_terms(session, annotator_id=annotator_id, topic=topic)


def test_campaign_terms_replace_per_topic_and_reach_every_annotator(engine, people) -> None:
    name, other, ids = people
    with session_scope(engine) as session:
        assert store.set_topic_terms(session, campaign=name, terms={
            "t0": ["Format", "  information \t retrieval ", "format"], "t1": ["parser"]}) == 3
        store.set_topic_terms(session, campaign=name, terms={"t1": ["lexer", "token"]})
    with session_scope(engine, readonly=True) as session:
        assert store.campaign_terms(session, campaign=name) == {
            "t0": ("format", "information retrieval"), "t1": ("lexer", "token")}
        assert store.campaign_terms(session, campaign=other) == {"t0": (), "t1": ()}
    for person in ("ann", "bob"):
        assert _terms(engine, ids[person], "t0") == (("format", "information retrieval"), ())
    assert _terms(engine, ids["eve"], "t0") == ((), ())  # same key, other campaign
    with session_scope(engine) as session:
        store.set_topic_terms(session, campaign=name, terms={"t0": []})
    assert _terms(engine, ids["ann"], "t0") == ((), ())


@pytest.mark.parametrize(("terms", "message"), [
    pytest.param({"t9": ["x"]}, "has no topic 't9'", id="unknown-topic"),
    pytest.param({"t1": ["   "]}, "topic t1: a term must not be blank", id="blank"),
    pytest.param({"t1": ["--"]}, "needs a letter or a digit", id="no-word"),
    pytest.param({"t1": ["x" * (MAX_TERM_LENGTH + 1)]}, "at most 100 characters", id="long"),
    pytest.param({"t1": ["bad\x00term"]}, "control or formatting characters (U+0000)",
                 id="control"),
    pytest.param({"t1": ["evil\u202eterm"]}, "(U+202E)", id="bidi-override"),
    pytest.param({"t1": [f"w{i}" for i in range(MAX_TERMS + 1)]}, f"at most {MAX_TERMS}",
                 id="too-many"),
])
def test_bad_campaign_terms_write_nothing(engine, people, terms, message) -> None:
    name, _, ids = people
    with session_scope(engine) as session:
        store.set_topic_terms(session, campaign=name, terms={"t1": ["kept"]})
    with pytest.raises(InputError, match=re.escape(message)), \
            session_scope(engine) as session:
        store.set_topic_terms(session, campaign=name, terms={"t0": ["ok"], **terms})
    assert _terms(engine, ids["ann"], "t0") == ((), ())
    assert _terms(engine, ids["ann"], "t1") == (("kept",), ())


def test_own_terms_are_per_annotator_and_topic(engine, people) -> None:
    name, _, ids = people
    with session_scope(engine) as session:
        store.set_topic_terms(session, campaign=name, terms={"t0": ["format"]})
        assert store.add_annotator_term(session, annotator_id=ids["ann"], topic="t0",
                                        term=" Zebra ") == "zebra"
        store.add_annotator_term(session, annotator_id=ids["ann"], topic="t0", term="apple")
        store.add_annotator_term(session, annotator_id=ids["ann"], topic="t0", term="ZEBRA")
        store.add_annotator_term(session, annotator_id=ids["bob"], topic="t0", term="bob's")
    assert _terms(engine, ids["ann"], "t0") == (("format",), ("zebra", "apple"))
    assert _terms(engine, ids["bob"], "t0") == (("format",), ("bob's",))
    assert _terms(engine, ids["ann"], "t1") == ((), ())
    with session_scope(engine) as session:
        assert store.remove_annotator_term(session, annotator_id=ids["ann"], topic="t0",
                                           term="Zebra")
        assert not store.remove_annotator_term(session, annotator_id=ids["ann"], topic="t0",
                                               term="zebra")
        assert not store.remove_annotator_term(session, annotator_id=ids["ann"], topic="t0",
                                               term="\x00")
    assert _terms(engine, ids["ann"], "t0") == (("format",), ("apple",))
    assert _terms(engine, ids["bob"], "t0") == (("format",), ("bob's",))


def test_own_terms_refuse_bad_input(engine, people) -> None:
    name, _, ids = people
    with session_scope(engine) as session:
        for i in range(MAX_TERMS):
            store.add_annotator_term(session, annotator_id=ids["ann"], topic="t1", term=f"w{i}")
    cases = [({"topic": "t1", "term": "one more"}, f"already have {MAX_TERMS} terms"),
             ({"topic": "t1", "term": ""}, "must not be blank"),
             ({"topic": "t9", "term": "x"}, "no topic 't9'"),
             ({"topic": "t0", "term": "x\ty\x07"}, "U+0007")]
    for kwargs, message in cases:
        with pytest.raises(InputError, match=re.escape(message)), \
                session_scope(engine) as session:
            store.add_annotator_term(session, annotator_id=ids["ann"], **kwargs)
    with session_scope(engine) as session:  # a term already there is no new term
        store.add_annotator_term(session, annotator_id=ids["ann"], topic="t1", term="W0")
        store.remove_annotator(session, campaign=name, name="bob")
    assert len(_terms(engine, ids["ann"], "t1").own) == MAX_TERMS
    with pytest.raises(InputError, match="no active annotator"), \
            session_scope(engine) as session:
        store.add_annotator_term(session, annotator_id=ids["bob"], topic="t0", term="x")
