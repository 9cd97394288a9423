"""Campaigns of passages (``units=``): each passage a document row with its parent and offsets,
the parent stored once; the view carries the passage's context; revision 0009 and its CHECK."""

from __future__ import annotations

import pandas as pd
import pytest
import sqlalchemy as sa
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from pooljudge.annotate.records import LabelScale, PassageContext
from pooljudge.annotate.store import (
    add_annotator,
    annotator_id,
    campaign_summary,
    create_campaign,
    judgments_frame,
    migrate,
    next_pair,
    open_engine,
    pair_by_key,
    pair_views,
    record_judgment,
    session_scope,
)
from sqlmodel import SQLModel

from pooljudge.errors import InputError

TEXT = "Intro about cats. The <b>widget</b> [x](http://evil) passage here. Outro."
START = TEXT.index("The")
END = TEXT.index(" Outro")


@pytest.fixture
def engine(fresh_db_url):
    """A database of its own (SQLite, or a new PostgreSQL database): the tests count rows."""
    engine = open_engine(fresh_db_url)
    yield engine
    engine.dispose()


def _collection() -> dict[str, pd.DataFrame]:
    """Document D (three chunks, two pooled) and E (one chunk); topics t1, t2."""
    documents = pd.DataFrame({"id": ["D", "E", "F"], "title": ["Doc D", "Doc E", "Doc F"],
                              "text": [TEXT, "short", "never pooled"]})
    topics = pd.DataFrame({"id": ["t1", "t2"], "title": ["widget", "cats"],
                           "description": "", "narrative": ""})
    pool = pd.DataFrame({"topic": ["t1", "t1", "t2"], "doc": ["D#1", "E#0", "D#0"],
                         "order": [1, 2, 3], "best_rank": [1, 2, 3], "runs": "r"})
    units = pd.DataFrame({"chunk": ["D#0", "D#1", "D#2", "E#0", "F#0"],
                          "doc": ["D", "D", "D", "E", "F"],
                          "start": [0, START, END, 0, 0], "end": [START, END, len(TEXT), 5, 5]})
    return {"topics": topics, "documents": documents, "pool": pool, "units": units}


def _create(session, name: str = "p", **changes) -> None:
    create_campaign(session, name=name, scale=LabelScale.binary(), order="pool",
                    **{**_collection(), **changes})


def test_a_passage_campaign_round_trips_with_its_context(engine):
    with session_scope(engine) as session:
        _create(session)
        add_annotator(session, campaign="p", name="ann")
    with session_scope(engine) as session:
        view = next_pair(session, annotator_id=annotator_id(session, campaign="p", name="ann"))
    assert (view.doc_id, view.doc_title, view.doc_text) == ("D#1", "Doc D", TEXT[START:END])
    assert view.passage == PassageContext("D", "Doc D", TEXT, START, END)
    with session_scope(engine, readonly=True) as session:
        other = pair_by_key(session, campaign="p", topic="t2", doc="D#0")
        views = pair_views(session, pair_ids=[view.pair_id, other.pair_id])
        summary = campaign_summary(session, campaign="p")
    assert other.passage == PassageContext("D", "Doc D", TEXT, 0, START)
    assert views[0] == view.__class__(**{**view.__dict__, "position": None})
    assert summary["documents"] == 3 and summary["pairs"] == 3
    with engine.connect() as connection:
        rows = connection.execute(sa.text(
            "SELECT d.key, p.key, d.passage_start, d.passage_end, length(d.text) "
            "FROM document d LEFT JOIN document p ON p.id = d.parent ORDER BY d.key")).all()
    # each parent once (F, never pooled, not at all), each passage with its slice's length
    assert [tuple(r) for r in rows] == [
        ("D", None, None, None, len(TEXT)), ("D#0", "D", 0, START, START),
        ("D#1", "D", START, END, END - START), ("E", None, None, None, 5),
        ("E#0", "E", 0, 5, 5)]


def test_judgments_and_their_frames_name_the_chunks(engine):
    with session_scope(engine) as session:
        _create(session)
        add_annotator(session, campaign="p", name="ann")
        ann = annotator_id(session, campaign="p", name="ann")
        view = next_pair(session, annotator_id=ann)
        record_judgment(session, annotator_id=ann, pair_id=view.pair_id, label=1)
        frame = judgments_frame(session, campaign="p")
    assert frame[["topic", "doc", "label"]].values.tolist() == [["t1", "D#1", 1]]


def test_an_ordinary_campaign_has_no_passage(engine):
    collection = _collection()
    pool = collection["pool"].assign(doc=["D", "E", "D"])
    with session_scope(engine) as session:
        create_campaign(session, name="plain", scale=LabelScale.binary(),
                        topics=collection["topics"], documents=collection["documents"],
                        pool=pool)
        view = pair_by_key(session, campaign="plain", topic="t1", doc="D")
    assert view.passage is None and view.doc_text == TEXT


@pytest.mark.parametrize(("change", "message"), [
    ({"pool_doc": "D#9"}, "pool row 1 names chunk D#9, which is not in the unit map"),
    ({"end": 999}, f"unit map row 2: chunk D#1 ends at 999, beyond the {len(TEXT)} characters "
                   "of document D"),
    ({"doc": "Z"}, "unit map row 2: chunk D#1: its document Z is not among the documents"),
    ({"chunk": "D"}, "unit map row 2: chunk D has the id of a document whose passages are "
                     "pooled"),
    ({"offsets": None}, "the unit map gives no offsets"),
])
def test_bad_passages_store_nothing(engine, change, message):
    collection = _collection()
    units = collection["units"].copy()
    pool = collection["pool"].copy()
    if "pool_doc" in change:
        pool.loc[0, "doc"] = change["pool_doc"]
    if "end" in change:
        units.loc[1, "end"] = change["end"]
    if "doc" in change:
        units.loc[1, "doc"] = change["doc"]
    if "chunk" in change:
        units.loc[1, "chunk"] = pool.loc[0, "doc"] = change["chunk"]
    if "offsets" in change:
        units = units.assign(start=pd.NA, end=pd.NA)
    with pytest.raises(InputError) as caught, session_scope(engine) as session:
        _create(session, units=units, pool=pool)
    assert str(caught.value).startswith(message)
    with engine.connect() as connection:
        assert connection.execute(sa.text("SELECT COUNT(*) FROM document")).scalar() == 0


@pytest.mark.parametrize("values", [
    "1, 'X', '', '', NULL, 0, 1",        # offsets without a parent
    "1, 'X', '', '', 1, NULL, 1",        # a parent with one offset
    "1, 'X', '', '', 1, -1, 1",          # a negative start
    "1, 'X', '', '', 1, 3, 2",           # start after end
])
def test_the_check_refuses_a_half_passage(engine, values):
    with session_scope(engine) as session:
        _create(session)
    with pytest.raises(sa.exc.IntegrityError), engine.begin() as connection:
        connection.execute(sa.text(
            "INSERT INTO document (campaign_id, key, title, text, parent, passage_start, "
            f"passage_end) VALUES ({values})"))


def test_0009_upgrades_documents_in_place_and_refuses_to_drop_passages(fresh_db_url):
    engine = open_engine(fresh_db_url)
    try:
        collection = _collection()
        with session_scope(engine) as session:
            create_campaign(session, name="plain", scale=LabelScale.binary(),
                            topics=collection["topics"], documents=collection["documents"],
                            pool=collection["pool"].assign(doc=["D", "E", "F"]))
            add_annotator(session, campaign="plain", name="ann")
        migrate(engine, "0008", downgrade=True)
        with engine.connect() as connection:
            columns = {c["name"] for c in sa.inspect(connection).get_columns("document")}
        assert not {"parent", "passage_start", "passage_end"} & columns
        migrate(engine, "head")  # document is rebuilt while pair rows point at it
        with engine.connect() as connection:
            assert compare_metadata(MigrationContext.configure(connection),
                                    SQLModel.metadata) == []
            rows = connection.execute(sa.text(
                "SELECT d.key, d.parent FROM pair p JOIN document d ON d.id = p.document_id "
                "ORDER BY d.key")).all()
        assert [tuple(r) for r in rows] == [("D", None), ("E", None), ("F", None)]
        with session_scope(engine) as session:
            _create(session)
            assert next_pair(session, annotator_id=annotator_id(
                session, campaign="plain", name="ann")).passage is None
        with pytest.raises(RuntimeError, match="3 passages have no place"):
            migrate(engine, "0008", downgrade=True)
    finally:
        engine.dispose()
