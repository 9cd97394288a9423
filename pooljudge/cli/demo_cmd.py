"""``pooljudge demo``: build the demo campaign (Python's own documentation) and serve it.

The first run builds the collection, four runs and their pool into a folder (default
``pooljudge-demo``), creates the campaign in ``demo.db`` there with a demo admin and two
annotators, and writes their login links to ``links.tsv``. Later runs reuse all of it, so
judgments survive restarts. It prints the links and the next commands, exactly as they run from
here (the ``pooljudge`` of this environment, ``.venv/bin/pooljudge`` after ``make demo``, and
the demo's ``--db``); then the app is served on 127.0.0.1:8501.
"""

from __future__ import annotations

import argparse
import os
import shlex
import shutil
import sys
from pathlib import Path

from pooljudge.cli import Subcommands
from pooljudge.cli.options import port, summary

__all__ = ["next_commands", "prepare_demo", "register"]


def register(subparsers: Subcommands) -> None:
    parser = subparsers.add_parser("demo", help="build the demo campaign and serve it",
                                   description=summary(__doc__))
    parser.add_argument("--dir", type=Path, default=Path("pooljudge-demo"),
                        help="folder for the demo database, runs and links (default: %(default)s)")
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on")
    parser.add_argument("--port", type=port, default=8501, help="port to listen on")
    parser.add_argument("--no-serve", action="store_true",
                        help="only build the demo and print the links")
    parser.set_defaults(handler=_run)


def prepare_demo(folder: Path) -> tuple[str, list]:
    """The demo database URL and login links, building everything on the first call.

    The database is created under a temporary name and renamed when complete, so an interrupted
    first run leaves nothing half-built behind.
    """
    from pooljudge.annotate.demo.build import build_collection, write_collection
    from pooljudge.annotate.demo.campaign import create_demo_campaign, read_links
    from pooljudge.annotate.store import open_engine

    database, links = folder / "demo.db", folder / "links.tsv"
    if database.exists() and links.exists():
        return f"sqlite:///{database}", read_links(links)
    folder.mkdir(parents=True, exist_ok=True)
    print("pooljudge: building the demo collection from Python's documentation…",
          file=sys.stderr, flush=True)
    collection = build_collection()
    write_collection(collection, folder / "collection")
    partial = folder / "demo.db.partial"
    for leftover in (partial, Path(f"{partial}-wal"), Path(f"{partial}-shm")):
        leftover.unlink(missing_ok=True)
    engine = open_engine(f"sqlite:///{partial}")
    try:
        people = create_demo_campaign(engine, collection, links)
    finally:
        engine.dispose()
    partial.replace(database)
    return f"sqlite:///{database}", people


def _run(args: argparse.Namespace) -> int:
    from pooljudge.cli.serve_cmd import serve

    url, people = prepare_demo(args.dir)
    base = f"http://{args.host}:{args.port}"
    print(f"Demo campaign ready ({args.dir / 'demo.db'}). Login links:")
    for person in people:
        print(f"  {person.role:<10} {person.name:<11} {base}{person.path}")
    print("Then, in another terminal (judge a few pairs first):")
    for command in next_commands(args.dir):
        print(f"  {command}")
    sys.stdout.flush()
    return 0 if args.no_serve else serve(url, args.host, args.port)


def next_commands(folder: Path) -> list[str]:
    """The commands that follow the demo (agreement, qrels, evaluation of the demo's runs), as
    shell lines that work from the current folder."""
    from pooljudge.annotate.demo.campaign import DEMO_CAMPAIGN

    program, db = _program(), shlex.quote(f"sqlite:///{folder / 'demo.db'}")
    qrels, runs = shlex.quote(str(folder / "qrels.txt")), shlex.quote(str(folder / "collection"))
    where = f"--campaign {DEMO_CAMPAIGN} --db {db}"
    return [f"{program} agree {where}",
            f"{program} export {where} -o {qrels}",
            f"{program} eval {qrels} {runs}/runs/*"]


def _program() -> str:
    """How to call pooljudge from here: ``pooljudge`` when that name on PATH is this
    environment's, else the path of this environment's script (relative when below here)."""
    script = Path(sys.executable).parent / "pooljudge"
    if not script.exists():
        return f"{shlex.quote(sys.executable)} -m pooljudge"
    found = shutil.which("pooljudge")
    if found and Path(found).resolve() == script.resolve():
        return "pooljudge"
    relative = os.path.relpath(script)
    return shlex.quote(relative if not relative.startswith("..") else str(script))
