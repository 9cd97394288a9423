"""``pooljudge serve``: run the annotation app (Streamlit) on a database.

The app runs headless, with no usage statistics, no developer toolbar and no file watcher; the
database URL reaches it through ``$POOLJUDGE_DB``. The database is opened (and migrated) here
first, so a wrong URL fails with one line instead of inside the browser.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

__all__ = ["register", "serve", "streamlit_command"]

APP = Path(__file__).resolve().parents[2] / "annotate" / "app.py"


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("serve", help="serve the annotation app in the browser",
                                   description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on")
    parser.add_argument("--port", type=int, default=8501, help="port to listen on")
    parser.add_argument("--db", default=None,
                        help="database URL (default: $POOLJUDGE_DB or sqlite:///pooljudge.db)")
    parser.set_defaults(handler=_run)


def streamlit_command(host: str, port: int, app: Path = APP) -> list[str]:
    """The ``streamlit run`` command line for the app (``app``: another script, as the UI
    latency benchmark's bare-Streamlit baseline, served the same way)."""
    return [
        sys.executable, "-m", "streamlit", "run", str(app),
        "--server.headless", "true",
        "--server.address", host,
        "--server.port", str(port),
        "--server.fileWatcherType", "none",
        "--server.runOnSave", "false",
        "--browser.gatherUsageStats", "false",
        "--client.toolbarMode", "minimal",
        "--client.showErrorDetails", "false",
    ]


def serve(url: str, host: str, port: int) -> int:
    """Open (and migrate) the database, then run Streamlit until it exits; its exit status."""
    from annotate.db import database_url, open_engine

    url = database_url(url)
    open_engine(url).dispose()
    print(f"pooljudge: serving {url} on http://{host}:{port}/", file=sys.stderr, flush=True)
    env = {**os.environ, "POOLJUDGE_DB": url}
    try:
        return subprocess.run(streamlit_command(host, port), env=env, check=False).returncode
    except KeyboardInterrupt:
        return 0


def _run(args: argparse.Namespace) -> int:
    return serve(args.db, args.host, args.port)
