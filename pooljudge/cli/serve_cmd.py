"""``pooljudge serve``: run the annotation app (Streamlit) on a database.

Streamlit serves ``pooljudge.annotate.asgi_app`` (the app behind a middleware that refuses
uploads from sessions not logged in as an admin and hides ``/_stcore/metrics``); uploads are
capped at ``--max-upload-mb`` (``$POOLJUDGE_MAX_UPLOAD_MB``, default 100).

The app runs headless, with no usage statistics, no developer toolbar and no file watcher; the
database URL reaches it through ``$POOLJUDGE_DB`` (and ``--pool-size`` through
``$POOLJUDGE_POOL_SIZE``). The database is opened (and migrated) here first, so a wrong URL
fails with one line instead of inside the browser.

The server dies with this command. Streamlit runs as a child (``streamlit run``, its public
interface) that receives SIGTERM when this process ends for any reason, SIGKILL included
(``PR_SET_PDEATHSIG``, Linux); SIGTERM, SIGINT and SIGHUP sent to this process are passed on
(SIGHUP as SIGTERM: Streamlit has no handler for it). Exit status: Streamlit's own, except
0 when it stopped after a signal passed on (a requested stop, as a service manager expects).

A closed stdout never blocks shutdown: Streamlit writes into a pipe of this process, which
copies its lines to stdout until stdout is gone (``serve | head``, a dead log shipper) and then
drops them, so the child never meets a broken pipe; a child still running
:data:`STOP_SECONDS` after the signal passed on is killed.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import IO

from pooljudge.cli import Subcommands
from pooljudge.cli.options import check_can_listen, listen_host, positive_int, summary
from pooljudge.cli.options import port as tcp_port
from pooljudge.errors import UsageError

__all__ = ["FORWARDED", "register", "run_streamlit", "serve", "streamlit_command"]

# the ASGI app (app.py behind its door keeper and login exchange) inside the installed package
# (the folder annotate/ installs as pooljudge.annotate)
def _app_path() -> Path:
    spec = importlib.util.find_spec("pooljudge.annotate")
    if spec is None or spec.origin is None:  # pragma: no cover - part of this distribution
        raise ImportError("pooljudge.annotate is not installed")
    return Path(spec.origin).with_name("asgi_app.py")


APP = _app_path()
FORWARDED = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)
MAX_POOL_SIZE = 1000
DEFAULT_MAX_UPLOAD_MB = 100  # a ready pool or a few TREC runs of a large collection
MAX_UPLOAD_MB = 10_000
STOP_SECONDS = 4.0  # a child still running this long after SIGTERM is killed


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
    parser.add_argument("--max-upload-mb", type=positive_int(MAX_UPLOAD_MB), default=None,
                        metavar="MB", help="largest file an admin may upload, in megabytes "
                        f"(default: $POOLJUDGE_MAX_UPLOAD_MB or {DEFAULT_MAX_UPLOAD_MB}); "
                        "sessions without an admin's login cannot upload at all")
    parser.set_defaults(handler=_run)


def streamlit_command(host: str, port: int, app: Path = APP, *,
                      max_upload_mb: int = DEFAULT_MAX_UPLOAD_MB) -> list[str]:
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
        "--server.maxUploadSize", str(max_upload_mb),
    ]


def max_upload_mb(given: int | None) -> int:
    """``given``, else ``$POOLJUDGE_MAX_UPLOAD_MB``, else the default; UsageError if malformed."""
    if given is not None:
        return given
    text = os.environ.get("POOLJUDGE_MAX_UPLOAD_MB") or str(DEFAULT_MAX_UPLOAD_MB)
    if not (text.isascii() and text.isdigit()) or not 1 <= int(text) <= MAX_UPLOAD_MB:
        raise UsageError(f"$POOLJUDGE_MAX_UPLOAD_MB: must be a whole number from 1 to "
                         f"{MAX_UPLOAD_MB}, got {text!r}")
    return int(text)


def serve(url: str | None, host: str, port: int, *, pool_size: int | None = None,
          upload_mb: int | None = None) -> int:
    """Open (and migrate) the database, then run Streamlit until it exits; the exit status
    (see the module docstring)."""
    from pooljudge.annotate.store import open_engine
    from pooljudge.cli.inputs import checked_db_url

    upload_mb = max_upload_mb(upload_mb)
    url = checked_db_url(url)
    env = {**os.environ, "POOLJUDGE_DB": url}
    if pool_size is not None:
        env["POOLJUDGE_POOL_SIZE"] = str(pool_size)
    open_engine(url).dispose()
    check_can_listen(host, port)
    print(f"pooljudge: serving {url} on http://{host}:{port}/", file=sys.stderr, flush=True)
    return run_streamlit(streamlit_command(host, port, max_upload_mb=upload_mb), env)


def run_streamlit(command: list[str], env: dict[str, str]) -> int:
    """Run ``command`` as a child that dies with this process, passing on stop signals; its
    exit status, 0 when it ended after a signal passed on."""
    from pooljudge.ground.lifetime import preexec_dying_with

    child = subprocess.Popen(command, env=env, preexec_fn=preexec_dying_with(os.getpid()),
                             stdout=subprocess.PIPE)
    relay = threading.Thread(target=_relay, args=(child.stdout, sys.stdout), daemon=True)
    relay.start()
    received: list[int] = []

    def pass_on(signum: int, _frame) -> None:
        received.append(signum)
        with contextlib.suppress(ProcessLookupError):
            child.send_signal(signal.SIGTERM if signum == signal.SIGHUP else signum)

    previous = {signum: signal.signal(signum, pass_on) for signum in FORWARDED}
    try:
        status = _wait(child, received)
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
    relay.join(timeout=1)
    if received and status in (0, -signal.SIGTERM, -signal.SIGINT, -signal.SIGKILL):
        return 0
    if signal.SIGINT in received and status == 1:  # Ctrl-C during Streamlit's start: click's
        return 0  # "Aborted!" and exit 1 is the stop asked for, not a failure
    return status if status >= 0 else 128 - status


def _wait(child: subprocess.Popen, received: list[int]) -> int:
    """The child's exit status; once a stop signal was passed on, SIGKILL after
    :data:`STOP_SECONDS` if it has not ended by then."""
    while True:
        try:
            return child.wait(timeout=STOP_SECONDS if received else 0.5)
        except subprocess.TimeoutExpired:
            if received:
                child.kill()
                return child.wait()


def _relay(source: IO[bytes], target: IO[str]) -> None:
    """Copy the child's output to ``target`` line by line; once ``target`` is closed (its
    reader gone), keep draining ``source`` so the child never blocks or sees a broken pipe,
    and point this process's stdout at /dev/null so its own exit does not fail either."""
    sink = target.buffer if hasattr(target, "buffer") else None
    for line in iter(source.readline, b""):
        if sink is None:
            continue
        try:
            sink.write(line)
            sink.flush()
        except (BrokenPipeError, OSError, ValueError):
            sink = None
            _silence_stdout()
    source.close()


def _silence_stdout() -> None:
    """Point file descriptor 1 at /dev/null (its reader is gone)."""
    with contextlib.suppress(OSError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)


def _run(args: argparse.Namespace) -> int:
    return serve(args.db, args.host, args.port, pool_size=args.pool_size,
                 upload_mb=args.max_upload_mb)
