"""Guidelines first (store): acknowledgements by SHA-256, re-opened by a change; both backends."""

from __future__ import annotations

import hashlib

import pytest
import sqlalchemy as sa
from pooljudge.annotate.store import (
    acknowledge_guidelines,
    acknowledgements,
    add_annotator,
    annotator_id,
    guidelines_sha256,
    needs_guidelines,
    remove_annotator,
    session_scope,
    set_guidelines,
)

from pooljudge.errors import InputError


@pytest.fixture
def people(engine, make_campaign):
    """Campaign with guidelines "Be strict." and annotators ann and bob: (campaign, ids)."""
    name = make_campaign()
    with session_scope(engine) as session:
        set_guidelines(session, campaign=name, text="Be strict.")
        for person in ("ann", "bob"):
            add_annotator(session, campaign=name, name=person)
    with session_scope(engine) as session:
        return name, {p: annotator_id(session, campaign=name, name=p) for p in ("ann", "bob")}


def _needs(engine, aid: int) -> bool:
    with session_scope(engine, readonly=True) as session:
        return needs_guidelines(session, annotator_id=aid)


def _ack(engine, aid: int, text: str) -> bool:
    with session_scope(engine) as session:
        return acknowledge_guidelines(session, annotator_id=aid, sha256=guidelines_sha256(text))


def _rows(engine, ids: dict[str, int]) -> list[tuple]:
    """The acknowledgements of these annotators (PostgreSQL's database is shared by tests)."""
    with session_scope(engine, readonly=True) as session:
        return session.execute(sa.text(
            "SELECT annotator_id, guidelines_sha256 FROM guidelines_ack WHERE annotator_id IN "
            "(:a, :b) ORDER BY annotator_id, guidelines_sha256"),
            {"a": ids["ann"], "b": ids["bob"]}).all()


def test_the_sha256_is_that_of_the_utf8_text() -> None:
    assert guidelines_sha256("Ünïcode") == hashlib.sha256("Ünïcode".encode()).hexdigest()


def test_a_first_visit_needs_the_guidelines_until_acknowledged_once(engine, people) -> None:
    _, ids = people
    assert _needs(engine, ids["ann"]) and _needs(engine, ids["bob"])
    assert _ack(engine, ids["ann"], "Be strict.") is True
    assert _ack(engine, ids["ann"], "Be strict.") is False          # idempotent
    assert not _needs(engine, ids["ann"]) and _needs(engine, ids["bob"])
    assert _rows(engine, ids) == [(ids["ann"], guidelines_sha256("Be strict."))]


def test_a_change_reopens_them_for_everyone_and_the_old_ack_stays(engine, people) -> None:
    name, ids = people
    _ack(engine, ids["ann"], "Be strict.")
    with session_scope(engine) as session:
        sha = set_guidelines(session, campaign=name, text="Be stricter.")
    assert sha == guidelines_sha256("Be stricter.")
    assert _needs(engine, ids["ann"])
    assert _ack(engine, ids["ann"], "Be strict.") is False   # the old text does not count
    assert _needs(engine, ids["ann"])
    _ack(engine, ids["ann"], "Be stricter.")
    assert not _needs(engine, ids["ann"])
    assert len(_rows(engine, ids)) == 2
    with session_scope(engine) as session:  # back to the text read before: nothing to read
        set_guidelines(session, campaign=name, text="Be strict.")
    assert not _needs(engine, ids["ann"])


@pytest.mark.parametrize("text", ["", "  \n\t"])
def test_blank_guidelines_need_no_acknowledgement(engine, people, text) -> None:
    name, ids = people
    with session_scope(engine) as session:
        set_guidelines(session, campaign=name, text=text)
    assert not _needs(engine, ids["bob"])


def test_acknowledgements_list_who_read_the_current_text(engine, people) -> None:
    name, ids = people
    _ack(engine, ids["bob"], "Be strict.")
    with session_scope(engine, readonly=True) as session:
        frame = acknowledgements(session, campaign=name)
    assert frame["annotator"].tolist() == ["ann", "bob"]
    assert frame["acknowledged"].tolist() == [False, True]
    assert frame["acked_at"].isna().tolist() == [True, False]


@pytest.mark.parametrize("sha", ["", "abc", "G" * 64, guidelines_sha256("x").upper(), None])
def test_a_malformed_sha_is_refused(engine, people, sha) -> None:
    _, ids = people
    with pytest.raises(InputError, match="SHA-256"), session_scope(engine) as session:
        acknowledge_guidelines(session, annotator_id=ids["ann"], sha256=sha)
    assert _rows(engine, ids) == []


def test_unknown_or_removed_annotators_and_campaigns_are_refused(engine, people) -> None:
    name, ids = people
    with session_scope(engine) as session:
        remove_annotator(session, campaign=name, name="bob")
    with pytest.raises(InputError, match="no active annotator"), \
            session_scope(engine) as session:
        acknowledge_guidelines(session, annotator_id=ids["bob"], sha256=guidelines_sha256("x"))
    assert not _needs(engine, 10_000)
    with pytest.raises(InputError, match="no campaign"), session_scope(engine) as session:
        set_guidelines(session, campaign="nope", text="x")
