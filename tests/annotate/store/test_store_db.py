"""Engines: SQLite pragmas, URL resolution, transactions that roll back on error."""

from __future__ import annotations

import pandas as pd
import pytest
import sqlalchemy as sa
from pooljudge.annotate.records import LabelScale
from pooljudge.annotate.store import (
    DEFAULT_URL,
    create_campaign,
    database_url,
    list_campaigns,
    open_engine,
    session_scope,
)

from pooljudge.errors import InputError, PoolJudgeError


def test_sqlite_pragmas(tmp_path):
    engine = open_engine(f"sqlite:///{tmp_path / 'p.db'}")
    with engine.connect() as connection:
        values = {name: connection.exec_driver_sql(f"PRAGMA {name}").scalar()
                  for name in ("journal_mode", "foreign_keys", "synchronous", "busy_timeout")}
    engine.dispose()
    assert values == {"journal_mode": "wal", "foreign_keys": 1, "synchronous": 1,
                      "busy_timeout": 30000}


def test_url_resolution(monkeypatch):
    monkeypatch.delenv("POOLJUDGE_DB", raising=False)
    assert database_url() == DEFAULT_URL == "sqlite:///pooljudge.db"
    monkeypatch.setenv("POOLJUDGE_DB", "sqlite:///elsewhere.db")
    assert database_url() == "sqlite:///elsewhere.db"
    assert database_url("postgresql+psycopg://x/y") == "postgresql+psycopg://x/y"


@pytest.mark.parametrize("url", ["not a url", "sqlite:////no/such/folder/p.db"],
                         ids=["garbage", "missing-folder"])
def test_bad_urls_raise_one_line_errors(url):
    with pytest.raises(PoolJudgeError):
        open_engine(url)


def test_failed_creation_rolls_everything_back(engine, collection):
    parts = collection()
    parts["documents"] = parts["documents"].iloc[:-1]  # the pool names a missing document
    with pytest.raises(InputError, match="unknown document"), session_scope(engine) as session:
        create_campaign(session, name="half", scale=LabelScale.binary(), **parts)
    with session_scope(engine, readonly=True) as session:
        assert "half" not in [c.name for c in list_campaigns(session)]


def test_foreign_keys_are_enforced(engine):
    with pytest.raises(sa.exc.IntegrityError), session_scope(engine) as session:
        session.execute(sa.text(
            "INSERT INTO topic (campaign_id, key, title, description, narrative, queue_pos, "
            "open_slots) VALUES (987654, 'x', '', '', '', 0, 1)"))


def test_readonly_session_sees_committed_data(engine, make_campaign):
    name = make_campaign()
    with session_scope(engine, readonly=True) as session:
        names = pd.Series([c.name for c in list_campaigns(session)])
    assert (names == name).any()
