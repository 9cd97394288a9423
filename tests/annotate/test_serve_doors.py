"""The doors of a real ``pooljudge serve`` (issue 29): without a login, the metrics route
answers nothing (W5) and an upload is refused before the server holds its body (W3); an admin's
session still uploads; a closed stdout pipe never blocks SIGTERM (F3)."""

from __future__ import annotations

import contextlib
import http.client
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from pathlib import Path

import pytest
from pooljudge.annotate.records import LabelScale
from pooljudge.annotate.store import add_annotator, create_campaign, open_engine, session_scope

from tests.support.browser import free_port, launch_chromium, start_serve, stop_app, wait_idle

MB = 1024 * 1024


def _status(request: urllib.request.Request) -> int:
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.status
    except urllib.error.HTTPError as error:
        return error.code


def _rss_kb(pid: int) -> int:
    """Resident memory of ``pid`` and its children (the Streamlit child), in kB."""
    total = 0
    pids = [pid, *map(int, Path(f"/proc/{pid}/task/{pid}/children").read_text().split())]
    for each in pids:
        for line in Path(f"/proc/{each}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                total += int(line.split()[1])
    return total


def _session_and_cookie(page, base: str, url: str) -> tuple[str, str]:
    """Open ``url`` in Chromium; the Streamlit session id and the XSRF cookie it was given."""
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

    found: list[str] = []

    def on_socket(socket) -> None:
        def on_frame(payload) -> None:
            if isinstance(payload, bytes | bytearray) and not found:
                message = ForwardMsg.FromString(bytes(payload))
                if message.WhichOneof("type") == "new_session":
                    found.append(message.new_session.initialize.session_id)

        socket.on("framereceived", on_frame)

    page.on("websocket", on_socket)
    page.goto(url)
    wait_idle(page)
    page.wait_for_timeout(500)
    cookies = {c["name"]: c["value"] for c in page.context.cookies(base)}
    assert found, "no session id seen on the WebSocket"
    return found[0], cookies.get("_streamlit_xsrf", "")


def _put(base: str, session: str, cookie: str, size: int) -> int:
    """PUT a multipart upload of ``size`` bytes for ``session``, as Streamlit's own client."""
    boundary = uuid.uuid4().hex
    body = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; "
            f"filename=\"x.txt\"\r\nContent-Type: text/plain\r\n\r\n").encode()
    body += b"x" * size + f"\r\n--{boundary}--\r\n".encode()
    connection = http.client.HTTPConnection(urllib.parse.urlsplit(base).netloc, timeout=60)
    connection.putrequest("PUT", f"/_stcore/upload_file/{session}/{uuid.uuid4().hex}")
    for name, value in (("Content-Type", f"multipart/form-data; boundary={boundary}"),
                        ("Content-Length", str(len(body))), ("X-Xsrftoken", cookie),
                        ("Cookie", f"_streamlit_xsrf={cookie}")):
        connection.putheader(name, value)
    connection.endheaders()
    with contextlib.suppress(BrokenPipeError, ConnectionResetError):  # refused early
        connection.send(body)
    try:
        return connection.getresponse().status
    finally:
        connection.close()


@pytest.fixture
def served(tmp_path, collection):
    url = f"sqlite:///{tmp_path / 'doors.db'}"
    engine = open_engine(url)
    with session_scope(engine) as session:
        create_campaign(session, name="doors", scale=LabelScale.binary(), overlap=1,
                        **collection(3, 5))
        token = add_annotator(session, campaign="doors", name="boss", role="admin")
    engine.dispose()
    base, process = start_serve(url, tmp_path / "serve.log")
    yield base, process, token
    stop_app(process)


@pytest.mark.e2e
def test_no_login_no_metrics_no_uploads_but_an_admin_uploads(served):
    from playwright.sync_api import sync_playwright

    base, process, admin_token = served
    assert _status(urllib.request.Request(f"{base}/_stcore/metrics")) == 404
    with sync_playwright() as playwright:
        browser = launch_chromium(playwright)
        try:
            page = browser.new_page()
            session, cookie = _session_and_cookie(page, base, f"{base}/")
            before = _rss_kb(process.pid)
            statuses = [_put(base, session, cookie, 50 * MB) for _ in range(4)]
            time.sleep(1)
            grown = _rss_kb(process.pid) - before
            assert all(400 <= status < 500 for status in statuses), statuses
            assert grown < 40 * 1024, f"the server grew by {grown} kB"
            admin_page = browser.new_page()
            session, cookie = _session_and_cookie(admin_page, base, f"{base}/?token={admin_token}")
            assert _put(base, session, cookie, 1000) == 204  # the door opens for an admin
        finally:
            browser.close()


@pytest.mark.e2e
def test_sigterm_ends_serve_whose_stdout_reader_is_gone(tmp_path):
    port = free_port()
    reader_r, writer = os.pipe()
    serve = subprocess.Popen([sys.executable, "-m", "pooljudge", "serve", "--db",
                              f"sqlite:///{tmp_path / 'pipe.db'}", "--port", str(port)],
                             stdout=writer, stderr=subprocess.DEVNULL)
    os.close(writer)
    head = subprocess.Popen(["head", "-1"], stdin=reader_r, stdout=subprocess.DEVNULL)
    os.close(reader_r)
    try:
        assert head.wait(timeout=90) == 0  # `serve | head -1`: the reader has gone
        deadline = time.monotonic() + 90
        while _status(urllib.request.Request(f"http://127.0.0.1:{port}/_stcore/health")) != 200:
            assert serve.poll() is None and time.monotonic() < deadline
            time.sleep(0.3)
        children = Path(f"/proc/{serve.pid}/task/{serve.pid}/children").read_text().split()
        assert children, "no Streamlit child"
        time.sleep(2)  # Streamlit writes to the closed pipe meanwhile
        started = time.monotonic()
        serve.send_signal(signal.SIGTERM)
        assert serve.wait(timeout=5) == 0
        assert time.monotonic() - started < 5
        for child in children:
            assert not Path(f"/proc/{child}").exists() or "zombie" in Path(
                f"/proc/{child}/status").read_text()
    finally:
        if serve.poll() is None:
            serve.kill()
            serve.wait()
