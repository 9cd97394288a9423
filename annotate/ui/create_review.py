"""The New campaign page's review choice: a high-recall review over the uploaded collection.

Chosen as the queue ``review``: every uploaded document is judged for every topic, queued by
continuous active learning and stopped per topic by a rule that certifies recall (as
``pooljudge init --review``, :func:`pooljudge.annotate.review.create_review`). Runs, if
uploaded, seed the first ranking; a ready pool is refused. The form's review inputs (stopping
rule, target recall, alpha) are always drawn (a form cannot redraw on a choice) and read only
for a review.
"""

from __future__ import annotations

from collections.abc import Sequence

import streamlit as st
from pooljudge.annotate import store
from pooljudge.annotate.campaigns import CampaignSettings
from pooljudge.annotate.links import login_link
from pooljudge.annotate.records import STOP_RULES
from pooljudge.annotate.review import create_review
from pooljudge.annotate.ui import session as login_state
from pooljudge.annotate.ui.people import Link, app_address
from pooljudge.annotate.ui.uploads import (
    read_uploaded_documents,
    read_uploaded_runs,
    read_uploaded_topics,
)
from sqlalchemy import Engine

from pooljudge.errors import InputError

__all__ = ["REVIEW_HELP", "REVIEW_QUEUE", "create_review_from_uploads", "review_inputs"]

REVIEW_QUEUE = "review"
REVIEW_HELP = ("high-recall review — every document for every topic, ranked by active "
               "learning, each topic stopped by the rule below with a certificate (runs "
               "optional: they seed the first ranking; no pool)")
CREATE_STOP = "create_stop"  # the form's stopping rule of a review
CREATE_RECALL = "create_recall"  # its target recall
CREATE_ALPHA = "create_alpha"  # its alpha


def review_inputs() -> dict:
    """The review's stopping rule, target recall and alpha (keywords of create_review)."""
    left, middle, right = st.columns(3)
    rule = left.selectbox("Review only: stopping rule", STOP_RULES, key=CREATE_STOP,
                          help="hypergeometric, target and qbcb certify recall (guarantees); knee, "
                               "quant and quantci are heuristics")
    recall = middle.number_input("Review only: target recall", min_value=0.01, max_value=0.99,
                                 value=0.95, step=0.01, key=CREATE_RECALL)
    alpha = right.number_input("Review only: alpha (1 − confidence)", min_value=0.01,
                               max_value=0.99, value=0.05, step=0.01, key=CREATE_ALPHA)
    return {"rule": rule, "recall": float(recall), "alpha": float(alpha)}


def create_review_from_uploads(engine: Engine, settings: CampaignSettings, *, review: dict,
                               topics, documents: Sequence, runs: Sequence, pool=None,
                               creator: str | None = None) -> list[Link]:
    """Read the uploads and store the review in one transaction; the people's links.
    ``creator`` as for :func:`pooljudge.annotate.ui.create.create_from_uploads`. InputError
    (nothing stored) for a missing input, a pool, a bad file or an existing name."""
    if not settings.name or topics is None or not documents:
        raise InputError("a review needs a name, topics and documents")
    if pool is not None:
        raise InputError("a review judges every document for every topic: no pool file")
    address = app_address()
    inputs = {"topics": read_uploaded_topics(topics),
              "documents": read_uploaded_documents(documents),
              "runs": read_uploaded_runs(runs) if runs else None, **review}
    if creator is None:
        created = create_review(engine, settings, **inputs)
    else:
        with login_state.write(engine, campaign=creator, allowed=("admin",)) as (session, me):
            created = create_review(session, settings, **inputs)
            store.grant_role(session, annotator_id=me.id, campaign=settings.name, role="admin")
    return [(role, name, login_link(address, token)) for role, name, token in created.people]
