"""The judging pane's line about a review topic: what the queue is doing for this document.

A review campaign's topic is ranked by active learning (nothing said), switched to a random
sample by its stopping rule (said, with why), or certified (said: the pair was claimed before).
The text is fixed; the topic id is escaped by :func:`caption_html`.
"""

from __future__ import annotations

import streamlit as st
from pooljudge.annotate import store
from pooljudge.annotate.records import PairView
from pooljudge.annotate.ui.render import caption_html
from sqlalchemy.orm import Session

__all__ = ["notice", "read", "show"]

_SAMPLE = {
    "hypergeometric": "Random sample: this topic's documents now come in random order, to test "
                      "that enough of its relevant documents were found (hypergeometric test).",
    "target": "Random sample: this topic's documents come in random order first, to draw the "
              "target method's sample; ranked review follows.",
    "qbcb": "Random sample: this topic's documents come in random order first, to draw "
            "QBCB's sample; ranked review follows.",
}
_CERTIFIED = "This topic's review is certified; this document was claimed before it was."


def read(session: Session, view: PairView | None) -> tuple[str, str] | None:
    """(rule, phase) of the review topic of the pair on screen; None otherwise."""
    return None if view is None else store.review_status_of(session, pair_id=view.pair_id)


def notice(status: tuple[str, str] | None) -> str | None:
    """The line shown for ``status`` (None: nothing to say)."""
    if status is None:
        return None
    rule, phase = status
    if phase == "sample":
        return _SAMPLE.get(rule)
    return _CERTIFIED if phase == "certified" else None


def show(view: PairView | None, status: tuple[str, str] | None) -> None:
    """Draw the line, naming the pair's topic."""
    text = notice(status)
    if text is not None and view is not None:
        st.html(caption_html(f"Topic {view.topic_id}: {text}", css_class="pj-review"))
