"""Adaptive judging orders: a policy of :mod:`pooling` re-ranks the queue at claim time.

An adaptive campaign (``judging_order`` one of :data:`~pooljudge.pooling.orders.ADAPTIVE_ORDERS`,
such as
``maxmean``) keeps each pooled pair's rank in every run that retrieved it (``pool_entry``). Its
queue starts in the policy's plan before any judgment. Then, before each claim,
:func:`rerank_queue` asks the policy ``next_pairs(judged, n)`` and moves those pairs to the front
of the queue (``pair.queue_pos`` below every open pair), so the usual atomic claim statement of
:mod:`pooljudge.annotate.store.assignment` hands them out: atomicity, the overlap K and "never the
same pair
twice" are untouched.

What the policy is told: for every pair judged by at least one participant (a human annotator,
kind ``judgment``; imported label sources and adjudications are left out), the lower median of
the participants' latest labels; relevant means a label of at least 1 (``rel=1``). A pair
becomes "judged" for the policy with its first judgment, so with K > 1 its further judgments
are claimed from its earlier queue position, ahead of pairs the policy has not asked for.

Cost: re-ranking happens only when a judgment was recorded since the last re-rank
(``campaign.queue_mark`` = the highest judgment id the queue reflects; the check is two primary
key look-ups) and rewrites only ``n = BATCH + live claims`` positions. Each process caches the
policy and the labels per campaign and reads only new judgment rows (with a window of
:data:`_LAG` ids for rows committed out of id order on PostgreSQL, and a full re-read every
:data:`_FULL_EVERY` refreshes). Re-rankers are serialised by locking the campaign row with
``FOR UPDATE SKIP LOCKED``: a claimer that finds it locked leaves the re-ranking to its holder
and never waits (so a claim cannot deadlock with a re-rank). On SQLite the claim transaction
already holds the write lock.

Adaptive orders interleave topics (pooling's rule), so they need assignment by pair.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
import sqlalchemy as sa
from pooljudge.annotate.store.common import ZERO, run
from pooljudge.annotate.store.models import (
    Annotator,
    Campaign,
    Claim,
    Document,
    Judgment,
    Pair,
    PoolEntry,
    Topic,
)
from pooljudge.pooling.factory import make_policy
from pooljudge.pooling.orders import adaptive_spec
from pooljudge.pooling.policy import JudgingPolicy, global_sequence
from pooljudge.pooling.pool import Pool, topic_order
from sqlmodel import Session

from pooljudge.errors import InputError

__all__ = ["BATCH", "RELEVANT", "initial_positions", "policy_pool", "rerank_queue",
           "run_ranks", "select_run_ranks"]

BATCH = 8  # positions re-ranked per refresh, beyond the pairs already claimed
RELEVANT = 1  # labels of at least this value are relevant to the policy
_LAG = 10_000  # judgment ids re-read behind the newest seen (out-of-order commits)
_FULL_EVERY = 256  # refreshes between full re-reads of the campaign's judgments

_C, _P, _J, _A = Campaign.__table__, Pair.__table__, Judgment.__table__, Annotator.__table__
_STATUS = (
    sa.select(_C.c.name, _C.c.created_at, _C.c.judging_order, _C.c.order_seed, _C.c.queue_mark,
              sa.select(sa.func.max(_J.c.id)).scalar_subquery().label("newest"))
    .where(_C.c.id == sa.bindparam("cid"))
)
_LOCK = (sa.select(_C.c.queue_mark).where(_C.c.id == sa.bindparam("cid"))
         .with_for_update(skip_locked=True))
_MARK = sa.update(_C).where(_C.c.id == sa.bindparam("cid")).values(
    queue_mark=sa.bindparam("mark"))
_NEW_JUDGMENTS = (
    sa.select(_J.c.pair_id, _J.c.annotator_id, _J.c.version, _J.c.label)
    .select_from(_J.join(_P, _P.c.id == _J.c.pair_id).join(_A, _A.c.id == _J.c.annotator_id))
    .where(_J.c.id > sa.bindparam("after"), _P.c.campaign_id == sa.bindparam("cid"),
           _J.c.kind == "judgment", _A.c.human)
)
_PENDING = (sa.select(sa.func.count()).select_from(Claim.__table__.join(
    _P, _P.c.id == Claim.__table__.c.pair_id)).where(_P.c.campaign_id == sa.bindparam("cid")))
_FRONT = sa.select(sa.func.min(_P.c.queue_pos)).where(
    _P.c.campaign_id == sa.bindparam("cid"), _P.c.open_slots > ZERO)
_MOVE = sa.update(_P).where(_P.c.id == sa.bindparam("pid")).values(
    queue_pos=sa.bindparam("pos"))


# --- building the policy's pool -----------------------------------------------------------------

def policy_pool(pairs: pd.DataFrame, ranks: pd.DataFrame) -> tuple[Pool, np.ndarray]:
    """A :class:`pooling.Pool` of ``pairs`` (columns topic, doc) with the run ``ranks``
    (topic, doc, run, rank), in pooling's canonical order; and for each pool row the row of
    ``pairs`` it is. Ranks of pairs not in ``pairs`` are ignored."""
    topics = pd.Categorical(pairs["topic"], categories=topic_order(pairs["topic"])).codes
    docs, _ = pd.factorize(pairs["doc"], sort=True)  # code point order = UTF-8 byte order
    rows = np.lexsort((docs, topics))
    table = pairs.iloc[rows][["topic", "doc"]].reset_index(drop=True)
    table["doc"] = table["doc"].astype(object)  # the policy slices it per topic, per request
    index = pd.Series(np.arange(len(table)),
                      index=pd.MultiIndex.from_frame(table[["topic", "doc"]]))
    where = index.reindex(pd.MultiIndex.from_frame(ranks[["topic", "doc"]])).to_numpy()
    known = ~np.isnan(where)
    run_names = tuple(sorted(set(ranks["run"].to_numpy()[known])))
    entries = pd.DataFrame({
        "pair": where[known].astype(np.int64),
        "run": pd.Categorical(ranks["run"].to_numpy()[known], categories=run_names).codes
        .astype(np.int64),
        "rank": ranks["rank"].to_numpy()[known].astype(np.int64),
    }).sort_values(["pair", "run"], kind="stable").reset_index(drop=True)
    grouped = entries.groupby("pair")["rank"]
    table["best_rank"] = grouped.min().reindex(range(len(table))).fillna(0).astype(np.int64)
    table["n_runs"] = grouped.size().reindex(range(len(table))).fillna(0).astype(np.int64)
    depth = int(entries["rank"].max()) if len(entries) else 0
    return Pool(table, entries, run_names, depth), rows


def run_ranks(pool: Pool) -> pd.DataFrame:
    """The run ranks behind a pooling Pool: one row (topic, doc, run, rank) per entry."""
    pair = pool.entries["pair"].to_numpy()
    return pd.DataFrame({
        "topic": pool.pairs["topic"].to_numpy()[pair], "doc": pool.pairs["doc"].to_numpy()[pair],
        "run": np.asarray(pool.run_names, dtype=object)[pool.entries["run"].to_numpy()],
        "rank": pool.entries["rank"].to_numpy().astype(np.int64),
    })


def select_run_ranks(pool: pd.DataFrame, ranks: pd.DataFrame, *, complete: bool
                     ) -> pd.DataFrame:
    """The ``ranks`` (topic, doc, run, rank) of the pool file's pairs, checked.

    Raises InputError for missing columns, a rank below 1, a run ranking a pair twice, or, when
    ``complete``, a pool row no run ranks (an adaptive policy could never reach it).
    """
    missing = [c for c in ("topic", "doc", "run", "rank") if c not in ranks.columns]
    if missing:
        raise InputError(f"run ranks lack column(s) {', '.join(missing)}")
    ranks = ranks.astype({"topic": str, "doc": str, "run": str})
    if len(ranks) and (ranks["rank"].to_numpy() < 1).any():
        raise InputError("run ranks must be at least 1")
    if ranks.duplicated(["topic", "doc", "run"]).any():
        row = ranks.loc[ranks.duplicated(["topic", "doc", "run"])].iloc[0]
        raise InputError(f"run {row['run']} ranks {row['topic']} {row['doc']} twice")
    keys = pool[["topic", "doc"]].astype(str)
    chosen = ranks.merge(keys.drop_duplicates(), on=["topic", "doc"], how="inner")
    if complete:
        covered = pd.MultiIndex.from_frame(keys).isin(
            pd.MultiIndex.from_frame(chosen[["topic", "doc"]]))
        if not covered.all():
            i = int(np.argmin(covered))
            raise InputError(f"pool row {i + 1} ({keys['topic'].iat[i]} {keys['doc'].iat[i]}) "
                             "is in no run's ranking: give the runs the pool was made from "
                             "and a depth that reaches it")
    return chosen[["topic", "doc", "run", "rank"]].reset_index(drop=True)


def initial_positions(pool: pd.DataFrame, ranks: pd.DataFrame, *, order: str, seed: int
                      ) -> np.ndarray:
    """Queue positions (0 = first) of the ``pool`` rows in the adaptive ``order``'s plan before
    any judgment, topics interleaved as pooling does (:func:`pooling.global_sequence`)."""
    spec = adaptive_spec(order)
    if spec is None:
        raise InputError(f"{order!r} is not an adaptive order")
    table, rows = policy_pool(pool[["topic", "doc"]].astype(str), ranks)
    policy = make_policy(spec, table, seed=seed, rel=RELEVANT)
    sequence = global_sequence(table, policy.plan())
    positions = np.empty(len(pool), dtype=np.int64)
    positions[rows[sequence]] = np.arange(len(pool), dtype=np.int64)
    return positions


# --- re-ranking at claim time -------------------------------------------------------------------

@dataclass
class _State:
    """One campaign's policy and what it has been told, cached per process."""

    policy: JudgingPolicy
    keys: dict[int, tuple[str, str]]
    ids: dict[tuple[str, str], int]
    votes: dict[int, dict[int, tuple[int, int | None]]] = field(default_factory=dict)
    judged: dict[tuple[str, str], int] = field(default_factory=dict)
    seen: int = 0
    refreshes: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def absorb(self, rows: Iterable[tuple[int, int, int, int | None]]) -> bool:
        """Take judgment rows (pair, annotator, version, label); whether a pair's label changed.
        Idempotent: a row is kept only when newer than the annotator's known version. A row
        without a label (a withdrawal, a can't-judge answer) takes that annotator's vote
        away; a pair left without votes is unjudged again for the policy."""
        touched: set[int] = set()
        for pair_id, annotator_id, version, label in rows:
            votes = self.votes.setdefault(pair_id, {})
            if votes.get(annotator_id, (0, 0))[0] < version:
                votes[annotator_id] = (version, label)
                touched.add(pair_id)
        changed = False
        for pair_id in touched:
            labels = sorted(label for _, label in self.votes[pair_id].values()
                            if label is not None)
            key = self.keys[pair_id]
            if not labels:
                changed |= self.judged.pop(key, None) is not None
                continue
            label = labels[(len(labels) - 1) // 2]
            changed |= self.judged.get(key) != label
            self.judged[key] = label
        return changed


_STATES: dict[tuple[str, int, str, str], _State] = {}
_STATES_LOCK = threading.Lock()


def rerank_queue(session: Session, *, campaign_id: int) -> bool:
    """Move the adaptive policy's next pairs to the front of the campaign's queue, when the
    campaign has an adaptive order and a judgment was recorded since the last re-rank (inside
    the caller's claim transaction). Whether positions were rewritten."""
    status = run(session, _STATUS, cid=campaign_id).first()
    if status is None or adaptive_spec(status.judging_order) is None:
        return False
    newest = status.newest or 0
    if newest <= status.queue_mark:
        return False
    mark = run(session, _LOCK, cid=campaign_id).scalar_one_or_none()
    if mark is None or mark >= newest:  # another claimer is re-ranking, or has done it
        return False
    run(session, _MARK, cid=campaign_id, mark=newest)
    key = (str(session.get_bind().url), campaign_id, status.name, str(status.created_at))
    with _STATES_LOCK:
        state = _STATES.get(key)
    if state is None:
        built = _load_state(session, campaign_id, status.judging_order, status.order_seed)
        with _STATES_LOCK:
            state = _STATES.setdefault(key, built)
    # Only the holder of the campaign row lock gets here, so this lock never waits in practice;
    # it is never held while waiting for another lock than the database's.
    with state.lock:
        return _refresh(session, state, campaign_id, newest)


def _load_state(session: Session, campaign_id: int, order: str, seed: int) -> _State:
    """Build the campaign's policy from its pairs and run ranks."""
    pairs = pd.DataFrame(session.execute(
        sa.select(Pair.id, Topic.key.label("topic"), Document.key.label("doc"))
        .join(Topic, Topic.id == Pair.topic_id).join(Document, Document.id == Pair.document_id)
        .where(Pair.campaign_id == campaign_id)).all(), columns=["id", "topic", "doc"])
    ranks = pd.DataFrame(session.execute(
        sa.select(PoolEntry.pair_id, PoolEntry.run, PoolEntry.rank)
        .join(Pair, Pair.id == PoolEntry.pair_id).where(Pair.campaign_id == campaign_id)).all(),
        columns=["id", "run", "rank"])
    ranks = ranks.merge(pairs, on="id")
    table, _ = policy_pool(pairs[["topic", "doc"]], ranks)
    policy = make_policy(adaptive_spec(order), table, seed=seed, rel=RELEVANT)
    keys = dict(zip(pairs["id"].tolist(), zip(pairs["topic"], pairs["doc"], strict=True),
                    strict=True))
    return _State(policy, keys, {v: k for k, v in keys.items()})


def _refresh(session: Session, state: _State, campaign_id: int, newest: int) -> bool:
    """Read the judgments the state has not seen; when a label changed, re-rank the front."""
    state.refreshes += 1
    full = state.refreshes % _FULL_EVERY == 1
    after = 0 if full else max(0, state.seen - _LAG)
    rows = run(session, _NEW_JUDGMENTS, cid=campaign_id, after=after).all()
    changed = state.absorb(rows)
    first = state.seen == 0
    state.seen = max(state.seen, newest)
    if not (changed or first):
        return False
    pending = run(session, _PENDING, cid=campaign_id).scalar_one()
    chosen = state.policy.next_pairs(state.judged, BATCH + pending)
    front = run(session, _FRONT, cid=campaign_id).scalar_one_or_none() or 0
    moves = sorted((state.ids[pair], front - len(chosen) + i) for i, pair in enumerate(chosen))
    if moves:
        session.connection().execute(_MOVE, [{"pid": p, "pos": q} for p, q in moves])
    return bool(moves)
