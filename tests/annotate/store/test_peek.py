"""store.peek_next_pair: the pair the next claim would take, read without claiming, on both
backends; None where no forecast is worth making (nothing left; an adaptive order: see
test_adaptive_queue)."""

from __future__ import annotations

from pooljudge.annotate import store
from pooljudge.annotate.store import session_scope


def _annotator(engine, name: str, person: str = "ann") -> int:
    with session_scope(engine) as session:
        store.add_annotator(session, campaign=name, name=person)
        return store.annotator_id(session, campaign=name, name=person)


def _judge(engine, ann: int, pair_id: int) -> None:
    with session_scope(engine) as session:
        store.record_judgment(session, annotator_id=ann, pair_id=pair_id, label=1,
                              expected_version=1)


def test_the_forecast_is_the_pair_the_next_claim_takes(engine, make_campaign) -> None:
    name = make_campaign(overlap=1, n_topics=2, n_docs=3)
    ann = _annotator(engine, name)
    with session_scope(engine) as session:
        held = store.next_pair(session, annotator_id=ann)
    while held is not None:
        with session_scope(engine, readonly=True) as session:
            forecast = store.peek_next_pair(session, annotator_id=ann, held_pair_id=held.pair_id)
        _judge(engine, ann, held.pair_id)
        with session_scope(engine) as session:
            claimed = store.next_pair(session, annotator_id=ann)
        assert (forecast and forecast.pair_id) == (claimed and claimed.pair_id)
        held = claimed


def test_a_forecast_claims_nothing(engine, make_campaign) -> None:
    name = make_campaign(overlap=1, n_topics=1, n_docs=2)
    ann, bob = _annotator(engine, name), _annotator(engine, name, "bob")
    with session_scope(engine) as session:
        held = store.next_pair(session, annotator_id=ann)
        forecast = store.peek_next_pair(session, annotator_id=ann, held_pair_id=held.pair_id)
    with session_scope(engine) as session:  # the forecast's only slot is still open to bob
        assert store.next_pair(session, annotator_id=bob).pair_id == forecast.pair_id
    with session_scope(engine, readonly=True) as session:  # and now nothing is left for ann
        assert store.peek_next_pair(session, annotator_id=ann, held_pair_id=held.pair_id) is None

