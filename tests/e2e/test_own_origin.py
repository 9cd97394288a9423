"""No page makes a request to another origin: a whole session (an annotator logs in and judges,
an admin visits every admin page) requests only the app's own address (and data:/blob: URLs).
Chromium's own background traffic is off (tests.support.browser's flags), so every request
seen here is the page's."""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest
from pooljudge.annotate.ui.routes import ROUTES

from tests.support.browser import shown_pair, wait_for_new_pair, wait_idle

ADMIN_PAGES = [route.url_path for route in ROUTES if "admin" in route.roles]


@pytest.fixture
def requests_seen(laptop) -> list[str]:
    seen: list[str] = []
    laptop.on("request", lambda request: seen.append(request.url))
    return seen


def _foreign(urls: list[str], base: str) -> list[str]:
    own = urlsplit(base).netloc
    return sorted({u for u in urls if urlsplit(u).scheme not in ("data", "blob")
                   and urlsplit(u).netloc != own})


def test_a_judging_session_requests_only_the_apps_own_origin(app, laptop, requests_seen):
    _, tokens = app.campaign()
    app.open_as(laptop, tokens["ann"], "/judge")
    pair = shown_pair(laptop)
    laptop.keyboard.press("1")
    wait_for_new_pair(laptop, pair)
    assert requests_seen and _foreign(requests_seen, app.url) == []


@pytest.mark.parametrize("path", ADMIN_PAGES)
def test_every_admin_page_requests_only_the_apps_own_origin(app, laptop, requests_seen, path):
    _, tokens = app.campaign(people=(("boss", "admin"),))
    app.open_as(laptop, tokens["boss"], f"/{path}")
    wait_idle(laptop)
    laptop.wait_for_timeout(500)  # icons and fonts load after the run
    assert requests_seen and _foreign(requests_seen, app.url) == []
