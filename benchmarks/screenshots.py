"""Screenshots of the judging page and the agreement dashboard for the README (docs/*.png).

Builds the demo campaign in a temporary folder, lets the two demo annotators judge the first
topic's pairs by a fixed rule (so the dashboard has numbers), and photographs both pages.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import pandas as pd

from annotate import store
from annotate.db import open_engine, session_scope
from annotate.ui.browser import launch_chromium, start_app, stop_app, wait_idle
from pooljudge.cli.demo_cmd import prepare_demo

DOCS = Path(__file__).resolve().parents[1] / "docs"


def _judge_some(url: str) -> None:
    """ada and brian judge 40 pairs; brian disagrees on every fifth (a deterministic rule)."""
    engine = open_engine(url)
    with session_scope(engine) as session:
        pool = pd.read_csv(Path(url.removeprefix("sqlite:///")).parent / "collection/pool.tsv",
                           sep="\t", dtype=str).head(40)
        rows = [(name, t, d, int(int(o) <= 4) ^ int(name == "brian" and i % 5 == 0))
                for name in ("ada", "brian")
                for i, (t, d, o) in enumerate(zip(pool["topic"], pool["doc"], pool["order"],
                                                  strict=True))]
        frame = pd.DataFrame(rows, columns=["annotator", "topic", "doc", "label"])
        store.import_judgments(session, campaign="python-docs", frame=frame, source="human")
    engine.dispose()


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
                page = browser.new_page(viewport={"width": 1400, "height": 900})
                page.goto(base + tokens["ada"])
                page.wait_for_selector(".pj-doc-body")
                wait_idle(page)
                page.screenshot(path=str(DOCS / "judging.png"))
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
