"""Campaigns: create one from topics, documents and a pool (all or nothing); read, summarise;
the key map of its judging page."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TypedDict

import numpy as np
import pandas as pd
import sqlalchemy as sa
from pooljudge.annotate.keymap import KeyMap
from pooljudge.annotate.records import (
    ASSIGN_MODES,
    DEFAULT_MIN_DWELL_MS,
    MAX_MIN_DWELL_MS,
    CampaignInfo,
    LabelScale,
)
from pooljudge.annotate.store.adaptive_queue import initial_positions, select_run_ranks
from pooljudge.annotate.store.assignment import queue_positions
from pooljudge.annotate.store.common import campaign_info, campaign_row, refresh_statistics, utcnow
from pooljudge.annotate.store.models import (
    Annotator,
    Campaign,
    Document,
    Judgment,
    Pair,
    PoolEntry,
    Topic,
    UnsampledPair,
)
from pooljudge.annotate.store.samples import split_sample, unsampled_rows
from pooljudge.pooling.orders import adaptive_spec, canonical_order
from sqlmodel import Session

from pooljudge.errors import InputError, UsageError, has_control
from pooljudge.formats.collection import check_pool_members
from pooljudge.formats.passages import pooled_passages

__all__ = ["CampaignSummary", "campaign_keymap", "campaign_summary", "create_campaign",
           "get_campaign", "list_campaigns"]

_TOPIC_COLUMNS = ("id", "title", "description", "narrative")
_DOCUMENT_COLUMNS = ("id", "title", "text")
_POOL_COLUMNS = ("topic", "doc", "order", "best_rank", "runs")
_INSERT_BATCH = 5000


def create_campaign(
    session: Session, *, name: str, scale: LabelScale, overlap: int = 1, order: str = "pool",
    assign_mode: str = "pair", guidelines: str = "", show_others_labels: bool = False,
    topics: pd.DataFrame, documents: pd.DataFrame, pool: pd.DataFrame,
    run_ranks: pd.DataFrame | None = None, seed: int = 0, keymap: KeyMap | None = None,
    cannot_judge: bool = False, rationale_labels: Sequence[int] = (),
    highlight_narrative: bool = False, units: pd.DataFrame | None = None,
    min_dwell_ms: int = DEFAULT_MIN_DWELL_MS,
) -> CampaignInfo:
    """Create campaign ``name`` with the pool's pairs and the topics and documents they name.

    ``order`` is a static order of JUDGING_ORDERS or an adaptive one of ADAPTIVE_ORDERS (pooling's
    strategy grammar, seeded by ``seed``), which needs ``run_ranks`` (topic, doc, run, rank:
    each pooled pair's rank in every run that retrieved it) covering every pool row and
    assignment by pair. Run ranks of pooled pairs are stored whatever the order.

    ``keymap`` (None: the default keys) must be made for ``scale``'s labels.
    ``cannot_judge`` offers annotators "I can't judge this" (with a required reason);
    ``rationale_labels`` (labels of the scale) need a rationale when chosen;
    ``highlight_narrative`` highlights the narrative's words too; ``min_dwell_ms`` (0 to
    MAX_MIN_DWELL_MS) is how long a pair is shown before a label key acts.

    A sampled pool (columns ``stratum inclusion sampled``, see
    :func:`pooljudge.annotate.store.samples.split_sample`) queues only its sampled pairs, each
    keeping its
    stratum and inclusion probability; its other pairs are kept apart, never queued, and their
    documents need not be given. ``order``, run ranks and the checks then apply to the sampled
    pairs alone.

    With ``units`` (a unit map frame, ``chunk doc start end``, see
    :func:`pooljudge.formats.units.read_units`) the pool's ids are passages (chunks): each is
    stored as a document row whose text is its slice of its document, which is stored once
    beside them (see :func:`_insert_passages`); InputError for a pooled chunk the map lacks, a
    map without offsets, a passage beyond its document's text (see
    :func:`pooljudge.formats.passages.pooled_passages`).

    Topics and documents the pool does not name are not stored. Raises InputError (and stores
    nothing, the caller's transaction being rolled back) for an existing name, a bad setting, or
    a pool naming an unknown topic or document, or a sampled pool with a bad value.
    """
    _check_settings(session, name, overlap, assign_mode)
    if keymap is not None and keymap.labels != scale.values:
        raise InputError(f"the key map is for labels {list(keymap.labels)}, the scale has "
                         f"{list(scale.values)}")
    stray = sorted(set(rationale_labels) - set(scale.values))
    if stray:
        raise InputError(f"labels {stray} need a rationale but are not on the scale "
                         f"{list(scale.values)}")
    order = canonical_order(order)
    adaptive = adaptive_spec(order) is not None
    if adaptive and run_ranks is None:
        raise InputError(f"the adaptive order {order} needs each run's ranking of the pool "
                         "(give the runs the pool was made from)")
    if adaptive and assign_mode != "pair":
        raise InputError(f"the adaptive order {order} interleaves topics: it needs assignment "
                         "by pair")
    if seed < 0:
        raise InputError(f"the seed must not be negative, got {seed}")
    _require(topics, _TOPIC_COLUMNS, "topics")
    _require(documents, _DOCUMENT_COLUMNS, "documents")
    _require(pool, _POOL_COLUMNS, "pool")
    if pool.empty:
        raise InputError("the pool has no pairs")
    pool, unsampled = split_sample(pool)
    passages = None if units is None else pooled_passages(pool["doc"], units, documents)
    check_pool_members(pool, topics, documents if passages is None
                       else pd.DataFrame({"id": passages["chunk"]}))
    ranks = None if run_ranks is None else select_run_ranks(pool, run_ranks, complete=adaptive)
    positions = (initial_positions(pool, ranks, order=order, seed=seed) if adaptive
                 else queue_positions(pool, order))
    row = Campaign(name=name, scale=scale.to_json(), overlap=overlap, judging_order=order,
                   assign_mode=assign_mode, guidelines=guidelines,
                   show_others_labels=show_others_labels, created_at=utcnow(), order_seed=seed,
                   keymap=None if keymap is None else keymap.to_json(),
                   cannot_judge=cannot_judge, highlight_narrative=highlight_narrative,
                   min_dwell_ms=check_min_dwell(min_dwell_ms),
                   rationale_labels=(json.dumps(sorted(int(v) for v in set(rationale_labels)))
                                     if rationale_labels else None))
    session.add(row)
    session.flush()
    topic_ids = _insert_topics(session, row, topics, pool, positions)
    doc_ids = (_insert_documents(session, row.id, documents, pool) if passages is None
               else _insert_passages(session, row.id, documents, passages))
    frame = pd.DataFrame({
        "campaign_id": row.id,
        "topic_id": pool["topic"].astype(str).map(topic_ids).to_numpy(np.int64),
        "document_id": pool["doc"].astype(str).map(doc_ids).to_numpy(np.int64),
        "pool_order": pool["order"].to_numpy(np.int64), "best_rank": pool["best_rank"].to_numpy(
            np.int64), "runs": pool["runs"].fillna("").astype(str), "queue_pos": positions,
        "open_slots": overlap, "judged": 0,
    })
    if unsampled is not None:
        frame = frame.assign(stratum=pool["stratum"].to_numpy(np.int64),
                             inclusion=pool["inclusion"].to_numpy(np.float64))
    _bulk_insert(session, Pair, frame)
    tables = ["topic", "document", "pair"]
    if unsampled is not None and len(unsampled):
        _bulk_insert(session, UnsampledPair, unsampled_rows(row.id, unsampled))
        tables.append("unsampled_pair")
    if ranks is not None and len(ranks):
        _insert_pool_entries(session, row.id, ranks)
        tables.append("pool_entry")
    refresh_statistics(session, *tables)
    return campaign_info(row)


def get_campaign(session: Session, *, name: str) -> CampaignInfo:
    """The campaign called ``name``; InputError when there is none."""
    return campaign_info(campaign_row(session, name))


def campaign_keymap(session: Session, *, campaign: str) -> KeyMap:
    """The judging page's keys for ``campaign``: its own map, or the defaults for its scale."""
    row = campaign_row(session, campaign)
    labels = campaign_info(row).scale.values
    if row.keymap is None:
        return KeyMap.default(labels)
    return KeyMap.from_text(row.keymap, labels=labels, source=f"campaign {campaign}",
                            stored=True)


def list_campaigns(session: Session) -> list[CampaignInfo]:
    """Every campaign, by name."""
    rows = session.execute(sa.select(Campaign).order_by(Campaign.name)).scalars().all()
    return [campaign_info(row) for row in rows]


class CampaignSummary(TypedDict):
    """What :func:`campaign_summary` gives."""

    name: str
    topics: int
    documents: int
    pairs: int
    overlap: int
    order: str
    assign_mode: str
    annotators: int
    complete_pairs: int
    judgments_needed: int
    judgments_done: int
    judgment_rows: int


def campaign_summary(session: Session, *, campaign: str) -> CampaignSummary:
    """Counts for ``campaigns list|show``: topics, documents, pairs, complete pairs (judged by K
    participants), judgments needed (pairs × K) and done (capped at K per pair), annotators,
    judgment rows (every kind and version)."""
    row = campaign_row(session, campaign)
    pairs = session.execute(
        sa.select(sa.func.count(), sa.func.count(sa.distinct(Pair.topic_id)),
                  sa.func.coalesce(sa.func.sum(sa.case((Pair.judged >= row.overlap, 1),
                                                       else_=0)), 0),
                  sa.func.coalesce(sa.func.sum(sa.case((Pair.judged >= row.overlap, row.overlap),
                                                       else_=Pair.judged)), 0))
        .where(Pair.campaign_id == row.id)
    ).one()
    documents = _count(session, sa.select(sa.func.count(sa.distinct(Pair.document_id)))
                       .where(Pair.campaign_id == row.id))  # judged units, not passages' parents
    annotators = _count(session, sa.select(sa.func.count()).where(
        Annotator.campaign_id == row.id, Annotator.active))
    rows = _count(session, sa.select(sa.func.count()).select_from(Judgment)
                  .join(Pair, Pair.id == Judgment.pair_id).where(Pair.campaign_id == row.id))
    return {
        "name": row.name, "topics": int(pairs[1]), "documents": documents, "pairs": int(pairs[0]),
        "overlap": row.overlap, "order": row.judging_order, "assign_mode": row.assign_mode,
        "annotators": annotators, "complete_pairs": int(pairs[2]),
        "judgments_needed": int(pairs[0]) * row.overlap, "judgments_done": int(pairs[3]),
        "judgment_rows": rows,
    }


def _count(session: Session, query) -> int:
    return int(session.execute(query).scalar_one())


def _check_settings(session: Session, name: str, overlap: int, assign_mode: str) -> None:
    if not name or name != name.strip() or has_control(name):
        raise InputError(f"a campaign name must be non-blank, without tabs, newlines, other "
                         f"control characters or surrounding spaces: {name!r}")
    if overlap < 1:
        raise InputError(f"overlap must be at least 1, got {overlap}")
    if assign_mode not in ASSIGN_MODES:
        raise InputError(f"unknown assignment mode {assign_mode!r}; choose pair or topic")
    exists = session.execute(sa.select(Campaign.id).where(Campaign.name == name)).first()
    if exists is not None:
        raise InputError(f"a campaign named {name!r} already exists")


def _require(frame: pd.DataFrame, columns: tuple[str, ...], what: str) -> None:
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise InputError(f"{what} lack column(s) {', '.join(missing)}")


def _insert_topics(session: Session, campaign: Campaign, topics: pd.DataFrame,
                   pool: pd.DataFrame, positions: np.ndarray) -> dict[str, int]:
    first = pd.Series(positions).groupby(pool["topic"].astype(str).to_numpy()).min()
    wanted = topics.assign(id=topics["id"].astype(str)).drop_duplicates("id")
    wanted = wanted[wanted["id"].isin(first.index)]
    frame = pd.DataFrame({
        "campaign_id": campaign.id, "key": wanted["id"],
        **{c: wanted[c].fillna("").astype(str) for c in ("title", "description", "narrative")},
        "queue_pos": wanted["id"].map(first).to_numpy(np.int64), "open_slots": campaign.overlap,
    })
    _bulk_insert(session, Topic, frame)
    return _keys(session, Topic, campaign.id)


def _insert_documents(session: Session, campaign_id: int, documents: pd.DataFrame,
                      pool: pd.DataFrame) -> dict[str, int]:
    wanted = documents.assign(id=documents["id"].astype(str)).drop_duplicates("id")
    wanted = wanted[wanted["id"].isin(set(pool["doc"].astype(str)))]
    frame = pd.DataFrame({"campaign_id": campaign_id, "key": wanted["id"],
                          "title": wanted["title"].fillna("").astype(str),
                          "text": wanted["text"].fillna("").astype(str)})
    _bulk_insert(session, Document, frame)
    return _keys(session, Document, campaign_id)


def _insert_passages(session: Session, campaign_id: int, documents: pd.DataFrame,
                     passages: pd.DataFrame) -> dict[str, int]:
    """Store the passages' documents once, then each passage (``passages``: chunk, doc, start,
    end, checked) as a document row keyed by its chunk id, with its own text (the slice, so
    whoever reads a pair's text, such as an automatic judge, reads the passage judged), its
    document's title, its parent row and its offsets.

    Why not the whole document per passage: a document with many pooled passages would be
    stored once per passage (a web page of 50 kB with 20 passages pooled: 1 MB instead of
    ~100 kB); here a document costs its text once plus its passages' own characters.
    """
    wanted = documents.assign(id=documents["id"].astype(str)).drop_duplicates("id")
    wanted = wanted[wanted["id"].isin(set(passages["doc"]))]
    texts = wanted.set_index("id")["text"].fillna("").astype(str)
    titles = wanted.set_index("id")["title"].fillna("").astype(str)
    _bulk_insert(session, Document, pd.DataFrame({
        "campaign_id": campaign_id, "key": wanted["id"], "title": titles.to_numpy(),
        "text": texts.to_numpy()}))
    parents = _keys(session, Document, campaign_id)
    starts, ends = passages["start"].to_numpy(np.int64), passages["end"].to_numpy(np.int64)
    _bulk_insert(session, Document, pd.DataFrame({
        "campaign_id": campaign_id, "key": passages["chunk"].to_numpy(),
        "title": passages["doc"].map(titles).to_numpy(),
        "text": [text[s:e] for text, s, e in zip(passages["doc"].map(texts), starts, ends,
                                                 strict=True)],
        "parent": passages["doc"].map(parents).to_numpy(np.int64),
        "passage_start": starts, "passage_end": ends}))
    return _keys(session, Document, campaign_id)


def _insert_pool_entries(session: Session, campaign_id: int, ranks: pd.DataFrame) -> None:
    """Store each run's rank of the campaign's pairs (``ranks``: topic, doc, run, rank)."""
    ids = pd.DataFrame(session.execute(
        sa.select(Pair.id, Topic.key, Document.key)
        .join(Topic, Topic.id == Pair.topic_id).join(Document, Document.id == Pair.document_id)
        .where(Pair.campaign_id == campaign_id)).all(), columns=["pair_id", "topic", "doc"])
    frame = ranks.merge(ids, on=["topic", "doc"])[["pair_id", "run", "rank"]]
    _bulk_insert(session, PoolEntry, frame.astype({"rank": np.int64}))


def _keys(session: Session, table, campaign_id: int) -> dict[str, int]:
    rows = session.execute(sa.select(table.key, table.id).where(table.campaign_id == campaign_id))
    return dict(rows.all())


def _bulk_insert(session: Session, table, frame: pd.DataFrame) -> None:
    """Insert the frame's rows (executemany in batches; numpy scalars become Python values)."""
    records = frame.astype(object).to_dict("records")
    for start in range(0, len(records), _INSERT_BATCH):
        session.execute(sa.insert(table), records[start:start + _INSERT_BATCH])


def check_min_dwell(ms: int) -> int:
    """``ms`` if it is a whole number of milliseconds from 0 to MAX_MIN_DWELL_MS; UsageError
    otherwise."""
    if isinstance(ms, bool) or not isinstance(ms, int) or not 0 <= ms <= MAX_MIN_DWELL_MS:
        raise UsageError(f"min_dwell_ms: {ms!r} is not a whole number of milliseconds from 0 "
                         f"to {MAX_MIN_DWELL_MS}")
    return ms
