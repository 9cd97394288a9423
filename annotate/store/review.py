"""Review campaigns in the store: settings, per-topic phases, rankings, samples, certificates.

A review campaign is an ordinary campaign (every (topic, document) of the collection a pair,
claimed by :mod:`pooljudge.annotate.store.assignment` in ``pair.queue_pos`` order) plus a
``review`` row. Its queue changes the way an adaptive campaign's does (the queue positions are
rewritten, the atomic claim is untouched), but outside the claim: :func:`write_ranking` and
:func:`start_sample` give a topic's pairs new places *among the positions those pairs already
hold*, so topics stay interleaved as the campaign was made and a rewrite never moves another
topic. Each write is one transaction that first locks the topic's ``review_topic`` row
(``FOR UPDATE`` on PostgreSQL; SQLite writers are serialised), then checks that the result is
not outdated (see each function): several servers on one database may race, the stale result is
discarded.

Invariants: ``review_topic.phase`` is ``rank`` (the queue is the CAL ranking), ``sample`` (a
uniform random sample, ``review_sample`` in draw order) or ``certified`` (a ``certificate``
row exists; the topic's pairs have ``open_slots`` 0, and
:data:`~pooljudge.annotate.store.common.RECOUNT_SLOTS` keeps them closed). A certificate's
``judgments`` are the ids of the latest human labels of the topic when it was written;
``digest`` is the SHA-256 of ``id:label`` lines in id order. It is stale when one of those rows
has a newer version (withdrawn, relabelled, "can't judge").

Labels read for CAL: the latest version of each human annotator's ``judgment`` on a pair; a
pair's label is the lower median of those with status ``label`` (as the adaptive orders'
policies are told); a pair is ordered by its first label row's id.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
import sqlalchemy as sa
from pooljudge.annotate.records import STOP_RULES
from pooljudge.annotate.review_records import (
    ReviewCertificate,
    ReviewSettings,
    ReviewTopicState,
)
from pooljudge.annotate.store.common import campaign_row, run, utcnow
from pooljudge.annotate.store.models import (
    Annotator,
    Certificate,
    Document,
    Judgment,
    Pair,
    Review,
    ReviewSample,
    ReviewTopic,
    Topic,
)
from sqlmodel import Session

from pooljudge.errors import InputError

__all__ = ["certificates", "certify", "end_sample", "review_labels", "review_pairs",
           "review_settings", "review_status_of", "review_texts", "review_topic_of",
           "review_topics", "start_review", "start_sample", "write_ranking"]

_P, _J, _A, _RT = Pair.__table__, Judgment.__table__, Annotator.__table__, ReviewTopic.__table__
_CHUNK = 10_000  # judgment ids looked up per statement
_LOCK_TOPIC = (sa.select(_RT.c.phase, _RT.c.ranked_count)
               .where(_RT.c.topic_id == sa.bindparam("tid")).with_for_update())


def _frame(session: Session, statement: sa.Select, columns: list[str]) -> pd.DataFrame:
    """The rows of ``statement`` as a frame, column by column (no object per row: a frame
    built from row objects costs ~30 µs a row)."""
    rows = session.execute(statement).all()
    data = list(zip(*rows, strict=True)) if rows else [()] * len(columns)
    return pd.DataFrame({c: list(v) for c, v in zip(columns, data, strict=True)})


def start_review(session: Session, *, campaign: str, rule: str, target: float, alpha: float,
                 seed: int) -> ReviewSettings:
    """Make ``campaign`` (just created, its pairs queued in the seed ranking) a review: every
    topic in phase ``rank`` with its first retrain due after one label (BMI's first batch).
    InputError for an unknown rule, a level outside (0, 1) or a campaign already a review."""
    if rule not in STOP_RULES:
        raise InputError(f"unknown stopping rule {rule!r}; choose from {', '.join(STOP_RULES)}")
    if not (0 < target < 1 and 0 < alpha < 1):
        raise InputError(f"target recall and alpha must lie in (0, 1), got {target}, {alpha}")
    row = campaign_row(session, campaign)
    if session.get(Review, row.id) is not None:
        raise InputError(f"campaign {campaign!r} is already a review")
    session.add(Review(campaign_id=row.id, rule=rule, target=target, alpha=alpha, seed=seed))
    sizes = session.execute(sa.select(Pair.topic_id, sa.func.count()).where(
        Pair.campaign_id == row.id).group_by(Pair.topic_id)).all()
    session.add_all(ReviewTopic(topic_id=t, campaign_id=row.id, phase="rank", ranked_count=0,
                                due_count=1, batch=1, n_docs=n) for t, n in sizes)
    session.flush()
    return ReviewSettings(row.id, rule, target, alpha, seed)


def review_settings(session: Session, *, campaign_id: int) -> ReviewSettings | None:
    """The campaign's review settings; None when it is not a review."""
    row = session.get(Review, campaign_id)
    return None if row is None else ReviewSettings(row.campaign_id, row.rule, row.target,
                                                   row.alpha, row.seed)


def review_topic_of(session: Session, *, pair_id: int) -> tuple[int, int] | None:
    """(campaign id, topic id) of the pair's review topic; None when it is not under review."""
    row = session.execute(
        sa.select(_RT.c.campaign_id, _RT.c.topic_id).join(_P, _P.c.topic_id == _RT.c.topic_id)
        .where(_P.c.id == pair_id)).first()
    return None if row is None else (row[0], row[1])


def review_status_of(session: Session, *, pair_id: int) -> tuple[str, str] | None:
    """(rule, phase) of the pair's review topic; None when it is not under review."""
    rv = Review.__table__
    row = session.execute(
        sa.select(rv.c.rule, _RT.c.phase).join(_RT, _RT.c.campaign_id == rv.c.campaign_id)
        .join(_P, _P.c.topic_id == _RT.c.topic_id).where(_P.c.id == pair_id)).first()
    return None if row is None else (row[0], row[1])


def review_topics(session: Session, *, campaign_id: int) -> list[ReviewTopicState]:
    """Every topic's review state, by topic key."""
    rows = session.execute(
        sa.select(ReviewTopic, Topic.key).join(Topic, Topic.id == ReviewTopic.topic_id)
        .where(ReviewTopic.campaign_id == campaign_id).order_by(Topic.key)).all()
    return [ReviewTopicState(r.topic_id, key, r.phase, r.ranked_count, r.due_count, r.batch,
                             r.n_docs) for r, key in rows]


def review_texts(session: Session, *, campaign_id: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(documents, topics) of the campaign for CAL's features: documents (document_id, doc,
    title, text = title and text) by id; topics (topic_id, topic, text = title, description
    and narrative)."""
    docs = _frame(session, sa.select(Document.id, Document.key, Document.title, Document.text)
                  .where(Document.campaign_id == campaign_id).order_by(Document.id),
                  ["document_id", "doc", "title", "text"])
    docs["text"] = docs["title"] + "\n" + docs["text"]
    topics = _frame(session, sa.select(Topic.id, Topic.key, Topic.title, Topic.description,
                                       Topic.narrative)
                    .where(Topic.campaign_id == campaign_id).order_by(Topic.id),
                    ["topic_id", "topic", "title", "description", "narrative"])
    topics["text"] = topics["title"] + "\n" + topics["description"] + "\n" + topics["narrative"]
    return docs, topics[["topic_id", "topic", "text"]]


def review_pairs(session: Session, *, topic_id: int) -> pd.DataFrame:
    """The topic's pairs: pair_id, document_id, queue_pos, judged, draw (the place in the
    topic's random sample, -1 outside it), by pair id."""
    rs = ReviewSample.__table__
    return _frame(session, sa.select(_P.c.id, _P.c.document_id, _P.c.queue_pos, _P.c.judged,
                                     sa.func.coalesce(rs.c.draw, -1))
                  .select_from(_P.outerjoin(rs, rs.c.pair_id == _P.c.id))
                  .where(_P.c.topic_id == topic_id).order_by(_P.c.id),
                  ["pair_id", "document_id", "queue_pos", "judged", "draw"])


def review_labels(session: Session, *, topic_id: int) -> tuple[pd.DataFrame, int]:
    """The topic's labelled pairs in labelling order, and the newest judgment id of the topic.

    Frame columns: pair_id, label (lower median of the human annotators' latest labels),
    first (id of the pair's first label row), ids (the latest label rows' ids, a tuple),
    labels (their labels, a tuple). The newest id (0: none) marks what the frame reflects.
    """
    rows = _frame(session, sa.select(_J.c.id, _J.c.pair_id, _J.c.annotator_id, _J.c.version,
                                     _J.c.status, _J.c.label)
                  .select_from(_J.join(_P, _P.c.id == _J.c.pair_id)
                               .join(_A, _A.c.id == _J.c.annotator_id))
                  .where(_P.c.topic_id == topic_id, _J.c.kind == "judgment", _A.c.human),
                  ["id", "pair_id", "annotator_id", "version", "status", "label"])
    newest = int(rows["id"].max()) if len(rows) else 0
    empty = pd.DataFrame({"pair_id": [], "label": [], "first": [], "ids": [], "labels": []})
    if rows.empty:
        return empty, newest
    first = rows[rows["status"] == "label"].groupby("pair_id")["id"].min()
    latest = rows.sort_values("version").groupby(["pair_id", "annotator_id"]).tail(1)
    latest = latest[latest["status"] == "label"].sort_values("id")
    if latest.empty:
        return empty, newest
    latest = latest.astype({"label": np.int64})
    grouped = latest.groupby("pair_id")
    frame = pd.DataFrame({
        "label": grouped["label"].agg(lambda s: int(np.sort(s.to_numpy())[(len(s) - 1) // 2])),
        "ids": grouped["id"].agg(tuple), "labels": grouped["label"].agg(tuple)})
    frame["first"] = first.reindex(frame.index).to_numpy()
    frame = frame.reset_index().sort_values("first", kind="stable").reset_index(drop=True)
    return frame[["pair_id", "label", "first", "ids", "labels"]], newest


def _lock(session: Session, topic_id: int) -> sa.Row:
    row = run(session, _LOCK_TOPIC, tid=topic_id).first()
    if row is None:
        raise InputError(f"topic {topic_id} is not under review")
    return row


def _place(session: Session, topic_id: int, pair_ids: Sequence[int], *,
           front: int | None = None) -> None:
    """Give ``pair_ids`` (pairs of the topic, in their new order) the queue positions they
    hold, sorted; only rows whose position changes are written.

    ``front`` (None: the whole order): only the first ``front`` pairs of the new order take
    the first ``front`` of those positions; the pairs they displace take the positions they
    left, in queue order (at most 2·front rows written; the rest keeps its order)."""
    held = _frame(session, sa.select(_P.c.id, _P.c.queue_pos).where(_P.c.topic_id == topic_id),
                  ["id", "pos"]).set_index("id")["pos"]
    ids = np.asarray(pair_ids, dtype=np.int64)
    ids = ids[np.isin(ids, held.index.to_numpy())]
    slots = np.sort(held.loc[ids].to_numpy())
    if front is None or front >= len(ids):
        moves = pd.Series(slots, index=ids)
    else:
        top, first = ids[:front], slots[:front]
        current = held.loc[ids]
        displaced = current[current.isin(first) & ~current.index.isin(top)].sort_values()
        freed = np.sort(current.loc[top][~current.loc[top].isin(first)].to_numpy())
        moves = pd.concat([pd.Series(first, index=top),
                           pd.Series(freed, index=displaced.index)])
    moves = moves[moves.to_numpy() != held.loc[moves.index].to_numpy()]
    if len(moves):
        session.connection().execute(
            sa.update(_P).where(_P.c.id == sa.bindparam("pid"))
            .values(queue_pos=sa.bindparam("pos")),
            [{"pid": int(p), "pos": int(q)} for p, q in moves.items()])


def write_ranking(session: Session, *, topic_id: int, pair_ids: Sequence[int], trained: int,
                  due: int, batch: int, front: int | None = None) -> bool:
    """Store a topic's new CAL ranking (``pair_ids`` best first) trained on ``trained`` labels,
    the next retrain due at ``due`` labels with BMI batch ``batch``; with ``front``, only its
    first ``front`` pairs are moved to the front (see :func:`_place`). Discarded (False) when
    the topic is not in phase ``rank`` or its stored ranking was trained on at least as many
    labels (another server wrote a newer one meanwhile)."""
    state = _lock(session, topic_id)
    if state.phase != "rank" or state.ranked_count >= trained:
        return False
    _place(session, topic_id, pair_ids, front=front)
    session.execute(sa.update(_RT).where(_RT.c.topic_id == topic_id).values(
        ranked_count=trained, due_count=due, batch=batch))
    return True


def start_sample(session: Session, *, topic_id: int, seed: int) -> int:
    """Switch a topic in phase ``rank`` to a uniform random sample of its pairs without a label
    (a permutation seeded by ``seed``, read inside this transaction): recorded in draw order,
    queued in that order. The sample's size (0: discarded, the topic had left phase ``rank``)."""
    if _lock(session, topic_id).phase != "rank":
        return 0
    pairs = session.execute(sa.select(_P.c.id).where(_P.c.topic_id == topic_id, _P.c.judged == 0)
                            .order_by(_P.c.id)).scalars().all()
    drawn = np.asarray(pairs, dtype=np.int64)[np.random.default_rng(seed).permutation(len(pairs))]
    session.add_all(ReviewSample(pair_id=int(p), topic_id=topic_id, draw=i)
                    for i, p in enumerate(drawn))
    _place(session, topic_id, drawn.tolist())
    session.execute(sa.update(_RT).where(_RT.c.topic_id == topic_id).values(phase="sample"))
    session.flush()
    return len(drawn)


def end_sample(session: Session, *, topic_id: int, newest: int, pair_ids: Sequence[int]
               ) -> bool:
    """End a topic's random sample (the target method's, once it holds its relevant
    documents): pairs of the sample without a label leave it, the topic goes to phase ``rank``
    queued as ``pair_ids``, its ranking trained on nothing yet. Discarded (False) unless the topic
    is in phase ``sample`` and its newest judgment id is still ``newest``."""
    if _lock(session, topic_id).phase != "sample" or _newest(session, topic_id) != newest:
        return False
    rs = ReviewSample.__table__
    unlabelled = sa.select(_P.c.id).where(_P.c.topic_id == topic_id, _P.c.judged == 0)
    session.execute(sa.delete(rs).where(rs.c.topic_id == topic_id, rs.c.pair_id.in_(unlabelled)))
    _place(session, topic_id, pair_ids)
    session.execute(sa.update(_RT).where(_RT.c.topic_id == topic_id).values(
        phase="rank", ranked_count=0, due_count=1, batch=1))
    return True


def _newest(session: Session, topic_id: int) -> int:
    return session.execute(
        sa.select(sa.func.coalesce(sa.func.max(_J.c.id), 0))
        .select_from(_J.join(_P, _P.c.id == _J.c.pair_id)).where(_P.c.topic_id == topic_id)
    ).scalar_one()


def _digest(ids: Sequence[int], labels: Sequence[int]) -> str:
    lines = "".join(f"{i}:{label}\n" for i, label in sorted(zip(ids, labels, strict=True)))
    return hashlib.sha256(lines.encode()).hexdigest()


def certify(session: Session, *, topic_id: int, newest: int, certificate: ReviewCertificate,
            labels: Sequence[int]) -> bool:
    """Store the topic's ``certificate`` (``labels``: those of its judgment ids, in order),
    certify the topic and close its queue (every pair's ``open_slots`` 0; a live claim may still
    be judged). Discarded (False) when the topic
    is already certified or a judgment of it was recorded after ``newest`` (the certificate was
    computed from an older state)."""
    if _lock(session, topic_id).phase == "certified" or _newest(session, topic_id) != newest:
        return False
    c = certificate
    campaign_id = session.execute(sa.select(_RT.c.campaign_id).where(
        _RT.c.topic_id == topic_id)).scalar_one()
    session.add(Certificate(
        topic_id=topic_id, campaign_id=campaign_id, rule=c.rule, guarantee=c.guarantee,
        target=c.target, alpha=c.alpha, reviewed=c.reviewed, relevant_found=c.relevant_found,
        sample_size=c.sample_size, sample_relevant=c.sample_relevant, remaining=c.remaining,
        remaining_low=c.remaining_low, remaining_high=c.remaining_high, p_value=c.p_value,
        recall_estimate=c.recall_estimate, exhausted=c.exhausted, n_docs=c.n_docs,
        judgments=json.dumps(list(c.judgments)),
        judgment_count=len(c.judgments), digest=_digest(c.judgments, labels),
        created_at=utcnow()))
    session.execute(sa.update(_RT).where(_RT.c.topic_id == topic_id).values(phase="certified"))
    session.execute(sa.update(_P).where(_P.c.topic_id == topic_id).values(open_slots=0))
    session.flush()
    return True


def certificates(session: Session, *, campaign_id: int) -> list[ReviewCertificate]:
    """The campaign's certificates by topic key, each marked ``stale`` when one of its
    judgment rows has a newer version, is gone, or its digest no longer matches."""
    rows = session.execute(
        sa.select(Certificate, Topic.key).join(Topic, Topic.id == Certificate.topic_id)
        .where(Certificate.campaign_id == campaign_id).order_by(Topic.key)).all()
    return [_read(session, row, key) for row, key in rows]


def _read(session: Session, row: Certificate, key: str) -> ReviewCertificate:
    ids = tuple(int(i) for i in json.loads(row.judgments))
    newer = _J.alias("newer")
    query = sa.select(_J.c.id, _J.c.label, sa.exists().where(
        newer.c.pair_id == _J.c.pair_id, newer.c.annotator_id == _J.c.annotator_id,
        newer.c.kind == _J.c.kind, newer.c.version > _J.c.version))
    current: list[Any] = [  # in chunks: SQLite caps a statement's parameters
        r for i in range(0, len(ids), _CHUNK)
        for r in session.execute(query.where(_J.c.id.in_(ids[i:i + _CHUNK]))).all()]
    superseded = any(r[2] for r in current)
    found = {r[0]: r[1] for r in current}
    stale = (superseded or len(found) != len(ids) or len(ids) != row.judgment_count
             or _digest(ids, [found.get(i) for i in ids]) != row.digest)
    return ReviewCertificate(
        topic=key, rule=row.rule, guarantee=row.guarantee, target=row.target, alpha=row.alpha,
        reviewed=row.reviewed, relevant_found=row.relevant_found, n_docs=row.n_docs,
        sample_size=row.sample_size, sample_relevant=row.sample_relevant,
        remaining=row.remaining, remaining_low=row.remaining_low,
        remaining_high=row.remaining_high, p_value=row.p_value,
        recall_estimate=row.recall_estimate, exhausted=row.exhausted, judgments=ids,
        stale=stale)
