"""Fair, atomic assignment: which pair an annotator judges next.

A claim takes one of the pair's ``open_slots`` (overlap K minus participants who judged it minus
live claims) for ``lease_seconds``; judging or skipping releases it, and a claim whose lease has
ended is deleted and its slot returned by the next call. So each pair is handed to exactly K
distinct annotators, never twice to the same one.

Atomicity: on PostgreSQL the candidate row is locked with ``SELECT … FOR UPDATE SKIP LOCKED``
(concurrent claimers skip it; READ COMMITTED re-checks ``open_slots > 0`` on the locked row);
on SQLite the whole claim runs inside ``BEGIN IMMEDIATE`` (see :mod:`annotate.db`), so claims
are serialised by the database's write lock.

Queue order: ``pair.queue_pos``, fixed when the campaign is created from one of
:data:`JUDGING_ORDERS`. Pairs an annotator skipped come after every other pair, oldest skip
first. Assignment by topic: an annotator first finishes the topics they hold; a new topic is
taken only when those have nothing left for them, and at most K annotators hold a topic.
"""

from __future__ import annotations

from datetime import timedelta

import numpy as np
import pandas as pd
import sqlalchemy as sa
from sqlmodel import Session

from annotate.models import Annotator, Campaign, Claim, Judgment, Pair, Skip, Topic, TopicAssignment
from annotate.records import JUDGING_ORDERS, PairView
from annotate.store_common import ZERO, annotator_row, load_pair_view, utcnow
from pooljudge.errors import InputError

__all__ = ["JUDGING_ORDERS", "next_pair", "queue_positions", "release_expired", "skip_pair"]



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
    now = now or utcnow()
    pair_ids = session.execute(
        sa.delete(Claim).where(Claim.expires_at < now).returning(Claim.pair_id)
    ).scalars().all()
    for pair_id, count in pd.Series(pair_ids, dtype="int64").value_counts().items():
        session.execute(sa.update(Pair).where(Pair.id == int(pair_id))
                        .values(open_slots=Pair.open_slots + int(count)))
    return len(pair_ids)


def next_pair(session: Session, *, annotator_id: int, lease_seconds: float = 600
              ) -> PairView | None:
    """Claim the next pair for ``annotator_id`` (atomic); None when nothing is left for them.

    The annotator's own live claim comes back first, its lease renewed.
    """
    now = utcnow()
    expires = now + timedelta(seconds=lease_seconds)
    release_expired(session, now=now)
    me = session.execute(
        sa.select(Annotator.campaign_id, Annotator.human, Annotator.active, Annotator.name,
                  Campaign.assign_mode, Claim.pair_id, Claim.position)
        .join(Campaign, Campaign.id == Annotator.campaign_id)
        .outerjoin(Claim, Claim.annotator_id == Annotator.id).where(Annotator.id == annotator_id)
    ).first()
    if me is None or not me.active:
        raise InputError(f"no active annotator with id {annotator_id}")
    if not me.human:
        raise InputError(f"annotator {me.name!r} is an imported label source, not a judge")
    if me.pair_id is not None:
        session.execute(sa.update(Claim).where(Claim.annotator_id == annotator_id)
                        .values(expires_at=expires))
        return load_pair_view(session, me.pair_id, me.position)
    if me.assign_mode == "topic":
        pair_id = _claim_by_topic(session, annotator_id, me.campaign_id, now)
    else:
        pair_id = (_take_open(session, annotator_id, campaign_id=me.campaign_id)
                   or _take_open(session, annotator_id, campaign_id=me.campaign_id,
                                 skipped=True))
    if pair_id is None:
        return None
    position = session.execute(
        sa.update(Annotator).where(Annotator.id == annotator_id)
        .values(shown=Annotator.shown + 1).returning(Annotator.shown)
    ).scalar_one()
    session.execute(sa.insert(Claim).values(pair_id=pair_id, annotator_id=annotator_id,
                                            claimed_at=now, expires_at=expires,
                                            position=position))
    return load_pair_view(session, pair_id, position)


def skip_pair(session: Session, *, annotator_id: int, pair_id: int) -> None:
    """Release the annotator's claim on ``pair_id`` and put the pair after all others for them."""
    annotator_row(session, annotator_id, participant=True)
    released = session.execute(
        sa.delete(Claim).where(Claim.annotator_id == annotator_id, Claim.pair_id == pair_id)
        .returning(Claim.id)
    ).first()
    if released is None:
        raise InputError(f"pair {pair_id} is not claimed by annotator {annotator_id}")
    session.execute(sa.update(Pair).where(Pair.id == pair_id)
                    .values(open_slots=Pair.open_slots + 1))
    skip = session.get(Skip, (annotator_id, pair_id))
    if skip is None:
        session.add(Skip(annotator_id=annotator_id, pair_id=pair_id, skipped_at=utcnow()))
    else:
        skip.skipped_at = utcnow()
    session.flush()


def _take_open(session: Session, annotator_id: int, *, campaign_id: int | None = None,
               held_by_topic: bool = False, skipped: bool = False) -> int | None:
    """Take a slot of the first open pair this annotator has not judged (nor skipped, unless
    ``skipped``: then only skipped pairs, oldest skip first) in one ``UPDATE … RETURNING``;
    its id, or None. The candidate row is locked with ``FOR UPDATE SKIP LOCKED`` (PostgreSQL)."""
    p = sa.orm.aliased(Pair, name="candidate")
    judged = sa.exists().where(Judgment.pair_id == p.id, Judgment.annotator_id == annotator_id)
    query = sa.select(p.id).where(p.open_slots > ZERO, ~judged)
    if held_by_topic:
        query = query.join(TopicAssignment, sa.and_(TopicAssignment.topic_id == p.topic_id,
                                                    TopicAssignment.annotator_id == annotator_id))
    else:
        query = query.where(p.campaign_id == campaign_id)
    if skipped:
        query = query.join(Skip, sa.and_(Skip.pair_id == p.id, Skip.annotator_id == annotator_id))
        query = query.order_by(Skip.skipped_at, p.queue_pos)
    else:
        put_aside = sa.exists().where(Skip.annotator_id == annotator_id, Skip.pair_id == p.id)
        query = query.where(~put_aside).order_by(p.queue_pos)
    candidate = query.limit(1).with_for_update(skip_locked=True, of=p).scalar_subquery()
    return session.execute(
        sa.update(Pair).where(Pair.id == candidate, Pair.open_slots > ZERO)
        .values(open_slots=Pair.open_slots - 1).returning(Pair.id)
    ).scalar_one_or_none()


def _claim_by_topic(session: Session, annotator_id: int, campaign_id: int, now) -> int | None:
    """Assignment by topic: the held topics first, then a new topic, then skipped pairs."""
    while True:
        pair_id = _take_open(session, annotator_id, held_by_topic=True)
        if pair_id is not None:
            return pair_id
        held = sa.exists().where(TopicAssignment.topic_id == Topic.id,
                                 TopicAssignment.annotator_id == annotator_id)
        topic_id = session.execute(
            sa.select(Topic.id)
            .where(Topic.campaign_id == campaign_id, Topic.open_slots > ZERO, ~held)
            .order_by(Topic.queue_pos).limit(1).with_for_update(skip_locked=True)
        ).scalar_one_or_none()
        if topic_id is None:
            return _take_open(session, annotator_id, held_by_topic=True, skipped=True)
        session.execute(sa.update(Topic).where(Topic.id == topic_id)
                        .values(open_slots=Topic.open_slots - 1))
        session.execute(sa.insert(TopicAssignment).values(
            topic_id=topic_id, annotator_id=annotator_id, started_at=now))
