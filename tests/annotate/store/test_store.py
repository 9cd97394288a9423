"""The store on SQLite and PostgreSQL: campaigns, annotators, append-only judgments, frames."""

from __future__ import annotations

import hashlib

import pandas as pd
import pytest
import sqlalchemy as sa
from pooljudge.annotate.records import LabelScale
from pooljudge.annotate.store import (
    DuplicateWrite,
    add_annotator,
    authenticate,
    create_campaign,
    get_campaign,
    history,
    import_judgments,
    judgment_times,
    judgments_frame,
    list_annotators,
    list_campaigns,
    next_pair,
    pair_view,
    progress,
    record_judgment,
    remove_annotator,
    session_scope,
)
from pooljudge.annotate.store.models import Annotator, Claim, Judgment, Pair

from pooljudge.errors import InputError


def _login(engine, campaign: str, name: str, role: str = "annotator"):
    with session_scope(engine) as s:
        token = add_annotator(s, campaign=campaign, name=name, role=role)
    with session_scope(engine) as s:
        return authenticate(s, token=token), token


def test_campaign_round_trip(engine, make_campaign):
    name = make_campaign(overlap=2, scale=LabelScale.range(0, 2))
    with session_scope(engine) as s:
        info = get_campaign(s, name=name)
        names = [c.name for c in list_campaigns(s)]
    assert info.overlap == 2 and info.scale.values == (0, 1, 2)
    assert info.scale.labels[2].name == "Highly relevant"
    assert info.order == "pool" and info.assign_mode == "pair"
    assert name in names


def test_create_refuses_duplicates_and_unknown_docs_storing_nothing(engine, make_campaign,
                                                                    collection):
    name = make_campaign()
    with pytest.raises(InputError, match="already exists"), session_scope(engine) as s:
        create_campaign(s, name=name, scale=LabelScale.binary(), **collection())
    bad = collection()
    bad["pool"].loc[len(bad["pool"])] = ["t0", "missing", 9, 9, "runA"]
    with pytest.raises(InputError, match="unknown document: missing"), \
            session_scope(engine) as s:
        create_campaign(s, name="other-" + name, scale=LabelScale.binary(), **bad)
    with session_scope(engine) as s, pytest.raises(InputError, match="no campaign"):
        get_campaign(s, name="other-" + name)


def test_token_is_stored_hashed_and_removal_revokes_it(engine, make_campaign):
    name = make_campaign()
    info, token = _login(engine, name, "alice", role="adjudicator")
    assert info.name == "alice" and info.role == "adjudicator" and info.campaign_name == name
    with session_scope(engine) as s:
        stored = s.execute(sa.select(Annotator.token_hash).where(Annotator.id == info.id))
        assert stored.scalar_one() == hashlib.sha256(token.encode()).hexdigest()
        assert authenticate(s, token=token + "x") is None
        assert authenticate(s, token="") is None
        remove_annotator(s, campaign=name, name="alice")
    with session_scope(engine) as s:
        assert authenticate(s, token=token) is None
        assert list_annotators(s, campaign=name).empty
        assert list_annotators(s, campaign=name, include_removed=True)["name"].tolist() == [
            "alice"]


def test_add_annotator_refuses_bad_role_and_duplicate(engine, make_campaign):
    name = make_campaign()
    _login(engine, name, "bob")
    with session_scope(engine) as s, pytest.raises(InputError, match="already exists"):
        add_annotator(s, campaign=name, name="bob")
    with session_scope(engine) as s, pytest.raises(InputError, match="unknown role"):
        add_annotator(s, campaign=name, name="carol", role="boss")


def test_first_judgments_store_what_they_return(engine, make_campaign):
    """A first judgment of a claimed pair (one statement on PostgreSQL) releases the claim,
    counts the pair once and stores exactly the returned row: a given position, else the
    claim's; seconds and comment as given, None included."""
    name = make_campaign(overlap=2, scale=LabelScale.range(0, 2))
    alice, _ = _login(engine, name, "alice")
    records = []
    for position, seconds, comment in [(7, None, None), (None, 2.5, "why")]:
        with session_scope(engine) as s:
            view = next_pair(s, annotator_id=alice.id)
            records.append(record_judgment(s, annotator_id=alice.id, pair_id=view.pair_id,
                                           label=2, position=position, seconds=seconds,
                                           comment=comment))
    assert [r.position for r in records] == [7, 2]
    with session_scope(engine) as s:
        stored = s.execute(sa.select(Judgment).where(Judgment.annotator_id == alice.id)
                           .order_by(Judgment.id)).scalars().all()
        judged = s.execute(sa.select(Pair.judged).where(
            Pair.id.in_([r.pair_id for r in records]))).scalars().all()
        claims = s.execute(sa.select(sa.func.count()).select_from(Claim)
                           .where(Claim.annotator_id == alice.id)).scalar_one()
    assert [(j.id, j.position, j.seconds, j.comment, j.label, j.version) for j in stored] == [
        (r.id, r.position, r.seconds, r.comment, r.label, r.version) for r in records]
    assert judged == [1, 1] and claims == 0


def test_judgments_are_append_only_versions(engine, make_campaign):
    name = make_campaign(scale=LabelScale.range(0, 2))
    alice, _ = _login(engine, name, "alice")
    with session_scope(engine) as s:
        view = next_pair(s, annotator_id=alice.id)
        first = record_judgment(s, annotator_id=alice.id, pair_id=view.pair_id, label=1,
                                seconds=3.5, comment="hm")
    with session_scope(engine) as s:
        second = record_judgment(s, annotator_id=alice.id, pair_id=view.pair_id, label=2,
                                 expected_version=2)
    assert (first.version, second.version) == (1, 2)
    assert first.position == second.position == 1
    with session_scope(engine) as s:
        latest = judgments_frame(s, campaign=name)
        every = judgments_frame(s, campaign=name, latest_only=False)
    assert latest[["annotator", "topic", "doc", "label", "version"]].values.tolist() == [
        ["alice", view.topic_id, view.doc_id, 2, 2]]
    assert every["label"].tolist() == [1, 2]
    assert every["comment"].iloc[0] == "hm" and pd.isna(every["comment"].iloc[1])
    assert every["seconds"].iloc[0] == 3.5


@pytest.mark.parametrize(("label", "kind", "source", "message"), [
    (3, "judgment", "human", "not on the scale"),
    (-1, "judgment", "human", "not on the scale"),
    (1, "verdict", "human", "unknown judgment kind"),
    (1, "judgment", "guess", "unknown judgment source"),
    (1, "adjudication", "human", "not an adjudicator"),
], ids=["above", "below", "kind", "source", "adjudication-by-annotator"])
def test_record_judgment_refuses_bad_values_and_stores_nothing(engine, make_campaign, label,
                                                               kind, source, message):
    name = make_campaign()
    alice, _ = _login(engine, name, "alice")
    with session_scope(engine) as s:
        view = next_pair(s, annotator_id=alice.id)
    with pytest.raises(InputError, match=message), session_scope(engine) as s:
        record_judgment(s, annotator_id=alice.id, pair_id=view.pair_id, label=label, kind=kind,
                        source=source)
    with session_scope(engine) as s:
        assert judgments_frame(s, campaign=name, latest_only=False).empty


def test_double_submit_is_refused_with_expected_version(engine, make_campaign):
    name = make_campaign()
    alice, _ = _login(engine, name, "alice")
    with session_scope(engine) as s:
        view = next_pair(s, annotator_id=alice.id)
        record_judgment(s, annotator_id=alice.id, pair_id=view.pair_id, label=1,
                        expected_version=1)
    with pytest.raises(DuplicateWrite), session_scope(engine) as s:
        record_judgment(s, annotator_id=alice.id, pair_id=view.pair_id, label=1,
                        expected_version=1)


def test_adjudication_is_its_own_kind(engine, make_campaign):
    name = make_campaign()
    alice, _ = _login(engine, name, "alice")
    judge, _ = _login(engine, name, "judge", role="adjudicator")
    with session_scope(engine) as s:
        view = next_pair(s, annotator_id=alice.id)
        record_judgment(s, annotator_id=alice.id, pair_id=view.pair_id, label=1)
    with session_scope(engine) as s:
        record = record_judgment(s, annotator_id=judge.id, pair_id=view.pair_id, label=0,
                                 kind="adjudication")
        frame = judgments_frame(s, campaign=name, kind="adjudication")
        done = progress(s, campaign=name)["judgments_done"].sum()
    assert record.kind == "adjudication" and record.version == 1
    assert frame[["annotator", "label"]].values.tolist() == [["judge", 0]]
    assert done == 1  # the adjudication does not count towards the overlap


def test_history_and_pair_view_show_only_own_pairs(engine, make_campaign):
    name = make_campaign()
    alice, _ = _login(engine, name, "alice")
    bob, _ = _login(engine, name, "bob")
    seen = []
    for label in (1, 0, 1):
        with session_scope(engine) as s:
            view = next_pair(s, annotator_id=alice.id)
            record_judgment(s, annotator_id=alice.id, pair_id=view.pair_id, label=label)
            seen.append(view)
    with session_scope(engine) as s:
        record_judgment(s, annotator_id=alice.id, pair_id=seen[0].pair_id, label=0)
        recent = history(s, annotator_id=alice.id, limit=2)
        assert pair_view(s, annotator_id=alice.id, pair_id=seen[1].pair_id).doc_id == \
            seen[1].doc_id
        with pytest.raises(InputError, match="neither claimed nor judged"):
            pair_view(s, annotator_id=bob.id, pair_id=seen[1].pair_id)
    assert [(v.pair_id, r.version, r.label) for v, r in recent] == [
        (seen[0].pair_id, 2, 0), (seen[2].pair_id, 1, 1)]
    assert [v.position for v, _ in recent] == [1, 3]


def test_pair_view_carries_no_run_or_rank(engine, make_campaign):
    name = make_campaign()
    alice, _ = _login(engine, name, "alice")
    with session_scope(engine) as s:
        view = next_pair(s, annotator_id=alice.id)
    values = " ".join(str(v) for v in vars(view).values())
    assert "runA" not in values and view.doc_text == "text <b>0</b>"
    assert {"runs", "best_rank", "rank"}.isdisjoint(vars(view))


def test_progress_counts_towards_overlap(engine, make_campaign):
    name = make_campaign(overlap=2, n_topics=2, n_docs=3)
    alice, _ = _login(engine, name, "alice")
    for _ in range(4):
        with session_scope(engine) as s:
            view = next_pair(s, annotator_id=alice.id)
            record_judgment(s, annotator_id=alice.id, pair_id=view.pair_id, label=1)
    with session_scope(engine) as s:
        mine = progress(s, campaign=name, annotator_id=alice.id)
    expected = pd.DataFrame({"topic": ["t0", "t1"], "pairs": [3, 3],
                             "judgments_needed": [6, 6], "judgments_done": [2, 2],
                             "annotator": ["alice", "alice"], "annotator_done": [2, 2]})
    pd.testing.assert_frame_equal(mine, expected, check_dtype=False)


def test_judgment_times_are_first_judgments_of_participants_in_the_window(engine, make_campaign):
    """The pace counts progress only: version 1 of kind judgment by participants, within
    ``hours`` of the newest one; label changes, adjudications and a non-human source are out."""
    name = make_campaign(overlap=2, n_topics=1, n_docs=3)
    for person, role in (("alice", "annotator"), ("bob", "annotator"), ("ref", "adjudicator")):
        _login(engine, name, person, role)
    rows = [("alice", "d0", 1, "2026-01-02T10:00:00Z", "judgment"),
            ("alice", "d1", 0, "2026-01-02T11:00:00Z", "judgment"),
            ("alice", "d0", 0, "2026-01-02T11:30:00Z", "judgment"),       # version 2
            ("bob", "d0", 0, "2026-01-01T09:00:00Z", "judgment"),         # 26 h before
            ("bob", "d1", 1, "2026-01-02T11:40:00Z", "judgment"),
            ("ref", "d0", 1, "2026-01-02T11:50:00Z", "adjudication"),
            ("llm", "d2", 1, "2026-01-02T11:55:00Z", "judgment")]          # not a participant
    frame = pd.DataFrame(rows, columns=["annotator", "doc", "label", "time", "kind"])
    with session_scope(engine) as s:
        import_judgments(s, campaign=name, frame=frame.assign(topic="t0"), label_sources=["llm"])
    with session_scope(engine, readonly=True) as s:
        recent = judgment_times(s, campaign=name)
        every = judgment_times(s, campaign=name, hours=None)
    stamp = pd.to_datetime(recent["created_at"], utc=True).dt.strftime("%d %H:%M").tolist()
    assert list(zip(recent["annotator"], stamp, strict=True)) == [
        ("alice", "02 10:00"), ("alice", "02 11:00"), ("bob", "02 11:40")]
    assert every["annotator"].tolist() == ["bob", "alice", "alice", "bob"]
