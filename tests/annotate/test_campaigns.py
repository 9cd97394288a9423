"""The campaign service (:mod:`pooljudge.annotate.campaigns`): one way from files to a stored
campaign.

Two topics, six documents and two runs; the pool file is the runs' depth-3 pool (7 pairs) in
RRF order, as ``pooljudge pool`` would write it. The CLI's ``init`` and the service, given the same
files and settings, must store the same campaign; the member check refuses unknown topics and
documents before any database is touched; people, the campaign and its settings are stored all
or nothing.
"""

from __future__ import annotations

import json
import uuid
from dataclasses import replace
from pathlib import Path

import pandas as pd
import pytest
import sqlalchemy as sa
from pooljudge.annotate import store
from pooljudge.annotate.campaigns import (
    POOL_COLUMNS,
    CampaignSettings,
    create_campaign,
    ordered_pool,
    plan_campaign,
    store_campaign,
)
from pooljudge.annotate.records import LabelScale
from pooljudge.annotate.store.models import Campaign, Document, Pair, PoolEntry, Topic
from pooljudge.pooling.pool import build_pool

from pooljudge.cli import main
from pooljudge.errors import InputError
from pooljudge.formats.collection import check_pool_members, read_documents, read_topics
from pooljudge.formats.trec import read_pool, read_run, write_pool

TOPICS = "id\ttitle\tdescription\tnarrative\n1\twidgets\tabout widgets\tn\n2\tgadgets\tg\tn\n"
DOCS = "".join(json.dumps({"id": f"d{i}", "title": f"T{i}", "text": f"text {i}"}) + "\n"
               for i in range(1, 7))
RUNS = {"runA": "1 Q0 d1 1 9 A\n1 Q0 d2 2 8 A\n1 Q0 d3 3 7 A\n2 Q0 d4 1 9 A\n2 Q0 d5 2 8 A\n",
        "runB": "1 Q0 d3 1 9 B\n1 Q0 d4 2 8 B\n1 Q0 d1 3 7 B\n2 Q0 d6 1 9 B\n2 Q0 d4 2 8 B\n"}
SETTINGS = CampaignSettings(name="c", scale=LabelScale.range(0, 2), overlap=2, order="maxmean",
                            seed=3, guidelines="Judge the topic.\n", show_others_labels=True,
                            cannot_judge=True, rationale_labels=(2,), highlight_narrative=True,
                            suggest_from="llm")


@pytest.fixture
def files(tmp_path: Path) -> Path:
    """topics.tsv, docs.jsonl, runA, runB, guidelines.md and the runs' depth-3 pool.tsv."""
    for name, text in (("topics.tsv", TOPICS), ("docs.jsonl", DOCS),
                       ("guidelines.md", SETTINGS.guidelines), *RUNS.items()):
        (tmp_path / name).write_text(text, encoding="utf-8")
    write_pool(ordered_pool(build_pool(_runs(tmp_path), 3), "rrf"), tmp_path / "pool.tsv")
    return tmp_path


def _runs(folder: Path) -> dict[str, pd.DataFrame]:
    return {name: read_run(folder / name) for name in RUNS}


def _inputs(folder: Path) -> dict:
    """The files as the CLI reads them, for :func:`plan_campaign`."""
    return {"topics": read_topics(folder / "topics.tsv"),
            "documents": read_documents([folder / "docs.jsonl"]),
            "pool": read_pool(folder / "pool.tsv"), "pool_path": folder / "pool.tsv"}


def _stored(engine, name: str) -> dict[str, object]:
    """Everything stored for campaign ``name`` but ids and times."""
    pairs = (sa.select(Topic.key, Document.key, Pair.pool_order, Pair.best_rank, Pair.runs,
                       Pair.queue_pos, Pair.open_slots)
             .join(Topic, Topic.id == Pair.topic_id).join(Document, Document.id == Pair.document_id)
             .join(Campaign, Campaign.id == Pair.campaign_id).where(Campaign.name == name)
             .order_by(Topic.key, Document.key))
    ranks = (sa.select(Topic.key, Document.key, PoolEntry.run, PoolEntry.rank)
             .join(Pair, Pair.id == PoolEntry.pair_id).join(Topic, Topic.id == Pair.topic_id)
             .join(Document, Document.id == Pair.document_id)
             .join(Campaign, Campaign.id == Pair.campaign_id).where(Campaign.name == name)
             .order_by(Topic.key, Document.key, PoolEntry.run))
    with store.session_scope(engine, readonly=True) as session:
        info = store.get_campaign(session, name=name)
        return {"settings": {k: v for k, v in vars(info).items() if k not in ("id", "name")},
                "keymap": store.campaign_keymap(session, campaign=name),
                "suggest_from": store.suggest_from(session, campaign=name),
                "pairs": [tuple(row) for row in session.execute(pairs).all()],
                "ranks": [tuple(row) for row in session.execute(ranks).all()],
                "people": store.list_annotators(session, campaign=name)[["name", "role"]]
                .values.tolist()}


def _names(engine) -> list[str]:
    with store.session_scope(engine, readonly=True) as session:
        return [c.name for c in store.list_campaigns(session)]


def _unique(prefix: str) -> str:
    """A campaign name of its own (the PostgreSQL database is shared by the session's tests)."""
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


# --- one campaign, whoever makes it --------------------------------------------------------------

def test_the_cli_and_the_service_store_the_same_campaign(files, engine, db_url, capsys) -> None:
    by_cli, by_service = _unique("cli"), _unique("service")
    argv = ["init", by_cli, "--topics", str(files / "topics.tsv"), "--docs",
            str(files / "docs.jsonl"), "--pool", str(files / "pool.tsv"), "--runs",
            *(str(files / name) for name in RUNS), "--order", "maxmean", "--seed", "3",
            "--scale", "0-2", "--overlap", "2", "--guidelines", str(files / "guidelines.md"),
            "--show-others-labels", "--cannot-judge", "--rationale", "2",
            "--highlight-narrative", "--suggest-from", "llm", "--db", db_url]
    assert main(argv) == 0
    assert "2 topics, 6 documents, 7 pairs, overlap 2" in capsys.readouterr().out
    created = create_campaign(engine, replace(SETTINGS, name=by_service), runs=_runs(files),
                              **_inputs(files))
    assert created.people == () and created.info.name == by_service
    stored = _stored(engine, by_cli)
    assert _stored(engine, by_service) == stored
    # ranks within the pool's deepest best_rank (2), the CLI's default --depth
    assert len(stored["ranks"]) == 8 and stored["suggest_from"] == "llm"


def test_runs_without_a_pool_are_pooled_ordered_cut_and_ranked(files, engine) -> None:
    settings = CampaignSettings(name=_unique("u"), scale=LabelScale.binary(), order="topic")
    plan = plan_campaign(settings, topics=read_topics(files / "topics.tsv"),
                         documents=read_documents(files / "docs.jsonl"), runs=_runs(files),
                         depth=2, strategy="borda", budget=2)
    pool = build_pool(_runs(files), 2)
    pd.testing.assert_frame_equal(plan.pool, ordered_pool(pool, "borda", 2))
    assert list(plan.pool.columns) == POOL_COLUMNS and len(plan.pool) == 4
    assert len(plan.run_ranks) == len(pool.entries) == 8  # the whole depth-2 pool, not the cut
    store_campaign(engine, plan)
    stored = _stored(engine, settings.name)
    assert [(t, d, o) for t, d, o, *_ in stored["pairs"]] == sorted(
        zip(plan.pool["topic"], plan.pool["doc"], plan.pool["order"], strict=True))
    assert {(t, d) for t, d, *_ in stored["ranks"]} == {(t, d) for t, d, *_ in stored["pairs"]}


def test_a_plan_stored_in_the_callers_session_rolls_back_with_it(files, engine) -> None:
    name = _unique("s")
    plan = plan_campaign(CampaignSettings(name=name, scale=LabelScale.binary()),
                         **_inputs(files))
    with pytest.raises(RuntimeError), store.session_scope(engine) as session:
        assert store_campaign(session, plan).info.name == name
        raise RuntimeError("the caller fails later")
    assert name not in _names(engine)
    store_campaign(engine, plan)
    assert name in _names(engine)


def test_a_plan_needs_a_pool_or_runs_and_a_depth(files) -> None:
    inputs = {k: v for k, v in _inputs(files).items() if k in ("topics", "documents")}
    for extra in ({}, {"runs": _runs(files)}):
        with pytest.raises(InputError, match="needs a pool, or runs and a pool depth"):
            plan_campaign(SETTINGS, **inputs, **extra)


# --- the member check ----------------------------------------------------------------------------

def _unknown_pool_file(folder: Path) -> dict:
    text = (folder / "pool.tsv").read_text(encoding="utf-8").rstrip("\n")
    text += "\n\n2\td9\t9\t9\trunB\n"  # after a blank line
    (folder / "pool.tsv").write_text(text, encoding="utf-8")
    return _inputs(folder)


def _unknown_in_runs(folder: Path) -> dict:
    (folder / "runC").write_text("3 Q0 d1 1 9 C\n", encoding="utf-8")
    runs = {**_runs(folder), "runC": read_run(folder / "runC")}
    return {**_inputs(folder), "pool": None, "pool_path": None, "runs": runs, "depth": 3}


def _unknown_in_frame(folder: Path) -> dict:
    inputs = _inputs(folder)
    pool = inputs["pool"].copy()
    pool.loc[1, "topic"] = "7"
    return {**inputs, "pool": pool, "pool_path": None}


@pytest.mark.parametrize(("make", "message", "line"), [
    (_unknown_pool_file, "unknown document d9", 10),  # header, 7 pairs, a blank line
    (_unknown_in_runs, "run(s) runC retrieve topic 3, document d1, but the topics have no 3",
     None),
    (_unknown_in_frame, "pool row 2 names an unknown topic: 7", None),
], ids=["pool-file-line", "runs", "pool-row"])
def test_an_unknown_member_is_refused_before_any_database(files, make, message, line) -> None:
    inputs = make(files)
    if inputs["pool_path"] is None and inputs["pool"] is not None:  # the store's own check
        with pytest.raises(InputError) as caught:
            check_pool_members(inputs["pool"], inputs["topics"], inputs["documents"])
    else:
        with pytest.raises(InputError) as caught:
            plan_campaign(SETTINGS, **inputs)
    assert caught.value.message == message and caught.value.line == line


def test_the_store_refuses_an_unknown_member_with_the_same_check(files, engine) -> None:
    name = _unique("x")
    with pytest.raises(InputError) as caught:
        create_campaign(engine, CampaignSettings(name=name, scale=LabelScale.binary()),
                        **_unknown_in_frame(files))
    assert str(caught.value) == "pool row 2 names an unknown topic: 7"
    assert name not in _names(engine)


def test_the_topic_is_named_first_and_ids_compare_as_text() -> None:
    pool = pd.DataFrame({"topic": [1, 2], "doc": ["x", "y"], "runs": "r"})
    topics = pd.DataFrame({"id": ["1"]})
    documents = pd.DataFrame({"id": ["x"]})
    with pytest.raises(InputError) as caught:
        check_pool_members(pool, topics, documents)
    assert str(caught.value) == "pool row 2 names an unknown topic: 2"  # not its document y
    check_pool_members(pool.iloc[:1], topics, documents)


# --- all or nothing ------------------------------------------------------------------------------

@pytest.mark.parametrize(("people", "suggest_from", "message"), [
    ((("ann", "annotator"), ("bad\tname", "annotator")), None,
     "an annotator name must be non-blank"),
    ((("ann", "annotator"), ("ann", "admin")), None, "ann"),
    ((("llm", "annotator"),), "llm", "'llm' is a person in campaign '.*', not an automatic"),
], ids=["bad-name", "twice", "judge-is-a-person"])
def test_a_refused_person_stores_nothing(files, engine, people, suggest_from, message) -> None:
    settings = CampaignSettings(name=_unique("p"), scale=LabelScale.binary(), people=people,
                                suggest_from=suggest_from)
    with pytest.raises(InputError, match=message):
        create_campaign(engine, settings, **_inputs(files))
    assert settings.name not in _names(engine)


def test_people_get_tokens_that_log_them_in(files, engine) -> None:
    people = (("ann", "annotator"), ("boss", "admin"))
    name = _unique("p")
    created = create_campaign(engine, CampaignSettings(name=name, scale=LabelScale.binary(),
                                                       people=people), **_inputs(files))
    assert [(p.role, p.name) for p in created.people] == [("annotator", "ann"),
                                                           ("admin", "boss")]
    with store.session_scope(engine, readonly=True) as session:
        logins = [store.authenticate(session, token=p.token) for p in created.people]
    assert [(i.name, i.role, i.campaign_name) for i in logins] == [("ann", "annotator", name),
                                                                   ("boss", "admin", name)]
