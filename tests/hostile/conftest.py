"""Good input files of every kind a command reads, a campaign database, and helpers that run the
command line and snapshot what it may have written."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from pooljudge.cli import main

GOOD: dict[str, str] = {
    "qrels": "".join(f"{t} 0 d{d} {(t + d) % 2}\n" for t in (1, 2, 3) for d in range(1, 5)),
    "run": "".join(f"{t} Q0 d{d} {d} {10 - d}.5 tag\n" for t in (1, 2, 3) for d in range(1, 7)),
    "tgroups": "topic group\n1 news\n2 news\n3 web\n",
    "rgroups": "run group\nrun_a x\nrun_b y\nrun_c y\n",
    "topics": "id\ttitle\tdescription\tnarrative\n1\tone\td\tn\n2\ttwo\td\tn\n3\tthree\td\tn\n",
    "docs": "".join(f'{{"id": "d{d}", "title": "t{d}", "text": "text {d}"}}\n'
                    for d in range(1, 7)),
    "pool": "topic\tdoc\torder\tbest_rank\truns\n" + "".join(
        f"{t}\td{d}\t{d}\t{d}\trun_a\n" for t in (1, 2, 3) for d in (1, 2)),
    "scale": '[{"value": 0, "name": "no"}, {"value": 1, "name": "yes"}]\n',
    "judgments": "annotator\ttopic\tdoc\tlabel\n" + "".join(
        f"bob\t{t}\td1\t1\n" for t in (1, 2, 3)),
    # run files relative to the manifest's folder: the good folder holds run_a and run_b
    "manifest": "run\tstage\tpipeline\nrun_a\tretrieve\tp\nrun_b\trerank\tp\n",
    "log": "".join(
        f'{{"query_id": "{t}", "config": "{c}", "latency_ms": {t}.5, "category": "c{t % 2}", '
        f'"results": [{{"id": "d{t}"}}, {{"id": "d{t + 1}"}}]}}\n'
        for t in (1, 2, 3) for c in ("a", "b")),
    "latency": "run\tqueries\tretrievals\ttimed\tmean_ms\tp50_ms\tp95_ms\tp99_ms\n"
               "run_a\t3\t3\t3\t4.0\t4.0\t5.0\t5.0\n",
    "units": "".join(f"d{d} D{(d + 1) // 2}\n" for d in range(1, 7)),
}


@dataclass(frozen=True)
class Outcome:
    status: int
    out: str
    err: str


@pytest.fixture(scope="session")
def good(tmp_path_factory) -> Path:
    """A folder with one good file per kind (``run`` as run_a, run_b and run_c)."""
    folder = tmp_path_factory.mktemp("good")
    for kind, text in GOOD.items():
        (folder / kind).write_text(text, encoding="utf-8")
    for name in ("run_a", "run_b", "run_c"):
        (folder / name).write_text(GOOD["run"].replace("tag", name), encoding="utf-8")
    return folder


@pytest.fixture(scope="session")
def campaign_db(good: Path, tmp_path_factory) -> str:
    """A SQLite campaign ``demo`` over the good topics, documents and pool."""
    path = tmp_path_factory.mktemp("db") / "campaign.db"
    url = f"sqlite:///{path}"
    status = run_inprocess(["init", "demo", "--topics", str(good / "topics"), "--docs",
                            str(good / "docs"), "--pool", str(good / "pool"), "--db", url])
    assert status == 0
    assert run_inprocess(["annotators", "add", "bob", "--campaign", "demo", "--db", url]) == 0
    assert run_inprocess(["judgments", "import", str(good / "judgments"), "--campaign", "demo",
                          "--db", url]) == 0
    return url


def run_inprocess(argv: list[str]) -> int:
    """``main(argv)``: its exit status (usage errors included)."""
    return main(argv)


def run_subprocess(argv: list[str], cwd: Path) -> Outcome:
    done = subprocess.run([sys.executable, "-m", "pooljudge", *argv], capture_output=True,
                          text=True, cwd=cwd, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(Path(__file__).parents[2])})
    return Outcome(done.returncode, done.stdout, done.stderr)


def snapshot(path: Path) -> object:
    """What a failed command must leave as it was: a file's bytes, or a database's rows."""
    if path.suffix == ".db":
        if not path.exists():
            return None
        with sqlite3.connect(path) as connection:
            tables = [r[0] for r in connection.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
            return {t: sorted(map(repr, connection.execute(f'SELECT * FROM "{t}"')))
                    for t in tables}
    return path.read_bytes() if path.exists() else None
