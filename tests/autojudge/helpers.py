"""Reading back what an autojudge run stored, and running the command in or out of process."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import sqlalchemy as sa

ROOT = Path(__file__).resolve().parents[2]
KEY_VAR = "POOLJUDGE_TEST_LLM_KEY"


def autojudge_args(campaign, server, *extra: str, name: str = "llm-a") -> list[str]:
    """The command line of a run of judge ``name`` against ``server``."""
    return ["autojudge", "--campaign", campaign.name, "--base-url", server.base_url,
            "--model", "test-model", "--name", name, "--api-key-env", KEY_VAR,
            "--db", campaign.url, *extra]


def start_process(args: list[str], key: str) -> subprocess.Popen:
    """``python -m pooljudge ARGS`` in a subprocess with the key in its environment."""
    env = {**os.environ, KEY_VAR: key}
    return subprocess.Popen([sys.executable, "-m", "pooljudge", *args], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def stored(engine: sa.Engine, name: str = "llm-a") -> list[tuple]:
    """(topic, doc, label, version, source, attempts, model, reply) of the judge's rows."""
    query = sa.text("""
        SELECT t.key, d.key, j.label, j.version, j.source, x.attempts, x.model, x.reply
        FROM judgment j JOIN annotator a ON a.id = j.annotator_id
        JOIN pair p ON p.id = j.pair_id JOIN topic t ON t.id = p.topic_id
        JOIN document d ON d.id = p.document_id
        LEFT JOIN auto_judgment x ON x.judgment_id = j.id
        WHERE a.name = :name ORDER BY t.key, d.key""")
    with engine.connect() as connection:
        return [tuple(r) for r in connection.execute(query, {"name": name})]


def labels(engine: sa.Engine, name: str = "llm-a") -> dict[tuple[str, str], int]:
    """(topic, doc) -> label of the judge; fails on a pair labelled twice."""
    rows = stored(engine, name)
    found = {(t, d): label for t, d, label, *_ in rows}
    assert len(found) == len(rows), "a pair was labelled twice"
    return found


def failures(engine: sa.Engine) -> set[tuple[str, str]]:
    query = sa.text("""SELECT t.key, d.key FROM auto_failure f JOIN pair p ON p.id = f.pair_id
                       JOIN topic t ON t.id = p.topic_id JOIN document d ON d.id = p.document_id""")
    with engine.connect() as connection:
        return {tuple(r) for r in connection.execute(query)}


def counters(engine: sa.Engine) -> list[tuple]:
    """Every pair's (id, open_slots, judged)."""
    with engine.connect() as connection:
        return [tuple(r) for r in connection.execute(
            sa.text("SELECT id, open_slots, judged FROM pair ORDER BY id"))]
