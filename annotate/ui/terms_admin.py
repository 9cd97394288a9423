"""Highlight terms page (admins): set a campaign's highlight terms, topic by topic.

A topic selector, a text area with the topic's terms one per line (a line of several words is
a phrase) and Save, which replaces the topic's terms in one transaction (as ``pooljudge
campaigns terms`` does for the topics of a file): a bad line (blank is skipped; too long,
control characters, more than ``MAX_TERMS``) refuses the whole text and says which line.
Annotators see the new terms within a minute (their page keeps a topic's terms that long, see
:mod:`pooljudge.annotate.ui.judge_terms`); their own terms are theirs and not shown here.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st
from pooljudge.annotate import store
from pooljudge.annotate.records import CampaignInfo
from pooljudge.annotate.store import session_scope
from pooljudge.annotate.ui import session as login_state
from pooljudge.annotate.ui.render import md_escape
from pooljudge.annotate.ui.tables import MISSING, show_table
from sqlalchemy import Engine

from pooljudge.errors import InputError, StorageError
from pooljudge.formats.terms import MAX_TERM_LENGTH, MAX_TERMS, clean_term

__all__ = ["TERMS_FLASH", "TERMS_SAVE", "TERMS_TOPIC", "parse_lines", "render_terms",
           "terms_text_key"]

TERMS_TOPIC = "terms_topic"        # the topic selector
TERMS_SAVE = "terms_save"          # the Save button
TERMS_FLASH = "pj_terms_admin_flash"  # session state: (kind, message) of the last save


def terms_text_key(campaign_id: int, topic: str) -> str:
    """The text area of one topic of one campaign (a fresh widget per topic)."""
    return f"terms_text_{campaign_id}_{topic}"


def parse_lines(text: str) -> list[str]:
    """The terms of ``text``, one per non-blank line, cleaned (:func:`clean_term`) and each
    kept once; InputError naming the line of a bad one."""
    terms: dict[str, None] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        if line.strip():
            try:
                terms.setdefault(clean_term(line), None)
            except InputError as exc:
                raise InputError(exc.message, path="terms", line=number) from None
    return list(terms)


def render_terms(engine: Engine, campaign: CampaignInfo) -> None:
    """The page: a table of every topic's terms, and the editor of one topic's."""
    with session_scope(engine, readonly=True) as session:
        terms = store.campaign_terms(session, campaign=campaign.name)
    texts = "title, description and narrative" if campaign.highlight_narrative \
        else "title and description"
    st.caption(f"Documents are marked with the words and quoted phrases of each topic's {texts}, "
               "the terms set here, and each annotator's own terms.")
    _show_outcome()
    if not terms:
        st.info("This campaign has no topics.")
        return
    listed = [" · ".join(t) or None for t in terms.values()]
    show_table(pd.DataFrame({"topic": list(terms), "terms": listed}),
               {"topic": "Topic", "terms": "Terms"},
               helps={"terms": f"the terms set here ({MISSING}: none; the topic's own words "
                               "still mark the documents)"})
    topic = st.selectbox("Topic", list(terms), key=TERMS_TOPIC)
    key = terms_text_key(campaign.id, topic)
    st.session_state.setdefault(key, "\n".join(terms[topic]))  # the stored terms, until edited
    st.text_area(f"Terms of topic {md_escape(topic)}, one per line (at most {MAX_TERMS}, each "
                 f"at most {MAX_TERM_LENGTH} characters; several words make a phrase)",
                 key=key, height=200)
    st.button("Save", key=TERMS_SAVE, type="primary", on_click=_save,
              args=(engine, campaign.name, topic, key))


def _show_outcome() -> None:
    if flash := st.session_state.pop(TERMS_FLASH, None):
        kind, message = flash
        (st.error if kind == "error" else st.success)(md_escape(message))


def _save(engine: Engine, campaign: str, topic: str, key: str) -> None:
    """Replace the topic's terms with the text area's lines (all or nothing)."""
    state = st.session_state
    try:
        lines = parse_lines(state.get(key) or "")
        with login_state.write(engine, campaign=campaign, allowed=("admin",)) as (session, _):
            count = store.set_topic_terms(session, campaign=campaign, terms={topic: lines})
    except InputError as exc:
        state[TERMS_FLASH] = ("error", f"Nothing was saved: {exc}")
        return
    except StorageError:
        state[TERMS_FLASH] = ("error", "Nothing was saved: the database could not store it.")
        return
    state[key] = "\n".join(lines)  # the editor shows the terms as stored
    state[TERMS_FLASH] = ("success", f"Saved {count} terms for topic {topic}.")
