"""The RAG walkthrough's screenshot (docs/guides/logs-rag.md), ``docs/rag-report.png``.

Runs ``docs/rag_walkthrough.sh`` in a temporary folder and photographs its ``report.html`` in
headless Chromium, 1366 pixels wide: the title, the warnings (the regression on top), the means
per run, the "Per group" section and "Latency and precision". The sections in between (RBP
intervals, precision–recall curves, per-topic scores) are hidden for the picture only; the page
itself is unchanged.

    PATH=.venv/bin:$PATH PYTHONPATH=. python benchmarks/rag_screenshot.py
"""

from __future__ import annotations

import subprocess
import tempfile
from pathlib import Path

from tests.support.browser import launch_chromium

ROOT = Path(__file__).resolve().parents[1]
SHOWN = ("warnings", "means", "groups", "latency")


def main() -> None:
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as folder:
        subprocess.run(["bash", str(ROOT / "docs" / "rag_walkthrough.sh"), folder], check=True,
                       stdout=subprocess.DEVNULL)
        with sync_playwright() as playwright:
            browser = launch_chromium(playwright)
            page = browser.new_page(viewport={"width": 1366, "height": 900})
            page.goto((Path(folder) / "report.html").as_uri())
            page.evaluate("""(shown) => {
                for (const s of document.querySelectorAll('section')) {
                    if (!shown.includes(s.id)) s.style.display = 'none';
                }
            }""", list(SHOWN))
            page.screenshot(path=str(ROOT / "docs" / "rag-report.png"), full_page=True)
            browser.close()


if __name__ == "__main__":
    main()
