"""Alembic: a database at the first revision is upgraded in place, keeping its data."""

from __future__ import annotations

import uuid
from datetime import datetime

import pytest
import sqlalchemy as sa
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from pooljudge.annotate.records import ANNOTATOR_ROLES, LabelScale
from pooljudge.annotate.store import (
    add_annotator,
    annotator_id,
    create_campaign,
    judgments_frame,
    migrate,
    migration_config,
    next_pair,
    open_engine,
    progress,
    record_judgment,
    session_scope,
)
from pooljudge.annotate.store.models import one_of
from sqlmodel import SQLModel

from pooljudge.errors import PoolJudgeError
from tests.annotate.conftest import small_collection
from tests.support.postgres import fresh_database_url

T0 = datetime(2024, 5, 1, 12, 0, 0)
HEAD = ScriptDirectory.from_config(migration_config()).get_current_head()


def _at_revision(url: str, revision: str) -> sa.Engine:
    engine = open_engine(url, upgrade=False)
    migrate(engine, revision)
    return engine


def _fill_first_revision(engine: sa.Engine) -> None:
    """A campaign of 3 pairs, overlap 2: pair 1 judged by a and b (b twice), pair 2 by a
    and the label source q, pair 3 claimed by b."""
    rows = [
        "INSERT INTO campaign VALUES (1, 'old', '[{\"value\": 0, \"name\": \"no\", "
        "\"description\": \"\"}, {\"value\": 1, \"name\": \"yes\", \"description\": \"\"}]', "
        "2, 'pool', 'pair', '', false, :t)",
        "INSERT INTO topic VALUES (1, 1, 'T1', 'title', 'desc', 'narr')",
        *[f"INSERT INTO document VALUES ({i}, 1, 'D{i}', '', 'text {i}')" for i in (1, 2, 3)],
        *[f"INSERT INTO pair VALUES ({i}, 1, 1, {i}, {i}, {i}, 'run', {i - 1})"
          for i in (1, 2, 3)],
        "INSERT INTO annotator VALUES (1, 1, 'a', 'annotator', true, true, 'h1', 2, :t)",
        "INSERT INTO annotator VALUES (2, 1, 'b', 'annotator', true, true, 'h2', 2, :t)",
        "INSERT INTO annotator VALUES (3, 1, 'q', 'annotator', false, true, NULL, 0, :t)",
        "INSERT INTO annotator VALUES (4, 1, 'c', 'annotator', true, true, 'h4', 0, :t)",
        "INSERT INTO judgment VALUES (1, 1, 1, 'judgment', 1, 1, 'human', :t, 2.0, 1, NULL)",
        "INSERT INTO judgment VALUES (2, 1, 2, 'judgment', 1, 0, 'human', :t, 2.0, 1, NULL)",
        "INSERT INTO judgment VALUES (3, 1, 2, 'judgment', 2, 1, 'human', :t, 1.0, 1, 'ok')",
        "INSERT INTO judgment VALUES (4, 2, 1, 'judgment', 1, 0, 'human', :t, 2.0, 2, NULL)",
        "INSERT INTO judgment VALUES (5, 2, 3, 'judgment', 1, 1, 'import', :t, NULL, NULL, NULL)",
        "INSERT INTO claim VALUES (1, 3, 2, :t, '2999-01-01 00:00:00', 2)",
    ]
    with engine.begin() as connection:
        for statement in rows:
            connection.execute(sa.text(statement), {"t": T0})
        if engine.dialect.name == "postgresql":
            for table in ("campaign", "topic", "document", "pair", "annotator", "judgment",
                          "claim"):
                connection.execute(sa.text(
                    f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), "
                    f"(SELECT MAX(id) FROM {table}))"))


def test_first_revision_database_is_upgraded_with_its_data(fresh_db_url):
    db_url = fresh_db_url
    old = _at_revision(db_url, "0001")
    _fill_first_revision(old)
    old.dispose()
    engine = open_engine(db_url)
    try:
        with engine.connect() as connection:
            assert MigrationContext.configure(connection).get_current_revision() == HEAD
            counters = connection.execute(sa.text(
                "SELECT id, judged, open_slots FROM pair ORDER BY id")).all()
        assert [tuple(r) for r in counters] == [(1, 2, 0), (2, 1, 1), (3, 0, 1)]
        with session_scope(engine) as session:
            frame = judgments_frame(session, campaign="old", latest_only=False)
            assert len(frame) == 5 and frame["comment"].iloc[2] == "ok"
            assert progress(session, campaign="old")["judgments_done"].tolist() == [3]
            # c may take pair 2 (one slot left) or pair 3 (b's claim leaves one slot)
            view = next_pair(session, annotator_id=4)
        assert view.doc_id == "D2"
    finally:
        engine.dispose()


def test_second_revision_gains_empty_run_ranks_and_a_static_order(fresh_db_url):
    old = _at_revision(fresh_db_url, "0001")
    _fill_first_revision(old)
    old.dispose()
    at_0002 = _at_revision(fresh_db_url, "0002")
    at_0002.dispose()
    engine = open_engine(fresh_db_url)
    try:
        with engine.connect() as connection:
            campaign = connection.execute(sa.text(
                "SELECT judging_order, order_seed, queue_mark FROM campaign")).one()
            entries = connection.execute(sa.text("SELECT COUNT(*) FROM pool_entry")).scalar()
        assert tuple(campaign) == ("pool", 0, 0) and entries == 0
        with session_scope(engine) as session:
            assert next_pair(session, annotator_id=4).doc_id == "D2"
    finally:
        engine.dispose()


def test_models_match_the_migrated_schema(engine):
    with engine.connect() as connection:
        assert compare_metadata(MigrationContext.configure(connection), SQLModel.metadata) == []


def _check_constraints(engine: sa.Engine) -> dict[str, set[tuple[str, str]]]:
    """Table -> {(name, SQL text)} of its CHECK constraints, as the database reports them."""
    inspector = sa.inspect(engine)
    return {table: {(c["name"], c["sqltext"]) for c in inspector.get_check_constraints(table)}
            for table in SQLModel.metadata.tables}


def test_check_constraints_of_models_equal_the_migrated_ones(engine, tmp_path):
    """The value sets the models build from pooljudge.annotate.records (``one_of``) are the very
    constraints the migrations created: same names, same text, on both backends."""
    with fresh_database_url(engine.dialect.name, tmp_path, "pooljudge_models") as url:
        made = sa.create_engine(url)
        try:
            SQLModel.metadata.create_all(made)
            from_models = _check_constraints(made)
        finally:
            made.dispose()
    migrated = _check_constraints(engine)
    assert migrated == from_models
    names = {name for checks in migrated.values() for name, _ in checks}
    assert {"ck_annotator_role", "ck_campaign_assign_mode", "ck_judgment_kind",
            "ck_judgment_source", "ck_judgment_status"} <= names


def test_one_of_writes_a_value_set_as_the_migrations_did():
    check = one_of("annotator", "role", ANNOTATOR_ROLES)
    assert (check.name, str(check.sqltext)) == (
        "ck_annotator_role", "role IN ('annotator', 'adjudicator', 'admin')")


def test_opening_twice_does_not_touch_an_upgraded_database(db_url):
    first = open_engine(db_url)
    first.dispose()
    second = open_engine(db_url)
    with second.connect() as connection:
        assert MigrationContext.configure(connection).get_current_revision() == HEAD
    second.dispose()


def test_newer_database_is_refused(tmp_path):
    url = f"sqlite:///{tmp_path / 'new.db'}"
    open_engine(url).dispose()
    engine = open_engine(url, upgrade=False)
    with engine.begin() as connection:
        connection.execute(sa.text("UPDATE alembic_version SET version_num = '9999'"))
    engine.dispose()
    with pytest.raises(PoolJudgeError, match="newer than this pooljudge"):
        open_engine(url)


def _judged_campaign(engine: sa.Engine) -> dict[str, int]:
    """A new campaign (overlap 2): ann labels one pair, whose row gets automatic provenance."""
    name = f"aids-{uuid.uuid4().hex[:8]}"
    with session_scope(engine) as session:
        create_campaign(session, name=name, scale=LabelScale.binary(), overlap=2,
                        cannot_judge=True, **small_collection())
        add_annotator(session, campaign=name, name="ann")
    with session_scope(engine) as session:
        ann = annotator_id(session, campaign=name, name="ann")
        view = next_pair(session, annotator_id=ann)
        row = record_judgment(session, annotator_id=ann, pair_id=view.pair_id, label=1)
        session.execute(sa.text(
            "INSERT INTO auto_judgment VALUES (:j, 'm', 't', 'p', 'reply', NULL, 1, 1, 0.5, 1)"),
            {"j": row.id})
    return {"ann": ann, "pair": view.pair_id}


def test_0007_rebuilds_judgment_keeping_rows_and_references_and_goes_back(fresh_db_url):
    engine = open_engine(fresh_db_url)
    try:
        _judged_campaign(engine)
        # judgment is rebuilt while auto_judgment points at it
        migrate(engine, "0006", downgrade=True)
        with engine.connect() as connection:
            columns = {c["name"] for c in sa.inspect(connection).get_columns("judgment")}
            kept = connection.execute(sa.text(
                "SELECT COUNT(*) FROM judgment JOIN auto_judgment ON judgment_id = id")).scalar()
        assert "status" not in columns and kept == 1
        migrate(engine, "head")
        with engine.connect() as connection:
            rows = connection.execute(sa.text("SELECT status, label FROM judgment")).all()
            assert compare_metadata(MigrationContext.configure(connection), SQLModel.metadata) == []
        assert [tuple(r) for r in rows] == [("label", 1)]
    finally:
        engine.dispose()


def test_0007_downgrade_refuses_to_drop_a_cannot_judge_answer(fresh_db_url):
    engine = open_engine(fresh_db_url)
    try:
        ids = _judged_campaign(engine)
        with session_scope(engine) as session:
            view = next_pair(session, annotator_id=ids["ann"])
            record_judgment(session, annotator_id=ids["ann"], pair_id=view.pair_id, label=None,
                            status="cannot_judge", rationale="the document is in Finnish")
        with pytest.raises(RuntimeError, match="1 withdrawals or can't-judge"):
            migrate(engine, "0006", downgrade=True)
        with engine.connect() as connection:  # nothing changed: still at head, row kept
            assert MigrationContext.configure(connection).get_current_revision() == HEAD
            assert connection.execute(sa.text(
                "SELECT rationale FROM judgment WHERE status = 'cannot_judge'")).scalar() \
                == "the document is in Finnish"
    finally:
        engine.dispose()


def _pair_indexes(engine: sa.Engine) -> dict[str, tuple[tuple[str, ...], str | None]]:
    """The pair table's indexes: name -> (columns, partial-index predicate or None)."""
    where = f"{engine.dialect.name}_where"
    return {ix["name"]: (tuple(ix["column_names"]),
                         None if ix.get("dialect_options", {}).get(where) is None
                         else str(ix["dialect_options"][where]))
            for ix in sa.inspect(engine).get_indexes("pair")}


def test_0008_rebuilds_pair_keeping_rows_references_and_partial_indexes(fresh_db_url):
    engine = open_engine(fresh_db_url)
    try:
        ids = _judged_campaign(engine)
        indexes = _pair_indexes(engine)
        migrate(engine, "0007", downgrade=True)
        with engine.connect() as connection:
            columns = {c["name"] for c in sa.inspect(connection).get_columns("pair")}
            assert not {"stratum", "inclusion"} & columns
            assert "unsampled_pair" not in sa.inspect(connection).get_table_names()
        migrate(engine, "head")  # pair is rebuilt while judgment, claim, pool_entry point at it
        with engine.connect() as connection:
            rows = connection.execute(sa.text(
                "SELECT p.id, p.stratum, p.inclusion, j.label FROM judgment j "
                "JOIN pair p ON p.id = j.pair_id")).all()
            assert compare_metadata(MigrationContext.configure(connection), SQLModel.metadata) == []
        assert [tuple(r) for r in rows] == [(ids["pair"], None, None, 1)]
        assert _pair_indexes(engine) == indexes
        assert indexes["ix_pair_queue_open"][1] is not None  # still partial
        with session_scope(engine) as session:  # the queue still hands out pairs
            assert next_pair(session, annotator_id=ids["ann"]) is not None
    finally:
        engine.dispose()


def test_0008_downgrade_refuses_to_drop_a_sampled_campaign(fresh_db_url):
    engine = open_engine(fresh_db_url)
    try:
        pool = small_collection()["pool"].assign(stratum=1, inclusion=0.5, sampled=[1, 0] * 3)
        with session_scope(engine) as session:
            create_campaign(session, name="sampled", scale=LabelScale.binary(),
                            **{**small_collection(), "pool": pool})
        with pytest.raises(RuntimeError, match="1 campaigns made from a sampled pool"):
            migrate(engine, "0007", downgrade=True)
        with engine.connect() as connection:  # nothing changed: still at head, rows kept
            assert MigrationContext.configure(connection).get_current_revision() == HEAD
            assert connection.execute(sa.text(
                "SELECT COUNT(*) FROM unsampled_pair")).scalar() == 3
            assert connection.execute(sa.text(
                "SELECT SUM(inclusion) FROM pair")).scalar() == 1.5
    finally:
        engine.dispose()


def test_0012_adds_the_review_tables_keeping_rows_and_goes_back(fresh_db_url):
    engine = open_engine(fresh_db_url)
    try:
        ids = _judged_campaign(engine)
        migrate(engine, "0011", downgrade=True)
        with engine.connect() as connection:
            tables = set(sa.inspect(connection).get_table_names())
            assert not {"review", "review_topic", "review_sample", "certificate"} & tables
        migrate(engine, "head")
        with engine.connect() as connection:
            rows = connection.execute(sa.text(
                "SELECT p.id, j.label FROM judgment j JOIN pair p ON p.id = j.pair_id")).all()
            assert compare_metadata(MigrationContext.configure(connection), SQLModel.metadata) == []
            assert connection.execute(sa.text("SELECT COUNT(*) FROM review")).scalar() == 0
        assert [tuple(r) for r in rows] == [(ids["pair"], 1)]
    finally:
        engine.dispose()


def test_0012_downgrade_refuses_to_drop_a_review(fresh_db_url):
    from pooljudge.annotate.store import start_review

    engine = open_engine(fresh_db_url)
    try:
        name = f"rev-{uuid.uuid4().hex[:8]}"
        with session_scope(engine) as session:
            create_campaign(session, name=name, scale=LabelScale.binary(), **small_collection())
            start_review(session, campaign=name, rule="knee", target=0.9, alpha=0.1, seed=0)
        with pytest.raises(RuntimeError, match="1 review campaigns"):
            migrate(engine, "0011", downgrade=True)
        with engine.connect() as connection:
            assert MigrationContext.configure(connection).get_current_revision() == HEAD
            assert connection.execute(sa.text("SELECT COUNT(*) FROM review_topic")).scalar() == 2
    finally:
        engine.dispose()


def test_0013_adds_nugget_tables_goes_back_empty_and_refuses_to_drop_nuggets(fresh_db_url):
    from pooljudge.annotate.store import import_nuggets, nugget_bank

    from pooljudge.formats.nuggets import NuggetRow

    before = ScriptDirectory.from_config(migration_config()).get_revision("0013").down_revision
    tables = {"nugget", "nugget_event", "rag_answer", "answer_sentence", "nugget_assignment"}
    engine = open_engine(fresh_db_url)
    try:
        ids = _judged_campaign(engine)
        migrate(engine, before, downgrade=True)
        assert not tables & set(sa.inspect(engine).get_table_names())
        migrate(engine, "head")
        assert tables <= set(sa.inspect(engine).get_table_names())
        with session_scope(engine) as session:  # the older data is intact and usable
            assert next_pair(session, annotator_id=ids["ann"]) is not None
            name = session.execute(sa.text("SELECT name FROM campaign")).scalar()
            import_nuggets(session, campaign=name, rows=[NuggetRow("t0", "a fact", "vital")])
        with pytest.raises(RuntimeError, match="table nugget_event holds 1 rows"):
            migrate(engine, before, downgrade=True)
        with session_scope(engine, readonly=True) as session:
            assert [n.text for n in nugget_bank(session, campaign=name)] == ["a fact"]
    finally:
        engine.dispose()


@pytest.mark.parametrize("rule", ["qbcb", "quant", "quantci"])
def test_0014_admits_the_new_rules_and_goes_back_only_without_one(fresh_db_url, rule):
    from pooljudge.annotate.store import review_settings, start_review

    engine = open_engine(fresh_db_url)
    try:
        name = f"rev-{uuid.uuid4().hex[:8]}"
        with session_scope(engine) as session:
            create_campaign(session, name=name, scale=LabelScale.binary(), **small_collection())
            settings = start_review(session, campaign=name, rule="target", target=0.9,
                                    alpha=0.1, seed=0)
        migrate(engine, "0013", downgrade=True)
        with engine.begin() as connection, pytest.raises(sa.exc.IntegrityError):
            connection.execute(sa.text("UPDATE review SET rule = :rule"), {"rule": rule})
        assert "recall_estimate" not in {c["name"] for c in sa.inspect(engine).get_columns(
            "certificate")}
        migrate(engine, "head")
        with engine.connect() as connection:
            assert compare_metadata(MigrationContext.configure(connection), SQLModel.metadata) == []
        with engine.begin() as connection:  # the target review kept, and QBCB now admitted
            assert connection.execute(sa.text("SELECT rule FROM review")).scalar() == "target"
            connection.execute(sa.text("UPDATE review SET rule = :rule"), {"rule": rule})
        with pytest.raises(RuntimeError, match="1 review campaigns stop by QBCB, Quant or"):
            migrate(engine, "0013", downgrade=True)
        with session_scope(engine, readonly=True) as session:
            kept = review_settings(session, campaign_id=settings.campaign_id)
        assert kept.rule == rule
        with engine.connect() as connection:
            assert MigrationContext.configure(connection).get_current_revision() == HEAD
    finally:
        engine.dispose()
