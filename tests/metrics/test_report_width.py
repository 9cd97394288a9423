"""The HTML report fits a 1366 x 768 screen: real Chromium finds no table (nor the page)
wider than its box, with many long-named runs and measures (wide tables are split)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from pooljudge.metrics.report import collect, render_report

from tests.support.browser import launch_chromium

sync_api = pytest.importorskip("playwright.sync_api")


def _wide_report() -> str:
    rng = np.random.default_rng(7)
    topics = [str(t) for t in range(1, 31)]
    qrels = pd.DataFrame([(t, f"d{d}", int(rng.integers(0, 3))) for t in topics
                          for d in rng.choice(60, 25, replace=False)],
                         columns=["topic", "doc", "label"])
    runs = {f"input.NLPR03vb10-system-{i:02d}": pd.DataFrame(
        [(t, f"d{d}", float(s)) for t in topics
         for s, d in enumerate(rng.choice(60, 30, replace=False))],
        columns=["topic", "doc", "score"]) for i in range(18)}
    data = collect(qrels, runs, ["AP", "nDCG@10", "P@10", "R@100", "RBP(p=0.8)"],
                   pool_depth=10)
    return render_report(data)


def test_no_table_scrolls_sideways_at_1366_pixels(tmp_path):
    page_file = tmp_path / "report.html"
    page_file.write_text(_wide_report(), encoding="utf-8")
    with sync_api.sync_playwright() as playwright:
        browser = launch_chromium(playwright)
        try:
            page = browser.new_page(viewport={"width": 1366, "height": 768})
            page.goto(page_file.as_uri())
            page.evaluate("document.querySelectorAll('details').forEach(d => d.open = true)")
            widths = page.evaluate(
                "[document.documentElement.scrollWidth, document.documentElement.clientWidth]")
            boxes = page.evaluate(
                "Array.from(document.querySelectorAll('div.scroll')).map(d => "
                "[d.closest('section').id, d.scrollWidth, d.clientWidth])")
        finally:
            browser.close()
    assert widths[0] <= widths[1] == 1366
    assert len(boxes) > 10  # every section's tables were measured, per-topic ones open
    assert [box for box in boxes if box[1] > box[2]] == []
