"""The one way a campaign is made: files → pool → checked campaign, for the CLI, app and demo.

Each caller reads its own files (``pooljudge init`` paths with :mod:`pooljudge.formats`, the
app's uploads with :mod:`pooljudge.annotate.ui.uploads`, the demo generates frames) and describes
the
campaign with :class:`CampaignSettings`. :func:`plan_campaign` then does everything that needs no
database: it pools the runs (or takes a pool file's rows), checks that every pooled topic and
document was given, and computes each run's rank of the pooled pairs; so bad files are refused
before a database is even created. :func:`store_campaign` stores a plan through
:mod:`pooljudge.annotate.store` in one transaction, all or nothing: the campaign, the automatic
judge whose
labels are suggested, the people. :func:`create_campaign` is both steps.

A campaign of passages (``units``, a unit map with offsets): the pool's ids are chunks, each
judged inside its document; the plan checks every queued chunk against the map and the
documents' texts before a database is opened (:mod:`pooljudge.formats.passages`), and the store
keeps each document once beside its passages (:func:`pooljudge.annotate.store.create_campaign`).

A sampled pool file (``stratum inclusion sampled`` after the usual columns, see
:func:`pooljudge.annotate.store.split_sample`) makes a campaign whose queue is the sampled pairs
alone;
every pooled pair keeps its stratum and inclusion probability, and :func:`sampled_export` turns
its consensus qrels into the qrels and prels the estimators read.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np
import pandas as pd
from pooljudge.annotate import store
from pooljudge.annotate.keymap import KeyMap
from pooljudge.annotate.records import DEFAULT_MIN_DWELL_MS, CampaignInfo, LabelScale
from pooljudge.pooling.pool import Pool, apply_budget, build_pool
from pooljudge.pooling.static_orders import static_order
from sqlalchemy import Engine
from sqlalchemy.orm import Session

from pooljudge.errors import InputError
from pooljudge.formats.collection import check_pool_members, pool_line_numbers
from pooljudge.formats.files import PathLike
from pooljudge.formats.passages import pooled_passages

__all__ = ["POOL_COLUMNS", "CampaignPlan", "CampaignSettings", "CreatedCampaign", "NewPerson",
           "SampledExport", "create_campaign", "ordered_pool", "plan_campaign",
           "sampled_export", "store_campaign"]

POOL_COLUMNS = ["topic", "doc", "order", "best_rank", "runs"]  # a pool file's columns
Runs = Mapping[str, Any] | Iterable[tuple[str, Any]]  # as build_pool takes them


@dataclass(frozen=True)
class CampaignSettings:
    """Everything a campaign is made with besides its files.

    ``order`` is a static or adaptive judging order (an adaptive one needs runs and assignment
    by ``pair``), seeded by ``seed``; ``keymap`` (None: the default keys) must be made for
    ``scale`` and ``rationale_labels`` must be labels of it, else the store raises InputError.
    ``suggest_from`` names the automatic judge whose labels people see as suggestions (None:
    none); ``people`` are (name, role) pairs added with the campaign.
    """

    name: str
    scale: LabelScale
    overlap: int = 1
    order: str = "pool"
    assign_mode: str = "pair"
    guidelines: str = ""
    show_others_labels: bool = False
    cannot_judge: bool = False
    rationale_labels: tuple[int, ...] = ()
    highlight_narrative: bool = False
    min_dwell_ms: int = DEFAULT_MIN_DWELL_MS
    keymap: KeyMap | None = None
    seed: int = 0
    suggest_from: str | None = None
    people: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class CampaignPlan:
    """A campaign checked and ready to store: the ordered ``pool`` (:data:`POOL_COLUMNS`),
    ``run_ranks`` (topic, doc, run, rank; None without runs) and, for a campaign of passages,
    the unit map ``units`` (chunk, doc, start, end; None: the pool's ids are documents)."""

    settings: CampaignSettings
    topics: pd.DataFrame
    documents: pd.DataFrame
    pool: pd.DataFrame
    run_ranks: pd.DataFrame | None = None
    units: pd.DataFrame | None = None


class NewPerson(NamedTuple):
    """A person added with the campaign and their login token (stored only as a hash)."""

    role: str
    name: str
    token: str


@dataclass(frozen=True)
class CreatedCampaign:
    """The stored campaign and its new people, in the order the settings list them."""

    info: CampaignInfo
    people: tuple[NewPerson, ...]


def ordered_pool(pool: Pool, strategy: str, budget: int | None = None) -> pd.DataFrame:
    """The pool's pairs in the judging order of static ``strategy`` (1 = first within a topic),
    cut to ``budget`` pairs per topic (None: all); columns :data:`POOL_COLUMNS`."""
    ordered = apply_budget(pool, static_order(pool, strategy), budget=budget)
    return ordered[POOL_COLUMNS]


def plan_campaign(settings: CampaignSettings, *, topics: pd.DataFrame, documents: pd.DataFrame,
                  pool: pd.DataFrame | None = None, pool_path: PathLike | None = None,
                  runs: Runs | None = None, depth: int | None = None, strategy: str = "rrf",
                  budget: int | None = None, units: pd.DataFrame | None = None,
                  units_path: PathLike | None = None) -> CampaignPlan:
    """Pool, check and rank, without a database.

    With ``pool`` (a pool file's rows, read from ``pool_path`` if given), ``runs`` only give
    each pooled pair's rank within every run's top ``depth`` (default: the pool's deepest
    ``best_rank``). Without it the ``runs`` are pooled to ``depth`` and ordered by
    :func:`ordered_pool`; their ranks then cover the whole depth-``depth`` pool, budget or not.
    ``runs`` may be a lazy iterable: it is consumed after the pool file's check. Of a sampled
    pool only the sampled pairs' topics and documents must be given (their values are checked
    first, InputError naming the pool file's line).

    With ``units`` (a unit map frame read from ``units_path``) the pool's ids are passages
    shown inside their documents: each queued chunk must be in the map, with offsets within its
    document's text (:func:`pooljudge.formats.passages.pooled_passages`; InputError naming the
    pool file's or the map's line).

    InputError for a pooled topic or document the frames lack, naming the pool file's line,
    the runs that retrieved it, or else its pool row; InputError from pooling (depth < 1).
    """
    if pool is None:
        if runs is None or depth is None:
            raise InputError("a campaign needs a pool, or runs and a pool depth")
        pooled = build_pool(runs, depth)
        members = _members(pooled.pairs, documents, units, units_path, None)
        check_pool_members(pooled.pairs, topics, members, from_runs=True)
        return CampaignPlan(settings, topics, documents, ordered_pool(pooled, strategy, budget),
                            store.run_ranks(pooled), units)
    if pool_path is not None:  # else the store checks it, naming the pool row
        members = _members(pool, documents, units, units_path, pool_path)
        check_pool_members(_queued_members(pool, topics, members, pool_path), topics,
                           members, pool_path)
    ranks = None
    if runs is not None:
        depth = depth or max(1, int(pool["best_rank"].max()))
        ranks = store.run_ranks(build_pool(runs, depth))
    return CampaignPlan(settings, topics, documents, pool, ranks, units)


def _members(pool: pd.DataFrame, documents: pd.DataFrame, units: pd.DataFrame | None,
             units_path: PathLike | None, pool_path: PathLike | None) -> pd.DataFrame:
    """What the pool's ``doc`` ids must be among: the documents, or (with ``units``) the queued
    chunks once :func:`pooled_passages` found each in the map with sound offsets."""
    if units is None:
        return documents
    queued = np.ones(len(pool), dtype=bool)
    if "sampled" in pool.columns:  # unsampled pairs are never shown: their chunks need no map
        queued = pd.to_numeric(pool["sampled"], errors="coerce").to_numpy() == 1
    lines = None if pool_path is None else pool_line_numbers(pool_path)[queued]
    passages = pooled_passages(pool["doc"][queued], units, documents, units_path=units_path,
                               pool_path=pool_path, pool_lines=lines)
    return pd.DataFrame({"id": passages["chunk"]})


def _queued_members(pool: pd.DataFrame, topics: pd.DataFrame, documents: pd.DataFrame,
                    path: PathLike) -> pd.DataFrame:
    """The pool with its unsampled rows naming a given topic and document (rows, and so the
    file's line numbers, stay where they are): those pairs are never shown, their documents
    need not be given. An ordinary pool as it is."""
    split = store.split_sample(pool, path)
    if not split.sampled or topics.empty or documents.empty:
        return pool
    unsampled = pd.to_numeric(pool["sampled"], errors="coerce").to_numpy() != 1
    members = pool[["topic", "doc"]].copy()
    members.loc[unsampled, "topic"] = str(topics["id"].iat[0])
    members.loc[unsampled, "doc"] = str(documents["id"].iat[0])
    return members


def store_campaign(target: Engine | Session, plan: CampaignPlan) -> CreatedCampaign:
    """Store ``plan`` in one transaction: in the caller's session, or in a new one on the
    engine. InputError (and nothing stored) for a bad setting, an existing campaign name, a
    person the store refuses, or a suggesting judge that is one of the people."""
    if isinstance(target, Session):
        return _store(target, plan)
    with store.session_scope(target) as session:
        return _store(session, plan)


def create_campaign(target: Engine | Session, settings: CampaignSettings, *,
                    topics: pd.DataFrame, documents: pd.DataFrame, **inputs: Any
                    ) -> CreatedCampaign:
    """:func:`store_campaign` of :func:`plan_campaign` (``inputs``: its pool and runs)."""
    plan = plan_campaign(settings, topics=topics, documents=documents, **inputs)
    return store_campaign(target, plan)


def _store(session: Session, plan: CampaignPlan) -> CreatedCampaign:
    settings = plan.settings
    info = store.create_campaign(
        session, name=settings.name, scale=settings.scale, overlap=settings.overlap,
        order=settings.order, assign_mode=settings.assign_mode, guidelines=settings.guidelines,
        show_others_labels=settings.show_others_labels,
        highlight_narrative=settings.highlight_narrative, topics=plan.topics,
        documents=plan.documents, pool=plan.pool, run_ranks=plan.run_ranks, seed=settings.seed,
        keymap=settings.keymap, cannot_judge=settings.cannot_judge,
        rationale_labels=settings.rationale_labels, units=plan.units,
        min_dwell_ms=settings.min_dwell_ms)
    people = tuple(NewPerson(role, name, store.add_annotator(
        session, campaign=settings.name, name=name, role=role)) for name, role in settings.people)
    if settings.suggest_from is not None:  # after the people: it must not be one of them
        store.set_suggest_from(session, campaign=settings.name, name=settings.suggest_from)
    return CreatedCampaign(info, people)


class SampledExport(NamedTuple):
    """A sampled campaign's export: ``qrels`` (topic, doc, label) and ``prels`` (topic, doc,
    label, stratum, inclusion; label nullable Int64)."""

    qrels: pd.DataFrame
    prels: pd.DataFrame


def sampled_export(qrels: pd.DataFrame, sample: pd.DataFrame) -> SampledExport:
    """The export of a campaign made from a sampled pool, from its consensus ``qrels`` (topic,
    doc, label of the pairs a label was decided for) and
    :func:`pooljudge.annotate.store.pool_sample`.

    - qrels: the consensus labels, plus every pooled-but-unsampled pair with label -1
      (trec_eval's infAP convention: pooled, not judged); a sampled pair nobody labelled (or
      whose label the policy left undecided) is not in them.
    - prels: every pooled pair once, with its stratum and inclusion probability, and its
      consensus label, NA (written empty) when it was not sampled or has no label.
    """
    labels = qrels[["topic", "doc", "label"]].astype({"topic": str, "doc": str})
    prels = sample.merge(labels, on=["topic", "doc"], how="left")
    prels["label"] = prels["label"].astype("Int64")
    unsampled = sample.loc[~sample["sampled"].to_numpy(bool), ["topic", "doc"]]
    minus = unsampled.assign(label=np.int64(-1))
    out = labels.astype({"label": np.int64})
    if len(minus):
        out = pd.concat([out, minus], ignore_index=True)
    return SampledExport(out, prels[["topic", "doc", "label", "stratum", "inclusion"]])
