"""Fair, atomic assignment: which pair an annotator judges next.

A claim takes one of the pair's ``open_slots`` (overlap K minus participants who labelled it minus
live claims) for ``lease_seconds``; judging or skipping releases it, and a claim whose lease has
ended is deleted and its slot returned by the next call. So each pair is handed to exactly K
distinct annotators, never twice to the same one.

Atomicity: a slot is taken by one statement, ``UPDATE pair SET open_slots = open_slots - 1
WHERE id = (SELECT … ORDER BY queue_pos LIMIT 1 [FOR UPDATE SKIP LOCKED]) RETURNING id``. On
PostgreSQL the candidate row is locked with ``FOR UPDATE SKIP LOCKED`` (concurrent claimers skip
it; READ COMMITTED re-checks ``open_slots > 0`` on the locked row); on SQLite the statement runs
inside ``BEGIN IMMEDIATE`` (see :mod:`pooljudge.annotate.store.engine`), so claims are serialised
by the
write lock. The candidate search walks the partial index ``(campaign_id, queue_pos) WHERE
open_slots > 0`` and probes the judgment and skip primary keys per candidate; it never aggregates
judgments.

Round trips: a claim is two statements and the commit. The first reads (and, on PostgreSQL,
locks) the annotator, their live claim and whether any lease has ended (the expired claims are
deleted only then). The second, on
PostgreSQL, takes the slot, counts the showing, inserts the claim and returns the pair's texts in
one statement (data-modifying CTEs); on SQLite, in-process and without round trips, these are
four plain statements.

Judgment states: an annotator is never offered a pair they answered (their latest version is
a label or "I can't judge this"); a pair whose label they withdrew (undo) is offered to them
again. A can't-judge answer does not count towards K, so its slot reopens for someone else.

Queue order: ``pair.queue_pos``, fixed when the campaign is created from one of
:data:`JUDGING_ORDERS`. Pairs an annotator skipped come after every other pair, oldest skip
first. Assignment by topic: an annotator first finishes the topics they hold; a new topic is
taken only when those have nothing left for them, and at most K annotators hold a topic.

Sessions of one annotator (two tabs, two servers): they share the annotator's one live claim
(``claim.annotator_id`` is unique). On SQLite writers are serialised, so a second session finds
the first one's claim. On PostgreSQL every writing transaction of an annotator's judging
(claim, judgment, skip, import) first locks the annotator's row (``FOR UPDATE``), so one
annotator's transactions never interleave nor deadlock on each other's claim and progress rows.
A transaction that waited for that lock still reads the claim as of its first statement, so
two sessions can both find no claim: the claim insert is ``ON CONFLICT (annotator_id) DO
NOTHING``, and the session whose insert did nothing gives its slot (and, in assignment by
topic, the topics it just took) back and returns the winner's claim. A renewal that finds the
claim gone (another session judged or skipped it) looks again. A judgment of a pair the
annotator has meanwhile judged in another session is refused by
:func:`pooljudge.annotate.store.record_judgment` (DuplicateWrite, nothing stored).
"""

from __future__ import annotations

import time
from datetime import timedelta

import numpy as np
import pandas as pd
import sqlalchemy as sa
from pooljudge.annotate.records import PairView
from pooljudge.annotate.store.adaptive_queue import rerank_queue
from pooljudge.annotate.store.common import (
    VIEW_COLUMNS,
    ZERO,
    annotator_row,
    load_pair_view,
    pair_view_of,
    recount_slots,
    run,
    utcnow,
)
from pooljudge.annotate.store.models import (
    Annotator,
    Campaign,
    Claim,
    Judgment,
    Pair,
    Skip,
    Topic,
    TopicAssignment,
)
from pooljudge.pooling.orders import JUDGING_ORDERS, adaptive_spec
from sqlalchemy.dialects import postgresql
from sqlmodel import Session

from pooljudge.errors import InputError, PoolJudgeError

__all__ = ["JUDGING_ORDERS", "next_pair", "queue_positions", "release_expired", "skip_pair"]

# Prebuilt Core statements (built once, so SQLAlchemy's compiled cache serves every claim).
_PAIR, _CLAIM_T, _ANN = Pair.__table__, Claim.__table__, Annotator.__table__
_JUDGMENT, _SKIP, _HOLD = Judgment.__table__, Skip.__table__, TopicAssignment.__table__
_CAMPAIGN = Campaign.__table__
_RELEASE = (sa.delete(_CLAIM_T).where(_CLAIM_T.c.expires_at < sa.bindparam("now"))
            .returning(_CLAIM_T.c.pair_id))
_ENDED = _CLAIM_T.alias("ended")  # any annotator's claim, not the outer-joined own claim
_EXPIRED = sa.exists().where(_ENDED.c.expires_at < sa.bindparam("now"))
_ME = (
    sa.select(_ANN.c.campaign_id, _ANN.c.human, _ANN.c.active, _ANN.c.name,
              _CAMPAIGN.c.assign_mode, _CAMPAIGN.c.judging_order, _CLAIM_T.c.pair_id,
              _CLAIM_T.c.position, _EXPIRED.label("expired"))
    .select_from(_ANN.join(_CAMPAIGN, _CAMPAIGN.c.id == _ANN.c.campaign_id)
                 .outerjoin(_CLAIM_T, _CLAIM_T.c.annotator_id == _ANN.c.id))
    .where(_ANN.c.id == sa.bindparam("aid"))
    .with_for_update(of=_ANN)  # one writer per annotator at a time (PostgreSQL)
)
_RENEW = (sa.update(_CLAIM_T).where(_CLAIM_T.c.annotator_id == sa.bindparam("aid"))
          .values(expires_at=sa.bindparam("expires"))
          .returning(_CLAIM_T.c.pair_id, _CLAIM_T.c.position))
_SHOWN = (sa.update(_ANN).where(_ANN.c.id == sa.bindparam("aid"))
          .values(shown=_ANN.c.shown + 1).returning(_ANN.c.shown))
_CLAIM = sa.insert(_CLAIM_T)
_TOPIC = Topic.__table__
_TOPIC_SLOTS = (sa.update(_TOPIC).where(_TOPIC.c.id == sa.bindparam("tid"))
                .values(open_slots=_TOPIC.c.open_slots + sa.bindparam("n")))
_HOLD_VALUES = {"topic_id": sa.bindparam("tid"), "annotator_id": sa.bindparam("aid"),
                "started_at": sa.bindparam("now")}
_HOLD_INSERT = sa.insert(_HOLD).values(**_HOLD_VALUES).returning(_HOLD.c.topic_id)
_HOLD_PG = (postgresql.insert(_HOLD).values(**_HOLD_VALUES).on_conflict_do_nothing()
            .returning(_HOLD.c.topic_id))
_DROP_HOLD = sa.delete(_HOLD).where(_HOLD.c.topic_id == sa.bindparam("tid"),
                                    _HOLD.c.annotator_id == sa.bindparam("aid"))


class _ClaimedMeanwhile(Exception):
    """Another session of the annotator inserted their claim first (PostgreSQL); what this
    claim took has been given back."""


def queue_positions(pool: pd.DataFrame, order: str, *, seed: int = 0) -> np.ndarray:
    """Queue position (0 = first) of every row of ``pool`` (columns topic, order) for ``order``.

    Within a topic, pairs follow ``order`` then row order. Topics are ranked by their first row.
    """
    if order not in JUDGING_ORDERS:
        choices = ", ".join(JUDGING_ORDERS)
        raise InputError(f"unknown judging order {order!r}; choose from {choices}")
    n = len(pool)
    if order == "random":
        return np.random.default_rng(seed).permutation(n).astype(np.int64)
    topic_codes, _ = pd.factorize(pool["topic"], sort=False)
    within = np.lexsort((np.arange(n), pool["order"].to_numpy(), topic_codes))
    rank_in_topic = np.empty(n, dtype=np.int64)
    sizes = np.bincount(topic_codes)
    starts = np.r_[0, np.cumsum(sizes)[:-1]]
    rank_in_topic[within] = np.arange(n) - starts[topic_codes[within]]
    if order == "topic":
        keys = (rank_in_topic, topic_codes)
    else:
        keys = (topic_codes, rank_in_topic / sizes[topic_codes])
    sequence = np.lexsort(keys)
    positions = np.empty(n, dtype=np.int64)
    positions[sequence] = np.arange(n)
    return positions


def release_expired(session: Session, *, now=None) -> int:
    """Delete every claim whose lease has ended and return its slot; the number released."""
    pair_ids = run(session, _RELEASE, now=now or utcnow()).scalars().all()
    for pair_id in sorted(set(pair_ids)):
        recount_slots(session, pair_id)
    return len(pair_ids)


def next_pair(session: Session, *, annotator_id: int, lease_seconds: float = 600
              ) -> PairView | None:
    """Claim the next pair for ``annotator_id`` (atomic); None when nothing is left for them.

    The annotator's own live claim comes back first, its lease renewed. Several sessions of one
    annotator (two tabs, two servers) share that one claim: when another session claims first,
    or releases the claim while this one renews it, this call looks again and returns the
    claim then live (see "Sessions of one annotator" in the module docstring).
    """
    now = utcnow()
    lease = {"now": now, "expires": now + timedelta(seconds=lease_seconds)}
    for _attempt in range(_RETRIES):
        me = _annotator_state(session, annotator_id, now)
        if me.pair_id is not None:
            own = run(session, _RENEW, aid=annotator_id, expires=lease["expires"]).first()
            if own is not None:
                return load_pair_view(session, own.pair_id, own.position)
            continue  # released by another session of this annotator meanwhile
        try:
            return _claim_new(session, annotator_id, me, lease)
        except _ClaimedMeanwhile:
            continue  # another session of this annotator claimed first: share its claim
    raise PoolJudgeError(f"annotator {annotator_id}: no stable claim after {_RETRIES} attempts "
                         "(their sessions keep claiming and releasing at once)")


def _annotator_state(session: Session, annotator_id: int, now) -> sa.Row:
    """The annotator, their live claim (if any) and their campaign's modes; ended leases'
    slots are returned first. InputError for an unknown, removed or non-participant id."""
    me = run(session, _ME, aid=annotator_id, now=now).first()
    if me is not None and me.expired:  # return ended leases' slots, then look again
        release_expired(session, now=now)
        me = run(session, _ME, aid=annotator_id, now=now).first()
    if me is None or not me.active:
        raise InputError(f"no active annotator with id {annotator_id}")
    if not me.human:
        raise InputError(f"annotator {me.name!r} is an imported label source, not a judge")
    return me


def _claim_new(session: Session, annotator_id: int, me: sa.Row, lease: dict
               ) -> PairView | None:
    """Take a slot for an annotator who holds no claim; _ClaimedMeanwhile on a lost race."""
    if adaptive_spec(me.judging_order) is not None:  # the policy's pairs first
        rerank_queue(session, campaign_id=me.campaign_id)
    if me.assign_mode == "topic":
        return _claim_by_topic(session, annotator_id, me.campaign_id, lease)
    return (_take_open(session, annotator_id, lease, campaign_id=me.campaign_id)
            or _take_open(session, annotator_id, lease, campaign_id=me.campaign_id,
                          skipped=True))


def skip_pair(session: Session, *, annotator_id: int, pair_id: int) -> None:
    """Release the annotator's claim on ``pair_id`` and put the pair after all others for them."""
    annotator_row(session, annotator_id, participant=True, lock=True)
    released = session.execute(
        sa.delete(Claim).where(Claim.annotator_id == annotator_id, Claim.pair_id == pair_id)
        .returning(Claim.id)
    ).first()
    if released is None:
        raise InputError(f"pair {pair_id} is not claimed by annotator {annotator_id}")
    recount_slots(session, pair_id)
    skip = session.get(Skip, (annotator_id, pair_id))
    if skip is None:
        session.add(Skip(annotator_id=annotator_id, pair_id=pair_id, skipped_at=utcnow()))
    else:
        skip.skipped_at = utcnow()
    session.flush()


def _take_open(session: Session, annotator_id: int, lease: dict, *,
               campaign_id: int | None = None, held_by_topic: bool = False,
               skipped: bool = False) -> PairView | None:
    """Claim a slot of the first open pair this annotator has not judged (nor skipped, unless
    ``skipped``: then only skipped pairs, oldest skip first), for the ``lease`` (now, expires);
    its view, or None when no such pair has an open slot.

    The candidate row is locked with ``FOR UPDATE SKIP LOCKED`` (PostgreSQL). A row that another
    transaction holds for a moment (its own claim or a judgment) is skipped, so near the end of
    a campaign the take can come back empty although a slot is still free: then a plain read
    (committed state, no lock) says whether an open candidate exists, and the take is retried
    after a short wait until it succeeds or no candidate is left. SQLite serialises claims with
    ``BEGIN IMMEDIATE``, where an empty take is final. _ClaimedMeanwhile (the slot given
    back) when another session of the annotator inserted its claim first (PostgreSQL).
    """
    case = (held_by_topic, skipped)
    params = {"aid": annotator_id, "cid": campaign_id}
    if session.get_bind().dialect.name != "postgresql":
        pair_id = run(session, _TAKE[case], **params).scalar_one_or_none()
        return None if pair_id is None else _record_claim(session, annotator_id, pair_id, lease)
    for attempt in range(_RETRIES):
        row = run(session, _CLAIM_PG[case], **params, **lease).first()
        if row is not None and row.position is None:  # lost to a session of this annotator
            recount_slots(session, row.pair_id)
            raise _ClaimedMeanwhile
        if row is not None:
            return pair_view_of(row.pair_id, row.position, row[2:])
        if not run(session, _OPEN_EXISTS[case], **params).scalar():
            return None
        time.sleep(_RETRY_PAUSE * (attempt + 1))
    return None


def _record_claim(session: Session, annotator_id: int, pair_id: int, lease: dict) -> PairView:
    """Count the showing, insert the claim of a taken slot and read the pair (SQLite)."""
    position = run(session, _SHOWN, aid=annotator_id).scalar_one()
    run(session, _CLAIM, pair_id=pair_id, annotator_id=annotator_id, claimed_at=lease["now"],
        expires_at=lease["expires"], position=position)
    return load_pair_view(session, pair_id, position)


def _candidates(*, held_by_topic: bool, skipped: bool) -> sa.Select:
    """Open pairs the annotator may take, in queue order; binds ``aid`` and ``cid``.

    A pair is taken from them once they answered it: some version sequence of theirs on it
    (any kind) ends in a label or a can't-judge answer. A pair whose answers they all
    withdrew is offered again. Probes the judgment table's unique index per candidate."""
    p = _PAIR.alias("candidate")
    aid = sa.bindparam("aid")
    j, newer = _JUDGMENT, _JUDGMENT.alias("newer")
    later = sa.exists().where(newer.c.pair_id == j.c.pair_id,
                              newer.c.annotator_id == j.c.annotator_id,
                              newer.c.kind == j.c.kind, newer.c.version > j.c.version)
    answered = sa.exists().where(j.c.pair_id == p.c.id, j.c.annotator_id == aid,
                                 j.c.status != "withdrawn", ~later)
    query = sa.select(p.c.id).where(p.c.open_slots > ZERO, ~answered)
    if held_by_topic:
        query = query.join(_HOLD, sa.and_(_HOLD.c.topic_id == p.c.topic_id,
                                          _HOLD.c.annotator_id == aid))
    else:
        query = query.where(p.c.campaign_id == sa.bindparam("cid"))
    if skipped:
        query = query.join(_SKIP, sa.and_(_SKIP.c.pair_id == p.c.id, _SKIP.c.annotator_id == aid))
        return query.order_by(_SKIP.c.skipped_at, p.c.queue_pos)
    put_aside = sa.exists().where(_SKIP.c.annotator_id == aid, _SKIP.c.pair_id == p.c.id)
    return query.where(~put_aside).order_by(p.c.queue_pos)


def _take_statement(*, held_by_topic: bool, skipped: bool) -> sa.Update:
    """The take of one (held_by_topic, skipped) case, without RETURNING; binds aid and cid."""
    query = _candidates(held_by_topic=held_by_topic, skipped=skipped)
    pair = query.selected_columns[0].table  # lock only the candidate pair, not joined rows
    candidate = query.limit(1).with_for_update(skip_locked=True, of=pair).scalar_subquery()
    return (sa.update(_PAIR).where(_PAIR.c.id == candidate, _PAIR.c.open_slots > ZERO)
            .values(open_slots=_PAIR.c.open_slots - 1))


def _claim_statement(take: sa.Update) -> sa.Select:
    """PostgreSQL: ``take``, insert the claim, count the showing and return (pair_id, position,
    *VIEW_COLUMNS) in one statement of data-modifying CTEs; no row when nothing was taken, and
    position NULL when the annotator's claim was inserted meanwhile by another session (the
    insert is ``ON CONFLICT (annotator_id) DO NOTHING``; the showing is counted only when it
    inserted). Binds aid, cid, now and expires."""
    aid = sa.bindparam("aid", type_=sa.Integer)
    taken = take.returning(_PAIR.c.id, _PAIR.c.topic_id, _PAIR.c.document_id).cte("taken")
    position = sa.select(_ANN.c.shown + 1).where(_ANN.c.id == aid).scalar_subquery()
    claimed = (
        postgresql.insert(_CLAIM_T).from_select(
            ["pair_id", "annotator_id", "claimed_at", "expires_at", "position"],
            sa.select(taken.c.id, aid, sa.bindparam("now", type_=sa.DateTime),
                      sa.bindparam("expires", type_=sa.DateTime), position))
        .on_conflict_do_nothing(index_elements=[_CLAIM_T.c.annotator_id])
        .returning(_CLAIM_T.c.pair_id, _CLAIM_T.c.position).cte("claimed")
    )
    shown = (sa.update(_ANN).where(_ANN.c.id == aid, sa.exists(sa.select(claimed.c.pair_id)))
             .values(shown=_ANN.c.shown + 1).returning(_ANN.c.id).cte("shown"))
    topic, document = VIEW_COLUMNS[0].table, VIEW_COLUMNS[-1].table
    return (sa.select(taken.c.id.label("pair_id"), claimed.c.position, *VIEW_COLUMNS)
            .select_from(taken.outerjoin(claimed, claimed.c.pair_id == taken.c.id)
                         .join(topic, topic.c.id == taken.c.topic_id)
                         .join(document, document.c.id == taken.c.document_id))
            .add_cte(shown))


def _claim_by_topic(session: Session, annotator_id: int, campaign_id: int, lease: dict
                    ) -> PairView | None:
    """Assignment by topic: the held topics first, then a new topic, then skipped pairs.

    On _ClaimedMeanwhile the topics newly taken by this call are given back before re-raising.
    """
    taken: list[int] = []
    try:
        while True:
            view = _take_open(session, annotator_id, lease, held_by_topic=True)
            if view is not None:
                return view
            if not _hold_new_topic(session, annotator_id, campaign_id, lease, taken):
                return _take_open(session, annotator_id, lease, held_by_topic=True,
                                  skipped=True)
    except _ClaimedMeanwhile:
        for topic_id in taken:
            run(session, _DROP_HOLD, tid=topic_id, aid=annotator_id)
            run(session, _TOPIC_SLOTS, tid=topic_id, n=1)
        raise


def _hold_new_topic(session: Session, annotator_id: int, campaign_id: int, lease: dict,
                    taken: list[int]) -> bool:
    """Hold the first topic with an open slot the annotator does not hold; False when none.

    The topic's id goes to ``taken`` when this call took its slot. On PostgreSQL the hold is
    inserted ``ON CONFLICT DO NOTHING``: a hold of the same topic inserted meanwhile by another
    session of the annotator is shared (no second slot is taken)."""
    held = sa.exists().where(TopicAssignment.topic_id == Topic.id,
                             TopicAssignment.annotator_id == annotator_id)
    topic_id = session.execute(
        sa.select(Topic.id)
        .where(Topic.campaign_id == campaign_id, Topic.open_slots > ZERO, ~held)
        .order_by(Topic.queue_pos).limit(1).with_for_update(skip_locked=True)
    ).scalar_one_or_none()
    if topic_id is None:
        return False
    hold = _HOLD_PG if session.get_bind().dialect.name == "postgresql" else _HOLD_INSERT
    if run(session, hold, tid=topic_id, aid=annotator_id, now=lease["now"]).first() is not None:
        run(session, _TOPIC_SLOTS, tid=topic_id, n=-1)
        taken.append(topic_id)
    return True


_CASES = [(held, skipped) for held in (False, True) for skipped in (False, True)]
_TAKE_BARE = {(h, s): _take_statement(held_by_topic=h, skipped=s) for h, s in _CASES}
_TAKE = {case: take.returning(_PAIR.c.id) for case, take in _TAKE_BARE.items()}
_CLAIM_PG = {case: _claim_statement(take) for case, take in _TAKE_BARE.items()}
_OPEN_EXISTS = {(h, s): sa.select(sa.exists(_candidates(held_by_topic=h, skipped=s)))
                for h, s in _CASES}
_RETRIES, _RETRY_PAUSE = 50, 0.002
