"""A PostgreSQL connection lost in the middle of a write: one error line, exit 2, nothing stored.

The test terminates the command's server process (``pg_terminate_backend``, what a restart or a
failover does to it) while a long import holds its transaction open.
"""

from __future__ import annotations

import subprocess
import sys
import time
import uuid

import pandas as pd
import pytest
import sqlalchemy as sa
from pooljudge.annotate.records import LabelScale
from pooljudge.annotate.store import (
    add_annotator,
    consistency_problems,
    create_campaign,
    judgments_frame,
    session_scope,
)

pytestmark = pytest.mark.postgres


def _admin():
    import psycopg

    return psycopg.connect("host=127.0.0.1 port=5432 user=postgres dbname=postgres",
                           autocommit=True)


def _writers(database: str) -> list[int]:
    with _admin() as connection:
        return [row[0] for row in connection.execute(
            "SELECT pid FROM pg_stat_activity WHERE datname = %s AND backend_xid IS NOT NULL",
            (database,))]


@pytest.fixture
def pg_engine(pg_url):
    from pooljudge.annotate.store import open_engine

    engine = open_engine(pg_url)
    yield engine
    engine.dispose()


def test_import_whose_connection_is_killed_stores_nothing(pg_engine, pg_url, collection,
                                                          tmp_path):
    name = f"s-{uuid.uuid4().hex[:6]}"
    with session_scope(pg_engine) as session:
        create_campaign(session, name=name, scale=LabelScale.binary(), overlap=1,
                        **collection(40, 100))
        add_annotator(session, campaign=name, name="alice")
    pairs = collection(40, 100)["pool"][["topic", "doc"]]
    rows = pd.concat([pairs.assign(annotator=f"src{i}") for i in range(60)])
    big = tmp_path / "big.tsv"
    rows.assign(label=1)[["annotator", "topic", "doc", "label"]].to_csv(big, sep="\t",
                                                                       index=False)
    process = subprocess.Popen(
        [sys.executable, "-m", "pooljudge", "judgments", "import", str(big), "--campaign", name,
         "--db", pg_url, *[f"--new-annotator=src{i}" for i in range(60)]],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    database = sa.make_url(pg_url).database
    deadline = time.monotonic() + 120
    while not (writers := _writers(database)):
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < deadline
        time.sleep(0.05)
    with _admin() as connection:
        for pid in writers:
            connection.execute("SELECT pg_terminate_backend(%s)", (pid,))
    _, stderr = process.communicate(timeout=120)
    assert process.returncode == 2, stderr
    lines = stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("pooljudge: error: "), stderr
    assert "Traceback" not in stderr
    with session_scope(pg_engine, readonly=True) as session:
        assert judgments_frame(session, campaign=name, latest_only=False).empty
        assert consistency_problems(session, campaign=name) == []
