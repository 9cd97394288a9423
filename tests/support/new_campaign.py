"""The New campaign page's test inputs (AppTest and Chromium share them) and the pairs a
campaign stored, to compare a campaign made in the browser with one made by ``pooljudge init``.

Two topics and two runs of depth 2: topic 1 pools d1, d2 (run A) and d3, d4 (run B), topic 2
pools d4, d5 (A) and d6, d4 (B).
"""

from __future__ import annotations

import json

import sqlalchemy as sa
from pooljudge.annotate.store import session_scope
from pooljudge.annotate.store.models import Campaign, Document, Pair, Topic

__all__ = ["DOCS", "RUNS", "TOPICS", "stored_pairs"]

TOPICS = "id\ttitle\tdescription\tnarrative\n1\twidgets\tabout widgets\tn\n2\tgadgets\tg\tn\n"
DOCS = "".join(json.dumps({"id": f"d{i}", "title": f"T{i}", "text": f"text {i}"}) + "\n"
               for i in range(1, 7))
RUNS = {"runA": "1 Q0 d1 1 9 A\n1 Q0 d2 2 8 A\n1 Q0 d3 3 7 A\n2 Q0 d4 1 9 A\n2 Q0 d5 2 8 A\n",
        "runB": "1 Q0 d3 1 9 B\n1 Q0 d4 2 8 B\n1 Q0 d1 3 7 B\n2 Q0 d6 1 9 B\n2 Q0 d4 2 8 B\n"}


def stored_pairs(engine, campaign: str) -> list[tuple]:
    """(topic, document, pool order, best rank, runs) of every pair of ``campaign``, by topic
    and pool order."""
    query = (sa.select(Topic.key, Document.key, Pair.pool_order, Pair.best_rank, Pair.runs)
             .join(Topic, Topic.id == Pair.topic_id).join(Document, Document.id == Pair.document_id)
             .join(Campaign, Campaign.id == Pair.campaign_id).where(Campaign.name == campaign)
             .order_by(Topic.key, Pair.pool_order))
    with session_scope(engine, readonly=True) as session:
        return [tuple(row) for row in session.execute(query).all()]
