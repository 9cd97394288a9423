"""After the demo, the next commands it prints run as printed (issue 29, "From the demo to the
command line"): the right ``--db`` and the ``pooljudge`` of the environment, ``.venv/bin/...``
when that environment is not on PATH."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from pooljudge.annotate import store
from pooljudge.annotate.demo.campaign import read_links
from pooljudge.annotate.store import open_engine, session_scope

ROOT = Path(__file__).resolve().parents[2]


def _judge_some(database: Path, links: Path, count: int = 6) -> set[int]:
    """Both demo annotators judge their first ``count`` pairs, so there is something to export;
    the pairs judged."""
    judged: set[int] = set()
    engine = open_engine(f"sqlite:///{database}")
    try:
        for person in read_links(links):
            if person.role != "annotator":
                continue
            with session_scope(engine) as session:
                user = store.authenticate(session, token=person.path.split("token=")[1])
            for position in range(count):
                with session_scope(engine) as session:
                    pair = store.next_pair(session, annotator_id=user.id)
                    store.record_judgment(session, annotator_id=user.id, pair_id=pair.pair_id,
                                          label=position % 2)
                judged.add(pair.pair_id)
    finally:
        engine.dispose()
    return judged


def test_printed_next_commands_run_against_the_demo_database(tmp_path):
    folder = tmp_path / "demo"
    path = os.pathsep.join(p for p in os.environ.get("PATH", "").split(os.pathsep)
                           if Path(p).resolve() != Path(sys.executable).parent.resolve())
    env = {**os.environ, "PATH": path}
    shown = subprocess.run([sys.executable, "-m", "pooljudge", "demo", "--no-serve", "--dir",
                            str(folder)], cwd=ROOT, env=env, capture_output=True, text=True,
                           timeout=300)
    assert shown.returncode == 0, shown.stderr
    lines = shown.stdout.splitlines()
    commands = [line.strip() for line in lines[lines.index(next(
        line for line in lines if line.startswith("Then"))) + 1:]]
    assert len(commands) == 3, shown.stdout
    venv_script = Path(sys.executable).parent / "pooljudge"
    if venv_script.resolve().is_relative_to(ROOT):  # make demo's .venv: named by its path
        assert all(c.startswith(os.path.relpath(venv_script, ROOT)) for c in commands)
    assert all(f"sqlite:///{folder / 'demo.db'}" in c for c in commands[:2])
    judged = _judge_some(folder / "demo.db", folder / "links.tsv")
    for command in commands:  # as printed, by a shell, from where the demo ran
        done = subprocess.run(command, shell=True, cwd=ROOT, env=env, capture_output=True,
                              text=True, timeout=300)
        assert done.returncode == 0, (command, done.stderr)
    assert (folder / "qrels.txt").read_text().count("\n") == len(judged)
