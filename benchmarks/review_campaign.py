"""A review campaign for ``pane_latency.py --review N``: one topic over N generated documents
(random words from a 5,000-word vocabulary, 120 words each, so that tf-idf and the active
learner have real work), and a watcher that counts the retrains made while the pane is timed.
"""

from __future__ import annotations

import threading

import numpy as np
import pandas as pd
from pooljudge.annotate import store
from pooljudge.annotate.campaigns import CampaignSettings
from pooljudge.annotate.records import LabelScale
from pooljudge.annotate.review import create_review
from pooljudge.annotate.store import open_engine, session_scope

__all__ = ["RetrainWatcher", "review_campaign"]


def review_campaign(url: str, documents: int, annotators: int) -> str:
    """Create the review campaign ``bench`` (hypergeometric rule, target 0.95) with
    ``annotators`` people; the judging person's token."""
    rng = np.random.default_rng(0)
    vocabulary = np.array([f"w{i}" for i in range(5_000)])
    words = vocabulary[rng.zipf(1.3, (documents, 120)) % len(vocabulary)]
    docs = pd.DataFrame({"id": [f"d{i}" for i in range(documents)], "title": "A document",
                         "text": [" ".join(row) for row in words]})
    topics = pd.DataFrame({"id": ["1"], "title": "w17 w42 w99", "description": "Timing.",
                           "narrative": "Anything."})
    settings = CampaignSettings(name="bench", scale=LabelScale.binary(), overlap=1)
    engine = open_engine(url)
    create_review(engine, settings, topics=topics, documents=docs, rule="hypergeometric",
                  recall=0.95, alpha=0.05)
    with session_scope(engine) as session:
        for i in range(annotators - 1):
            store.add_annotator(session, campaign="bench", name=f"sim{i}")
        token = store.add_annotator(session, campaign="bench", name="me")
    engine.dispose()
    return token


class RetrainWatcher:
    """Polls the topic's stored ranking every 0.2 s from its own connection: how many new
    rankings (retrains written) appeared while it ran."""

    def __init__(self, url: str) -> None:
        self._engine = open_engine(url)
        self._stop = threading.Event()
        self.trained_on: list[int] = []
        self._thread = threading.Thread(target=self._poll, daemon=True)

    def __enter__(self) -> RetrainWatcher:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(10)
        self._engine.dispose()

    def _poll(self) -> None:
        while not self._stop.wait(0.2):
            with session_scope(self._engine, readonly=True) as session:
                campaign_id = store.get_campaign(session, name="bench").id
                states = store.review_topics(session, campaign_id=campaign_id)
            counts = {state.ranked_count for state in states}
            self.trained_on += sorted(counts - set(self.trained_on))
