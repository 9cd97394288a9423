"""Driving the app in a real browser: start a server, launch Chromium, wait for Streamlit.

Shared by the browser tests (``tests/e2e``), ``benchmarks/ui_latency.py`` and the screenshot
script. The recipe: Debian's ``/usr/bin/chromium`` through Playwright's Python package
(never ``playwright install``), a server started like ``pooljudge serve``, ``/_stcore/health``
before the first page, and before every action the app idle
(``data-test-script-state="notRunning"``) plus the widget needed.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from pooljudge.annotate.ui.keys import KEYBOARD

from pooljudge.cli.serve_cmd import streamlit_command

__all__ = [
    "CHROMIUM",
    "CHROMIUM_ARGS",
    "DONE_TEXT",
    "IDLE",
    "free_port",
    "launch_chromium",
    "shown_doc",
    "shown_pair",
    "start_app",
    "start_serve",
    "stop_app",
    "wait_for_new_pair",
    "wait_healthy",
    "wait_idle",
    "wait_keys_ready",
]

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = (
    "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic",
)
IDLE = '[data-testid="stApp"][data-test-script-state="notRunning"]'
DONE_TEXT = "Nothing left to judge"


def free_port() -> int:
    """A TCP port free on 127.0.0.1 right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start_app(db_url: str, log: Path, *, timeout: float = 60.0,
              app: Path | None = None) -> tuple[str, subprocess.Popen]:
    """Serve the app (or another Streamlit script ``app``) on ``db_url`` on a free port; its
    base URL once ``/_stcore/health`` is OK.

    Server output goes to ``log``; RuntimeError (with the log) when it exits or stays unhealthy.
    """
    port = free_port()
    env = {**os.environ, "POOLJUDGE_DB": db_url}
    command = streamlit_command("127.0.0.1", port, *([app] if app else []))
    with log.open("w") as handle:
        process = subprocess.Popen(command, env=env,
                                   stdout=handle, stderr=subprocess.STDOUT)
    return wait_healthy(process, f"http://127.0.0.1:{port}", log, timeout), process


def start_serve(db_url: str, log: Path, *, port: int | None = None, timeout: float = 90.0,
                pool_size: int | None = None) -> tuple[str, subprocess.Popen]:
    """Run the real ``pooljudge serve`` command on ``db_url`` (on ``port``, else a free one);
    its base URL once healthy. :func:`stop_app` stops it (SIGTERM, passed on to Streamlit)."""
    port = port or free_port()
    command = [sys.executable, "-m", "pooljudge", "serve", "--db", db_url, "--port", str(port)]
    if pool_size is not None:
        command += ["--pool-size", str(pool_size)]
    with log.open("w") as handle:
        process = subprocess.Popen(command, stdout=handle, stderr=subprocess.STDOUT)
    return wait_healthy(process, f"http://127.0.0.1:{port}", log, timeout), process


def wait_healthy(process: subprocess.Popen, base: str, log: Path, timeout: float) -> str:
    """``base`` once its ``/_stcore/health`` answers 200; RuntimeError (with the log) when the
    process exits first or the deadline passes (the process is then stopped)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the server exited early:\n{log.read_text()}")
        try:
            with urllib.request.urlopen(f"{base}/_stcore/health", timeout=2) as response:
                if response.status == 200:
                    return base
        except OSError:
            time.sleep(0.2)
    stop_app(process)
    raise RuntimeError(f"the server did not become healthy in {timeout:.0f} s:\n"
                       f"{log.read_text()}")


def stop_app(process: subprocess.Popen) -> None:
    """Terminate a server started here (SIGTERM; SIGKILL after 10 s)."""
    process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def launch_chromium(playwright):
    """Headless Debian Chromium with the flags that work in containers and CI."""
    return playwright.chromium.launch(executable_path=CHROMIUM, args=list(CHROMIUM_ARGS),
                                      headless=True)


def wait_idle(page) -> None:
    """Wait until the script run triggered by the last action has finished."""
    page.wait_for_selector(IDLE, state="attached")


def act_and_wait_run(page, act) -> None:
    """Do ``act`` (a callable) and wait until the script run it starts has finished: a key
    whose run starts a moment later (a text box committed by Enter) would otherwise let
    :func:`wait_idle` return before the run began, and the next key would meet a busy page."""
    page.evaluate("""() => {
        window.__pjRan = false;
        new MutationObserver(() => { window.__pjRan = true; }).observe(
            document.querySelector('[data-testid="stApp"]'),
            {attributes: true, attributeFilter: ['data-test-script-state']});
    }""")
    act()
    page.wait_for_function("() => window.__pjRan")
    wait_idle(page)


def wait_keys_ready(page) -> None:
    """Wait until every keyboard shortcut shown on the page is bound, so a key press counts.

    Streamlit binds a button's shortcut (hotkeys-js, ``window.hotkeys``) in a React effect after
    the button is drawn; on a busy machine that came up to a second after the run had finished,
    and a key pressed in between was silently lost (measured with two browsers on two cores).
    The judging page's own keys (:mod:`pooljudge.annotate.ui.keyboard`) count once its script
    listens.
    """
    page.wait_for_function(
        """(scriptKey) => {
            const shown = [...document.querySelectorAll('[aria-label^="Shortcut "]')]
                .map(el => el.getAttribute('aria-label').slice(9).toLowerCase());
            const script = window.__pooljudgeKeyboard;
            if (document.querySelector(`.st-key-${scriptKey}`) && !(script && script.handlers)) {
                return false;
            }
            const gate = window.__pooljudgeGate;  // the judging pane's gate: settled, dwelt
            if (document.querySelector('[data-pj-pair]') && document.querySelector(
                    '.st-key-pj_key_gate') && !(gate && gate.handlers && !gate.pending
                    && gate.shown !== null
                    && performance.now() - gate.shownAt >= gate.minDwell)) {
                return false;
            }
            if (!window.hotkeys) return shown.length === 0;
            const bound = new Set(window.hotkeys.getAllKeyCodes().map(k => k.shortcut));
            return shown.every(key => bound.has(key));
        }""",
        arg=KEYBOARD,
    )


def wait_labels_drawn(page) -> None:
    """Wait until the run is idle and every label button on screen has drawn its text.

    A button's container is attached (and visible) a moment before its Markdown label is
    rendered; measuring in between read an empty name (one CI failure at 1280x720).
    """
    wait_idle(page)
    page.wait_for_function(
        """() => {
            const labels = [...document.querySelectorAll('[class*="st-key-label_"]')];
            return labels.length > 0
                && labels.every(el => el.querySelector('button') && el.innerText.trim() !== '');
        }""")


def shown_doc(page) -> str:
    """The id of the document on the judging page, once its label buttons are ready for keys."""
    page.locator('[class*="st-key-label_"] button').first.wait_for(state="visible")
    wait_labels_drawn(page)
    wait_keys_ready(page)
    text = page.locator(".pj-doc-id").first.inner_text()
    return text.removeprefix("Document ").strip()


def shown_pair(page) -> int:
    """The pair id of the label buttons on screen (their ``st-key-label_<pair>_<value>`` class)."""
    button = page.locator('[class*="st-key-label_"]').first
    button.wait_for(state="visible")
    wait_labels_drawn(page)
    wait_keys_ready(page)
    key = next(c for c in button.get_attribute("class").split() if c.startswith("st-key-label_"))
    return int(key.split("_")[1])


def wait_for_new_pair(page, before: int, *, allow_done: bool = False,
                      timeout: float | None = None) -> int | None:
    """Wait until a pair other than ``before`` is on screen (or, with ``allow_done``, the
    "nothing left" message) and the app is idle; the new pair id, or None when done.

    ``timeout`` (ms) bounds the wait for the change; the page's default timeout otherwise.
    """
    page.wait_for_function(
        """([before, allowDone, done]) => {
            const el = document.querySelector('[class*="st-key-label_"]');
            const key = el && [...el.classList].find(c => c.startsWith('st-key-label_'));
            if (key && Number(key.split('_')[1]) !== before) return true;
            return allowDone && document.body.innerText.includes(done);
        }""",
        arg=[before, allow_done, DONE_TEXT],
        timeout=timeout,
    )
    wait_idle(page)
    if allow_done and page.locator('[class*="st-key-label_"]').count() == 0:
        return None
    return shown_pair(page)
