"""``pooljudge serve``: run the annotation app (Streamlit) on a database.

The app runs headless, with no usage statistics, no developer toolbar and no file watcher; the
database URL reaches it through ``$POOLJUDGE_DB`` (and ``--pool-size`` through
``$POOLJUDGE_POOL_SIZE``). The database is opened (and migrated) here first, so a wrong URL
fails with one line instead of inside the browser.

The server dies with this command. Streamlit runs as a child (``streamlit run``, its public
interface) that receives SIGTERM when this process ends for any reason, SIGKILL included
(``PR_SET_PDEATHSIG``, Linux); SIGTERM, SIGINT and SIGHUP sent to this process are passed on
(SIGHUP as SIGTERM: Streamlit has no handler for it). Exit status: Streamlit's own, except
0 when it stopped after a signal passed on (a requested stop, as a service manager expects).
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import os
import signal
import subprocess
import sys
from pathlib import Path

from pooljudge.cli import Subcommands
from pooljudge.cli.options import check_can_listen, listen_host, positive_int, summary
from pooljudge.cli.options import port as tcp_port

__all__ = ["FORWARDED", "register", "run_streamlit", "serve", "streamlit_command"]

# the app script inside the installed package (the folder annotate/ installs as pooljudge.annotate)
APP = Path(importlib.util.find_spec("pooljudge.annotate").origin).with_name("app.py")
FORWARDED = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)
MAX_POOL_SIZE = 1000


def register(subparsers: Subcommands) -> None:
    parser = subparsers.add_parser("serve", help="serve the annotation app in the browser",
                                   description=summary(__doc__))
    parser.add_argument("--host", type=listen_host, default="127.0.0.1",
                        help="address to listen on")
    parser.add_argument("--port", type=tcp_port, default=8501, help="port to listen on")
    parser.add_argument("--db", default=None,
                        help="database URL (default: $POOLJUDGE_DB or sqlite:///pooljudge.db)")
    parser.add_argument("--pool-size", type=positive_int(MAX_POOL_SIZE), default=None, metavar="N",
                        help="PostgreSQL connections kept open by this server (default: "
                             "$POOLJUDGE_POOL_SIZE or 5; up to 10 more when busy)")
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


def serve(url: str | None, host: str, port: int, *, pool_size: int | None = None) -> int:
    """Open (and migrate) the database, then run Streamlit until it exits; the exit status
    (see the module docstring)."""
    from pooljudge.annotate.store import open_engine
    from pooljudge.cli.inputs import checked_db_url

    url = checked_db_url(url)
    env = {**os.environ, "POOLJUDGE_DB": url}
    if pool_size is not None:
        env["POOLJUDGE_POOL_SIZE"] = str(pool_size)
    open_engine(url).dispose()
    check_can_listen(host, port)
    print(f"pooljudge: serving {url} on http://{host}:{port}/", file=sys.stderr, flush=True)
    return run_streamlit(streamlit_command(host, port), env)


def run_streamlit(command: list[str], env: dict[str, str]) -> int:
    """Run ``command`` as a child that dies with this process, passing on stop signals; its
    exit status, 0 when it ended after a signal passed on."""
    from pooljudge.lifetime import preexec_dying_with

    child = subprocess.Popen(command, env=env, preexec_fn=preexec_dying_with(os.getpid()))
    received: list[int] = []

    def pass_on(signum: int, _frame) -> None:
        received.append(signum)
        with contextlib.suppress(ProcessLookupError):
            child.send_signal(signal.SIGTERM if signum == signal.SIGHUP else signum)

    previous = {signum: signal.signal(signum, pass_on) for signum in FORWARDED}
    try:
        status = child.wait()
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
    if received and status in (0, -signal.SIGTERM, -signal.SIGINT):
        return 0
    return status if status >= 0 else 128 - status


def _run(args: argparse.Namespace) -> int:
    return serve(args.db, args.host, args.port, pool_size=args.pool_size)
