"""Key press -> next document visible, in the real browser, with many judgments already stored.

A campaign of ``--pairs`` pairs (overlap ``--annotators`` + 1, so each pair keeps a slot for the
person) gets ``--preload`` judgments from ``--annotators`` simulated annotators through the
store's bulk path (``store.import_judgments``), then one person judges ``--n`` pairs with the
keyboard in Chromium. For each press, the time from the key event to the next pair's document
being visible is recorded; p50 and p95 are printed with the judgments stored. In the same run,
the same presses on a bare Streamlit page (``streamlit_floor_app.py``: no database, nothing but
a counter) give Streamlit's own floor, and the ratio pooljudge / bare is printed.
Goal: p95 under 300 ms with 1,000,000 judgments stored, on SQLite and PostgreSQL.

    python benchmarks/ui_latency.py [--db URL] [--preload 1000000] [--n 50]

PostgreSQL: pass an empty database, e.g. ``postgresql+psycopg://postgres@127.0.0.1:5432/NAME``.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd
from pooljudge.annotate import store
from pooljudge.annotate.records import LabelScale
from pooljudge.annotate.store import open_engine, session_scope

from tests.support.browser import (
    launch_chromium,
    shown_doc,
    shown_pair,
    start_app,
    stop_app,
    wait_idle,
)

FLOOR_APP = Path(__file__).with_name("streamlit_floor_app.py")


def _campaign(url: str, pairs: int, preload: int, annotators: int) -> str:
    """Create the campaign and bulk-load ``preload`` judgments; the judging person's token."""
    engine = open_engine(url)
    docs = pd.DataFrame({"id": [f"d{i}" for i in range(pairs)], "title": "A document",
                         "text": "Some text about latency and widgets. " * 40})
    topics = pd.DataFrame({"id": ["1"], "title": "widgets latency",
                           "description": "Timing.", "narrative": "Anything."})
    pool = pd.DataFrame({"topic": "1", "doc": docs["id"], "order": np.arange(1, pairs + 1),
                         "best_rank": np.arange(1, pairs + 1), "runs": "r"})
    names = [f"sim{i}" for i in range(annotators)]
    with session_scope(engine) as session:
        store.create_campaign(session, name="bench", scale=LabelScale.binary(),
                              overlap=annotators + 1, topics=topics, documents=docs, pool=pool)
        for name in names:
            store.add_annotator(session, campaign="bench", name=name)
        token = store.add_annotator(session, campaign="bench", name="me")
    rng = np.random.default_rng(0)
    per = preload // annotators
    for start in range(0, per, 200_000):
        stop = min(start + 200_000, per)
        frame = pd.DataFrame({
            "annotator": np.repeat(names, stop - start),
            "topic": "1", "doc": np.tile(docs["id"].to_numpy()[start:stop], annotators),
            "label": rng.integers(0, 2, (stop - start) * annotators)})
        with session_scope(engine) as session:
            store.import_judgments(session, campaign="bench", frame=frame, source="import")
    engine.dispose()
    return token


# True once the label buttons of a pair other than ``before`` are visible and the document shown
# above them is a new one: its id differs from the id shown before the key press, in an element
# that is not stale (Streamlit keeps the last run's elements, marked ``data-stale``, until it
# replaces them). Every pair of the benchmark campaign has a document of its own (one topic).
_NEW_DOC_VISIBLE = """([beforePair, beforeDoc]) => {
    const el = document.querySelector('[class*="st-key-label_"]');
    const key = el && [...el.classList].find(c => c.startsWith('st-key-label_'));
    if (!key || Number(key.split('_')[1]) === beforePair || !el.checkVisibility()) return false;
    const doc = document.querySelector('.pj-doc-id');
    return doc !== null && doc.checkVisibility() && !doc.closest('[data-stale="true"]')
        && doc.innerText.trim().replace(/^Document\\s+/, '') !== beforeDoc;
}"""


def measure(url: str, token: str, n: int, log: Path, app: Path | None = None) -> np.ndarray:
    """Milliseconds from each key press to the next pair visible, over ``n`` presses.

    The clock stops when the next pair's document is on screen, its id different from the one
    shown before the press (polled every animation frame); the wait for the script run to
    finish comes after, outside the timing, so the next press never lands on a running script
    (where the double-write guard would rightly ignore it).
    """
    from playwright.sync_api import sync_playwright

    base, process = start_app(url, log, app=app)
    try:
        with sync_playwright() as playwright:
            browser = launch_chromium(playwright)
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.goto(f"{base}/?token={token}")
            pair, times = shown_pair(page), []
            wait_idle(page)  # a key pressed during the first run acts on stale state
            for i in range(n + 3):  # the first three warm the caches and are not counted
                doc = shown_doc(page)  # also waits until the label shortcuts are bound
                started = time.perf_counter()
                page.keyboard.press("1" if i % 3 else "0")
                page.wait_for_function(_NEW_DOC_VISIBLE, arg=[pair, doc], polling="raf")
                if i >= 3:
                    times.append(time.perf_counter() - started)
                wait_idle(page)
                pair = shown_pair(page)
            browser.close()
    finally:
        stop_app(process)
    return np.array(times) * 1000


def _judgment_rows(url: str) -> int:
    """Judgment rows stored in the benchmark campaign (every kind and version)."""
    engine = open_engine(url)
    with session_scope(engine, readonly=True) as session:
        rows = store.campaign_summary(session, campaign="bench")["judgment_rows"]
    engine.dispose()
    return int(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", help="database URL of an empty database "
                                     "(default: a temporary SQLite file)")
    parser.add_argument("--preload", type=int, default=1_000_000)
    parser.add_argument("--pairs", type=int, default=250_000)
    parser.add_argument("--annotators", type=int, default=4)
    parser.add_argument("--n", type=int, default=50)
    parser.add_argument("--no-baseline", dest="baseline", action="store_false",
                        help="skip the bare-Streamlit page measured after pooljudge")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        url = args.db or f"sqlite:///{Path(folder) / 'bench.db'}"
        started = time.perf_counter()
        token = _campaign(url, args.pairs, args.preload, args.annotators)
        before = _judgment_rows(url)
        print(f"preloaded {before:,} judgments in {time.perf_counter() - started:.0f} s",
              flush=True)
        ms = measure(url, token, args.n, Path(folder) / "streamlit.log")
        after = _judgment_rows(url)
        floor = (measure(url, token, args.n, Path(folder) / "floor.log", app=FLOOR_APP)
                 if args.baseline else None)
    p50, p95 = np.percentile(ms, 50), np.percentile(ms, 95)
    print(f"{url.split(':')[0]}: key -> next document over {len(ms)} judgments "
          f"({before:,} judgments stored before, {after:,} after): "
          f"p50 {p50:.0f} ms, p95 {p95:.0f} ms (goal p95 < 300 ms)")
    if floor is not None:
        f50, f95 = np.percentile(floor, 50), np.percentile(floor, 95)
        print(f"bare Streamlit page, same browser and flags: p50 {f50:.0f} ms, p95 {f95:.0f} ms; "
              f"pooljudge / bare: p50 {p50 / f50:.2f}x, p95 {p95 / f95:.2f}x")


if __name__ == "__main__":
    main()
