"""Screenshots for the manual (docs/*.png): the judging page, its statistics, the guidelines
gate, the annotators' statistics and the agreement dashboard.

Builds the demo campaign in a temporary folder, lets the two demo annotators judge the first
pairs by a fixed rule (so the statistics have numbers), and photographs:

- ``judging.png`` (1400x900), ``judging-1366x768.png`` and ``judging-1920x1080.png``: ada's
  judging page;
- ``where-i-stand.png``: the top of ada's judging page (progress and "Where I stand");
- ``guidelines.png``: brian's first visit, the guidelines to acknowledge;
- ``annotator-stats.png``: the Overview's "Annotators" section (demo-admin);
- ``agreement.png``: the agreement dashboard.

    python benchmarks/screenshots.py
"""

from __future__ import annotations

import tempfile
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pandas as pd
from pooljudge.annotate import store
from pooljudge.annotate.store import open_engine, session_scope

from pooljudge.cli.demo_cmd import prepare_demo
from tests.support.browser import launch_chromium, start_app, stop_app, wait_idle

DOCS = Path(__file__).resolve().parents[1] / "docs"
CAMPAIGN = "python-docs"
JUDGED = 60


def _judge_some(url: str) -> None:
    """ada and brian judge the first pairs a minute apart, ending now; brian disagrees on every
    fifth and drifts towards 'relevant' in his second half (a deterministic rule)."""
    engine = open_engine(url)
    pool = pd.read_csv(Path(url.removeprefix("sqlite:///")).parent / "collection/pool.tsv",
                       sep="\t", dtype=str).head(JUDGED)
    start = datetime.now(UTC) - timedelta(minutes=2 * JUDGED)
    rows = []
    for i, (t, d, o) in enumerate(zip(pool["topic"], pool["doc"], pool["order"], strict=True)):
        for k, name in enumerate(("ada", "brian")):
            label = int(int(o) <= 4)
            if name == "brian" and (i % 5 == 0 or (i > JUDGED // 2 and i % 3 == 0)):
                label = 1 - label if i % 5 == 0 else 1
            when = start + timedelta(minutes=2 * i + k)
            rows.append((name, t, d, str(label), when.strftime("%Y-%m-%dT%H:%M:%SZ"),
                         str(3 + (7 * i + 3 * k) % 11)))
    frame = pd.DataFrame(rows, columns=["annotator", "topic", "doc", "label", "time", "seconds"])
    with session_scope(engine) as session:
        store.import_judgments(session, campaign=CAMPAIGN, frame=frame, source="human")
        sha = store.guidelines_sha256(store.get_campaign(session, name=CAMPAIGN).guidelines)
        ada = store.annotator_id(session, campaign=CAMPAIGN, name="ada")
        store.acknowledge_guidelines(session, annotator_id=ada, sha256=sha)
    engine.dispose()


def _judging(browser, base: str, token: str) -> None:
    """ada's judging page at three sizes, and the top of it with "Where I stand"."""
    for name, (width, height) in (("judging", (1400, 900)), ("judging-1366x768", (1366, 768)),
                                  ("judging-1920x1080", (1920, 1080))):
        page = browser.new_page(viewport={"width": width, "height": height})
        page.goto(base + token)
        page.wait_for_selector(".pj-doc-body")
        wait_idle(page)
        page.wait_for_timeout(500)
        page.screenshot(path=str(DOCS / f"{name}.png"))
        if width == 1366:
            bottom = page.locator(".pj-standing").bounding_box()
            page.screenshot(path=str(DOCS / "where-i-stand.png"),
                            clip={"x": 0, "y": 0, "width": width,
                                  "height": bottom["y"] + bottom["height"] + 12})
        page.close()


def _section(page, heading: str, name: str) -> None:
    """The viewport from the subheader ``heading`` down, scrolled to the top of the screen
    (Streamlit scrolls its main area, not the window)."""
    title = page.get_by_role("heading", name=heading)
    title.evaluate("el => el.scrollIntoView({block: 'start'})")
    page.wait_for_timeout(500)
    top = max(title.bounding_box()["y"] - 12, 0)
    size = page.viewport_size
    page.screenshot(path=str(DOCS / f"{name}.png"),
                    clip={"x": 0, "y": top, "width": size["width"], "height": size["height"] - top})


def main() -> None:
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as folder:
        url, people = prepare_demo(Path(folder) / "demo")
        _judge_some(url)
        tokens = {p.name: p.path for p in people}
        base, process = start_app(url, Path(folder) / "streamlit.log")
        try:
            with sync_playwright() as playwright:
                browser = launch_chromium(playwright)
                _judging(browser, base, tokens["ada"])
                page = browser.new_page(viewport={"width": 1366, "height": 768})
                page.goto(base + tokens["brian"])
                page.get_by_text("I have read the guidelines").wait_for()
                wait_idle(page)
                page.screenshot(path=str(DOCS / "guidelines.png"))
                page.close()
                page = browser.new_page(viewport={"width": 1400, "height": 1000})
                page.goto(base + "/overview" + tokens["demo-admin"])
                page.get_by_role("heading", name="Annotators").wait_for()
                wait_idle(page)
                page.wait_for_timeout(1500)
                _section(page, "Annotators", "annotator-stats")
                page.goto(base + "/agreement" + tokens["demo-admin"])
                page.get_by_text("Most disagreed pairs").wait_for()
                wait_idle(page)
                page.wait_for_timeout(1000)
                page.screenshot(path=str(DOCS / "agreement.png"), full_page=True)
                browser.close()
        finally:
            stop_app(process)


if __name__ == "__main__":
    main()
