"""Judgment states (revision 0007): a label, a withdrawal, "I can't judge this"; rationales."""

from __future__ import annotations

import threading
import uuid

import pytest
import sqlalchemy as sa
from pooljudge.annotate.records import LabelScale
from pooljudge.annotate.store import (
    add_annotator,
    annotator_id,
    consistency_problems,
    create_campaign,
    history,
    judgments_frame,
    next_pair,
    open_engine,
    others_labels,
    progress,
    recent_judgments,
    record_judgment,
    session_scope,
    withdraw_last,
    withdrawal,
)
from pooljudge.annotate.store.models import Pair

from pooljudge.errors import InputError
from tests.annotate.conftest import small_collection


def _campaign(engine, **settings) -> tuple[int, int]:
    """A new one-annotator campaign with ``settings``: (annotator id, the pair claimed)."""
    name = f"states-{uuid.uuid4().hex[:8]}"
    with session_scope(engine) as session:
        create_campaign(session, name=name, scale=LabelScale.range(0, 2), overlap=1,
                        **settings, **small_collection())
        add_annotator(session, campaign=name, name="ann")
    with session_scope(engine) as session:
        ann = annotator_id(session, campaign=name, name="ann")
        return ann, next_pair(session, annotator_id=ann).pair_id


@pytest.mark.parametrize("values, message", [
    ({"label": None, "status": "cannot_judge", "rationale": "why"}, "does not offer"),
    ({"label": None}, "a label is required"),
    ({"label": 1, "status": "withdrawn"}, "a withdrawn row carries no label"),
    ({"label": None, "status": "cannot_judge", "rationale": "  "}, "a reason is required"),
    ({"label": None, "status": "maybe"}, "unknown judgment status"),
])
def test_a_row_state_and_its_label_go_together(engine, values, message):
    ann, pair = _campaign(engine)
    with session_scope(engine) as session, pytest.raises(InputError, match=message):
        record_judgment(session, annotator_id=ann, pair_id=pair, **values)


def test_a_campaign_asks_for_a_rationale_with_the_labels_it_names(engine):
    ann, pair = _campaign(engine, cannot_judge=True, rationale_labels=[2])
    with session_scope(engine) as session, pytest.raises(InputError, match="needs a rationale"):
        record_judgment(session, annotator_id=ann, pair_id=pair, label=2, rationale=" ")
    with session_scope(engine) as session:
        row = record_judgment(session, annotator_id=ann, pair_id=pair, label=2,
                              rationale="defines the term")
        assert (row.status, row.rationale) == ("label", "defines the term")
        skipped = next_pair(session, annotator_id=ann).pair_id
        answer = record_judgment(session, annotator_id=ann, pair_id=skipped, label=None,
                                 status="cannot_judge", rationale="not in English")
    assert (answer.status, answer.label) == ("cannot_judge", None)


def test_rationale_labels_must_be_on_the_scale(engine):
    with session_scope(engine) as session, pytest.raises(InputError, match="not on the scale"):
        create_campaign(session, name=f"x-{uuid.uuid4().hex[:8]}", scale=LabelScale.binary(),
                        rationale_labels=[3], **small_collection())


# --- the latest version decides: counters, claims, readers, undo -----------------------------

def _team(engine, overlap: int = 2, people=("ann", "bob", "cy"), **settings):
    """A campaign of two topics x three docs with ``people``: (name, {person: id})."""
    name = f"team-{uuid.uuid4().hex[:8]}"
    with session_scope(engine) as session:
        create_campaign(session, name=name, scale=LabelScale.range(0, 2), overlap=overlap,
                        cannot_judge=True, **settings, **small_collection())
        for person in people:
            add_annotator(session, campaign=name, name=person)
    with session_scope(engine) as session:
        return name, {p: annotator_id(session, campaign=name, name=p) for p in people}


def _pair_counters(engine, pair_id: int) -> tuple[int, int]:
    with session_scope(engine, readonly=True) as session:
        row = session.execute(sa.select(Pair.judged, Pair.open_slots)
                              .where(Pair.id == pair_id)).one()
    return tuple(row)


def _consistent(engine, name: str) -> None:
    with session_scope(engine, readonly=True) as session:
        assert consistency_problems(session, campaign=name) == []


def _label(engine, who: int, pair: int, label: int | None, **values):
    with session_scope(engine) as session:
        return record_judgment(session, annotator_id=who, pair_id=pair, label=label, **values)


def test_every_change_of_state_keeps_the_counters_equal_to_a_recount(engine):
    name, ids = _team(engine)
    with session_scope(engine) as session:
        pair = next_pair(session, annotator_id=ids["ann"]).pair_id
    steps = [  # (status, label) -> expected (pair.judged, pair.open_slots) with K = 2
        ("label", 1, (1, 1)), ("label", 2, (1, 1)), ("withdrawn", None, (0, 2)),
        ("label", 0, (1, 1)), ("cannot_judge", None, (0, 2)), ("label", 2, (1, 1)),
        ("withdrawn", None, (0, 2)), ("cannot_judge", None, (0, 2)),
    ]
    for version, (status, label, expected) in enumerate(steps, start=1):
        _label(engine, ids["ann"], pair, label, status=status, expected_version=version,
               rationale="unclear" if status == "cannot_judge" else None)
        assert _pair_counters(engine, pair) == expected, (version, status)
        _consistent(engine, name)
    with session_scope(engine, readonly=True) as session:
        done = progress(session, campaign=name, annotator_id=ids["ann"])
    # a standing can't-judge answer: done for ann, no judgment towards the overlap
    assert done["annotator_done"].sum() == 1 and done["judgments_done"].sum() == 0


def test_a_cannot_judge_answer_is_never_offered_again_and_opens_its_slot(engine):
    name, ids = _team(engine, overlap=1)
    with session_scope(engine) as session:
        first = next_pair(session, annotator_id=ids["ann"]).pair_id
        record_judgment(session, annotator_id=ids["ann"], pair_id=first, label=None,
                        status="cannot_judge", rationale="not my field")
        assert next_pair(session, annotator_id=ids["ann"]).pair_id != first
        assert next_pair(session, annotator_id=ids["bob"]).pair_id == first  # slot reopened
    _consistent(engine, name)


def test_a_withdrawn_pair_is_offered_to_its_annotator_again(engine):
    name, ids = _team(engine, overlap=1)
    with session_scope(engine) as session:
        first = next_pair(session, annotator_id=ids["ann"]).pair_id
        record_judgment(session, annotator_id=ids["ann"], pair_id=first, label=1)
        record_judgment(session, annotator_id=ids["ann"], pair_id=first, label=None,
                        status="withdrawn")
        assert next_pair(session, annotator_id=ids["ann"]).pair_id == first
    _consistent(engine, name)


def test_readers_see_only_standing_labels_unless_asked(engine):
    name, ids = _team(engine)
    with session_scope(engine) as session:
        pair = next_pair(session, annotator_id=ids["ann"]).pair_id
        record_judgment(session, annotator_id=ids["ann"], pair_id=pair, label=2)
        assert next_pair(session, annotator_id=ids["bob"]).pair_id == pair
        record_judgment(session, annotator_id=ids["bob"], pair_id=pair, label=None,
                        status="cannot_judge", rationale="  can't read it ")
        assert others_labels(session, annotator_id=ids["bob"], pair_id=pair) == [("ann", 2)]
        record_judgment(session, annotator_id=ids["ann"], pair_id=pair, label=None,
                        status="withdrawn")
        assert others_labels(session, annotator_id=ids["bob"], pair_id=pair) == []
    with session_scope(engine, readonly=True) as session:
        labels = judgments_frame(session, campaign=name)
        answers = judgments_frame(session, campaign=name, states=("label", "cannot_judge"))
        every = judgments_frame(session, campaign=name, latest_only=False)
        ann_history = history(session, annotator_id=ids["ann"])
    assert labels.empty and labels["label"].dtype == "int64"
    assert answers[["annotator", "status", "rationale"]].values.tolist() == [
        ["bob", "cannot_judge", "can't read it"]]
    assert every["status"].tolist() == ["label", "cannot_judge", "withdrawn"]
    assert every["label"].dtype == "Int64" and every["label"].isna().tolist() == [False, True, True]
    assert ann_history == []  # a withdrawn pair is not an earlier judgment to change


def test_undo_withdraws_the_last_answer_and_hands_its_pair_back(engine):
    name, ids = _team(engine, overlap=1)
    ann = ids["ann"]
    with session_scope(engine) as session:
        assert withdraw_last(session, annotator_id=ann) is None  # nothing to undo yet
        first = next_pair(session, annotator_id=ann).pair_id
        record_judgment(session, annotator_id=ann, pair_id=first, label=2)
        second = next_pair(session, annotator_id=ann).pair_id
        record_judgment(session, annotator_id=ann, pair_id=second, label=None,
                        status="cannot_judge", rationale="broken page")
        third = next_pair(session, annotator_id=ann).pair_id  # the claim undo gives back
    with session_scope(engine) as session:
        assert withdraw_last(session, annotator_id=ann).pair_id == second
    with session_scope(engine, readonly=True) as session:
        assert [r.pair_id for r in recent_judgments(session, annotator_id=ann)] == [first]
        assert withdrawal(session, annotator_id=ann, pair_id=second).version == 2
    _consistent(engine, name)
    assert _pair_counters(engine, third) == (0, 1)  # its claim was released
    with session_scope(engine) as session:
        assert next_pair(session, annotator_id=ann).pair_id == second  # shown again
        assert withdraw_last(session, annotator_id=ann).pair_id == first  # one further back
        assert withdraw_last(session, annotator_id=ann) is None
    assert _pair_counters(engine, first) == (0, 0)  # claimed by ann again
    again = _label(engine, ann, first, 1, expected_version=3)
    assert (again.version, again.status) == (3, "label")
    assert _pair_counters(engine, first) == (1, 0)
    _consistent(engine, name)


def test_recent_judgments_are_the_last_answers_newest_first(engine):
    _, ids = _team(engine, overlap=1)
    ann = ids["ann"]
    with session_scope(engine) as session:
        pairs = []
        for label in (0, 1, None, 2):
            pair = next_pair(session, annotator_id=ann).pair_id
            pairs.append(pair)
            record_judgment(session, annotator_id=ann, pair_id=pair, label=label,
                            status="label" if label is not None else "cannot_judge",
                            rationale=None if label is not None else "foreign language")
        record_judgment(session, annotator_id=ann, pair_id=pairs[0], label=2)  # a change
        recent = recent_judgments(session, annotator_id=ann, limit=3)
        earlier = history(session, annotator_id=ann, limit=3)
    assert [(r.pair_id, r.label, r.status, r.version) for r in recent] == [
        (pairs[0], 2, "label", 2), (pairs[3], 2, "label", 1),
        (pairs[2], None, "cannot_judge", 1)]
    assert [v.pair_id for v, _ in earlier] == [r.pair_id for r in recent]
    assert (recent[0].topic_id, recent[0].doc_id, recent[0].doc_title) == ("t0", "d0", "doc 0")


def _undo_in_thread(url: str, annotator: int, barrier: threading.Barrier,
                    withdrawn: list[int | None], errors: list[BaseException]) -> None:
    engine = open_engine(url)
    try:
        barrier.wait()
        with session_scope(engine) as session:
            view = withdraw_last(session, annotator_id=annotator)
        withdrawn.append(None if view is None else view.pair_id)
    except BaseException as exc:  # reported by the test
        errors.append(exc)
    finally:
        engine.dispose()


def test_two_tabs_undoing_at_once_withdraw_two_different_answers(engine, db_url):
    name, ids = _team(engine, overlap=1)
    ann = ids["ann"]
    with session_scope(engine) as session:
        for _ in range(5):
            pair = next_pair(session, annotator_id=ann).pair_id
            record_judgment(session, annotator_id=ann, pair_id=pair, label=1)
    withdrawn: list[int | None] = []
    errors: list[BaseException] = []
    for _ in range(3):  # 6 undos for 5 answers: exactly one finds nothing left
        barrier = threading.Barrier(2)
        tabs = [threading.Thread(target=_undo_in_thread,
                                 args=(db_url, ann, barrier, withdrawn, errors))
                for _ in range(2)]
        for tab in tabs:
            tab.start()
        for tab in tabs:
            tab.join()
    assert errors == []
    assert withdrawn.count(None) == 1 and len(set(withdrawn) - {None}) == 5
    with session_scope(engine, readonly=True) as session:
        rows = judgments_frame(session, campaign=name, latest_only=False)
    assert (rows["status"] == "withdrawn").sum() == 5 and rows["version"].max() == 2
    _consistent(engine, name)


def test_an_automatic_judge_gets_the_pairs_no_person_labelled(engine):
    from pooljudge.annotate.store import pairs_for_judge

    name, ids = _team(engine, overlap=1)
    with session_scope(engine) as session:
        done, undone, unsure = (next_pair(session, annotator_id=ids[p]).pair_id
                                for p in ("ann", "bob", "cy"))
        record_judgment(session, annotator_id=ids["ann"], pair_id=done, label=1)
        record_judgment(session, annotator_id=ids["bob"], pair_id=undone, label=1)
        record_judgment(session, annotator_id=ids["bob"], pair_id=undone, label=None,
                        status="withdrawn")
        record_judgment(session, annotator_id=ids["cy"], pair_id=unsure, label=None,
                        status="cannot_judge", rationale="unreadable")
        left, skipped = pairs_for_judge(session, campaign=name, annotator_id=None,
                                        pairs="unjudged")
    assert done not in left and {undone, unsure} <= set(left) and skipped == 1
