"""A team on several servers: three ``pooljudge serve`` processes on one fresh PostgreSQL
database, three Chromiums judging at once with the keyboard (two of them the same annotator, on
different servers), and the same through nginx and Caddy run with the shipped ``deploy/``
configurations (each skipped when its proxy is not installed).

Rules checked: every acknowledged key press (the page said "Saved") is stored exactly once; no
pair is judged twice by one annotator nor by more than the overlap; no page ever shows a
Streamlit exception and no server logs a traceback. The two tabs of one annotator press
different digits, so each stored label names the tab that stored it.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout
from pooljudge.annotate.store import open_engine

from tests.e2e.conftest import App
from tests.support.browser import (
    CHROMIUM,
    DONE_TEXT,
    free_port,
    launch_chromium,
    shown_pair,
    start_serve,
    stop_app,
    wait_for_new_pair,
    wait_healthy,
)
from tests.support.postgres import PG_SERVER, create_pg_database, drop_pg_database

pytestmark = pytest.mark.postgres

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"
NGINX_CONF = DEPLOY / "nginx.conf"
CADDYFILE = DEPLOY / "Caddyfile"
PACKAGES = {"nginx": "nginx-light", "caddy": "caddy"}
EXCEPTION = '[data-testid="stException"]'
TIMEOUT_MS = 30_000
FIRST_PAGE_MS = 120_000
OVERLAP = 2




@dataclass
class Team:
    """Three servers on one database, and the store helpers of the e2e conftest."""

    urls: list[str]
    app: object
    logs: list[Path]


@pytest.fixture(scope="module")
def team(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Team]:
    if not os.access(CHROMIUM, os.X_OK):
        pytest.fail(f"{CHROMIUM} is missing: apt-get install -y chromium")
    name = create_pg_database("pooljudge_team")
    url = PG_SERVER.format(database=name)
    engine = open_engine(url)
    folder = tmp_path_factory.mktemp("team")
    servers: list[subprocess.Popen] = []
    try:
        urls, logs = [], [folder / f"serve{i}.log" for i in range(3)]
        for log in logs:
            base, process = start_serve(url, log, pool_size=3)
            urls.append(base)
            servers.append(process)
        yield Team(urls, App(urls[0], engine), logs)
    finally:
        for process in servers:
            stop_app(process)
        engine.dispose()
        drop_pg_database(name)


@dataclass
class Tab:
    """One browser judging as ``person`` on ``url``, pressing ``digit`` on every pair."""

    person: str
    url: str
    digit: str
    saved: list[int] = field(default_factory=list)  # pairs the page acknowledged
    refused: list[int] = field(default_factory=list)  # pairs the page said were not saved
    errors: list[str] = field(default_factory=list)


def _stored(app, campaign: str) -> list[tuple[str, int, int, int]]:
    """(annotator, pair id, label, version) of every judgment row, read with plain SQL."""
    with app.engine.connect() as connection:
        rows = connection.exec_driver_sql(
            "SELECT a.name, j.pair_id, j.label, j.version FROM judgment j "
            "JOIN annotator a ON a.id = j.annotator_id JOIN campaign c ON c.id = a.campaign_id "
            "WHERE c.name = %(campaign)s ORDER BY j.id", {"campaign": campaign}).all()
    return [tuple(row) for row in rows]


def _press(app, campaign: str, tab: Tab, page, pair: int) -> int | None:
    """Press the tab's digit on ``pair``; the next pair (None when done).

    A key press can be lost on a busy machine (see test_judging_browser). It is repeated after
    8 s with ``pair`` still on screen only when this tab's press cannot have been stored: no
    row of (person, pair) at all, or one with the other tab's label. A repeat can never hide a
    double write: the final checks count every row.
    """
    for _attempt in range(4):
        page.keyboard.press(tab.digit)
        try:
            return wait_for_new_pair(page, pair, allow_done=True, timeout=8_000)
        except PlaywrightTimeout:  # decide from the database
            mine = [r for r in _stored(app, campaign) if r[:2] == (tab.person, pair)]
            if mine and mine[0][2] == int(tab.digit):
                return wait_for_new_pair(page, pair, allow_done=True)
    raise AssertionError(f"{tab.person}@{tab.url}: four presses on pair {pair} changed nothing")


def _judge(app, campaign: str, token: str, tab: Tab) -> None:
    """Judge until the page says nothing is left, noting what each press was told."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = launch_chromium(playwright)
        page = browser.new_page()
        page.set_default_timeout(TIMEOUT_MS)
        try:
            page.goto(f"{tab.url}/?token={token}")
            # the first page of a cold server takes long on a busy machine (16 s measured alone)
            page.locator(".pj-doc-id").or_(page.get_by_text(DONE_TEXT)).first.wait_for(
                timeout=FIRST_PAGE_MS)
            current = shown_pair(page) if page.locator(".pj-doc-id").count() else None
            while current is not None:
                following = _press(app, campaign, tab, page, current)
                body = page.inner_text("body")
                if page.locator(EXCEPTION).count():
                    tab.errors.append(f"exception on the page after pair {current}: {body}")
                if "Saved label" in body:
                    tab.saved.append(current)
                elif "Not saved" in body:
                    tab.refused.append(current)
                elif following is None:  # the done page shows no message: ask the store
                    rows = [r for r in _stored(app, campaign) if r[:2] == (tab.person, current)]
                    if rows and rows[0][2] == int(tab.digit):
                        tab.saved.append(current)
                else:
                    tab.errors.append(f"no message after pressing on pair {current}: {body}")
                current = following
        except Exception as exc:  # reported by the main thread
            tab.errors.append(f"{type(exc).__name__}: {exc}")
        finally:
            browser.close()


def _judge_at_once(app, campaign: str, tokens: dict[str, str], tabs: list[Tab]) -> None:
    threads = [threading.Thread(target=_judge, args=(app, campaign, tokens[t.person], t))
               for t in tabs]  # Playwright's sync API is bound to its thread
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=240)
    assert not any(thread.is_alive() for thread in threads), "a browser never finished"
    assert [e for t in tabs for e in t.errors] == []


def _check_store(app, campaign: str, tabs: list[Tab], pairs: int) -> None:
    rows = _stored(app, campaign)
    assert all(version == 1 for *_, version in rows)
    judged = [(person, pair) for person, pair, *_ in rows]
    assert len(judged) == len(set(judged)), "a pair was judged twice by one annotator"
    per_pair: dict[int, int] = {}
    for _person, pair in judged:
        per_pair[pair] = per_pair.get(pair, 0) + 1
    assert len(per_pair) == pairs and max(per_pair.values()) <= OVERLAP
    assert len(rows) == pairs * OVERLAP  # everyone finished: every pair got its K judgments
    for tab in tabs:  # acknowledged presses are exactly this tab's rows, each once
        assert len(tab.saved) == len(set(tab.saved))
        mine = {pair for person, pair, label, _ in rows
                if person == tab.person and label == int(tab.digit)}
        assert set(tab.saved) == mine, (tab.person, tab.digit, tab.saved, sorted(mine))


def _check_logs(logs: list[Path]) -> None:
    for log in logs:
        assert "Traceback" not in log.read_text(), log.read_text()


def test_three_servers_two_tabs_of_one_annotator(team: Team) -> None:
    campaign, tokens = team.app.campaign(people=(("x", "annotator"), ("y", "annotator")),
                                         overlap=OVERLAP, topics=2)
    tabs = [Tab("x", team.urls[0], "1"), Tab("x", team.urls[1], "0"), Tab("y", team.urls[2], "1")]
    _judge_at_once(team.app, campaign, tokens, tabs)
    _check_store(team.app, campaign, tabs, pairs=12)
    assert tabs[2].refused == []  # one tab alone is never told "not saved"
    _check_logs(team.logs)


def _nginx_config(folder: Path, ports: list[int], listen: int) -> Path:
    """A top-level nginx configuration that includes the shipped ``deploy/nginx.conf`` with
    its three upstream ports and its listen port replaced by the test's."""
    site = NGINX_CONF.read_text()
    for shipped, port in zip((8501, 8502, 8503), ports, strict=True):
        site = site.replace(f"127.0.0.1:{shipped} ", f"127.0.0.1:{port} ")
    site, listens = re.subn(r"listen 8080;", f"listen 127.0.0.1:{listen};", site)
    assert listens == 1 and all(f":{p} " in site for p in ports)
    (folder / "pooljudge.conf").write_text(site)
    temp = " ".join(f"{kind}_temp_path {folder / kind};"
                    for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"))
    user = "user root;" if os.geteuid() == 0 else ""
    (folder / "nginx.conf").write_text(
        f"{user} daemon off; worker_processes 1; pid {folder / 'nginx.pid'};\n"
        f"error_log {folder / 'error.log'};\nevents {{ worker_connections 256; }}\n"
        f"http {{ access_log {folder / 'access.log'}; {temp}\n"
        f"include {folder / 'pooljudge.conf'}; }}\n")
    return folder / "nginx.conf"


def _binary(name: str) -> str:
    found = shutil.which(name) or next(
        (p for p in (f"/usr/sbin/{name}", f"/usr/bin/{name}") if os.access(p, os.X_OK)), None)
    if found is None:
        pytest.skip(f"{name} is not installed (apt-get install -y {PACKAGES[name]})")
    return found


def _caddy_config(folder: Path, ports: list[int], listen: int) -> Path:
    """The shipped ``deploy/Caddyfile`` with the test's ports, its admin endpoint off."""
    site = CADDYFILE.read_text()
    for shipped, port in zip((8501, 8502, 8503), ports, strict=True):
        site = site.replace(f"127.0.0.1:{shipped}", f"127.0.0.1:{port}")
    site, listens = re.subn(r"^:8080 \{", f"http://127.0.0.1:{listen} {{", site, flags=re.M)
    assert listens == 1 and all(f":{p}" in site for p in ports)
    (folder / "Caddyfile").write_text("{\n\tadmin off\n}\n\n" + site)
    return folder / "Caddyfile"


def _start_proxy(kind: str, team: Team, folder: Path) -> tuple[int, subprocess.Popen]:
    listen, ports = free_port(), [int(u.rsplit(":", 1)[1]) for u in team.urls]
    log = folder / "proxy.log"
    if kind == "nginx":
        binary, config = _binary("nginx"), _nginx_config(folder, ports, listen)
        options = ["-c", str(config), "-p", str(folder), "-e", str(folder / "error.log")]
        checked = subprocess.run([binary, "-t", *options], capture_output=True, text=True,
                                 check=False)
        assert checked.returncode == 0, checked.stderr
        command = [binary, *options]
    else:
        config = _caddy_config(folder, ports, listen)
        command = [_binary("caddy"), "run", "--config", str(config), "--adapter", "caddyfile"]
    with log.open("w") as handle:
        process = subprocess.Popen(command, stdout=handle, stderr=subprocess.STDOUT,
                                   env={**os.environ, "HOME": str(folder),
                                        "XDG_DATA_HOME": str(folder)})
    return listen, process


@pytest.fixture(params=["nginx", "caddy"])
def proxy(request, team: Team, tmp_path: Path) -> Iterator[str]:
    """The shipped proxy configuration (deploy/) in front of the three servers; its URL."""
    listen, process = _start_proxy(request.param, team, tmp_path)
    try:
        yield wait_healthy(process, f"http://127.0.0.1:{listen}", tmp_path / "proxy.log", 30)
    finally:
        stop_app(process)


def test_judging_through_the_shipped_proxy_config(team: Team, proxy: str) -> None:
    campaign, tokens = team.app.campaign(people=(("p", "annotator"), ("q", "annotator")),
                                         overlap=OVERLAP, topics=1)
    tabs = [Tab("p", proxy, "1"), Tab("p", proxy, "0"), Tab("q", proxy, "1")]
    _judge_at_once(team.app, campaign, tokens, tabs)
    _check_store(team.app, campaign, tabs, pairs=6)
    _check_logs(team.logs)
