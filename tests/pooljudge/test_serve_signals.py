"""The server dies with its command: ``pooljudge serve`` and ``pooljudge demo`` stopped by
SIGTERM, SIGINT or even SIGKILL leave no Streamlit process behind and the port closed.

Each command runs as a real process in a session of its own (so its process group is exactly
the command and what it started), on a free port; the signal goes to the command's pid only,
as ``kill PID`` or a service manager would send it.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from tests.support.browser import free_port

SIGNALS = [signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGKILL]
GONE_WITHIN = 15.0  # seconds; Streamlit's own shutdown takes about one


@pytest.fixture(scope="module")
def demo_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A demo folder built once (``demo --no-serve``), so each ``demo`` below only serves."""
    folder = tmp_path_factory.mktemp("demo-signals") / "demo"
    done = subprocess.run([sys.executable, "-m", "pooljudge", "demo", "--dir", str(folder),
                           "--no-serve"], capture_output=True, text=True, timeout=600,
                          check=False)
    assert done.returncode == 0, done.stderr
    return folder


def _command(name: str, port: int, tmp_path: Path, request) -> list[str]:
    if name == "serve":
        return [sys.executable, "-m", "pooljudge", "serve", "--port", str(port),
                "--db", f"sqlite:///{tmp_path / 'serve.db'}"]
    folder = request.getfixturevalue("demo_folder")
    return [sys.executable, "-m", "pooljudge", "demo", "--dir", str(folder), "--port", str(port)]


def _wait_healthy(process: subprocess.Popen, port: int, log: Path) -> None:
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        assert process.poll() is None, f"exited early:\n{log.read_text()}"
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health",
                                        timeout=2) as response:
                if response.status == 200:
                    return
        except OSError:
            time.sleep(0.2)
    raise AssertionError(f"never healthy:\n{log.read_text()}")


def _port_open(port: int) -> bool:
    with socket.socket() as sock:
        sock.settimeout(1)
        return sock.connect_ex(("127.0.0.1", port)) == 0


def _group_alive(group: int) -> list[int]:
    """Pids of the live (not zombie) processes of process group ``group``."""
    alive = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2:].split()  # after "pid (comm) "
        if int(fields[2]) == group and fields[0] != "Z":
            alive.append(int(entry.name))
    return alive


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG is Linux's")
@pytest.mark.parametrize("stop", SIGNALS, ids=lambda s: s.name)
@pytest.mark.parametrize("name", ["serve", "demo"])
def test_the_server_dies_with_its_command(name: str, stop: signal.Signals, tmp_path: Path,
                                          request) -> None:
    port = free_port()
    log = tmp_path / "server.log"
    with log.open("w") as handle:
        process = subprocess.Popen(_command(name, port, tmp_path, request), stdout=handle,
                                   stderr=subprocess.STDOUT, start_new_session=True)
    group = process.pid
    try:
        _wait_healthy(process, port, log)
        os.kill(process.pid, stop)
        status = process.wait(timeout=GONE_WITHIN)
        deadline = time.monotonic() + GONE_WITHIN
        while (_port_open(port) or _group_alive(group)) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not _port_open(port), f"port {port} still served after {stop.name}"
        assert _group_alive(group) == [], f"left running after {stop.name}"
        # a requested stop is a clean exit; SIGKILL cannot be caught
        assert status == (-signal.SIGKILL if stop == signal.SIGKILL else 0), log.read_text()
    finally:
        if _group_alive(group):
            os.killpg(group, signal.SIGKILL)
        if process.poll() is None:
            process.kill()
            process.wait()
