"""Guidelines first: the judging page's gate, and the admins' editor of a campaign's guidelines.

Gate (:func:`gate`): on a person's first visit to the judging page, and again after the
guidelines changed, the page shows the whole guidelines, open and escaped, with one button,
"I have read the guidelines" (its key is Enter), and no pair: nothing is claimed until the
button is pressed. The press stores an acknowledgement of the text shown (by its SHA-256,
:func:`pooljudge.annotate.store.acknowledge_guidelines`); the guidelines then live in the sidebar's
expander. Every role that opens the judging page passes the same gate (an admin or adjudicator
who judges reads them too). Blank guidelines need no acknowledgement.

Editor (:func:`render_editor`): a text area and Save; saving a changed text makes every
annotator acknowledge it again, and a table shows who has read the current text.
"""

from __future__ import annotations

import streamlit as st
from pooljudge.annotate import store
from pooljudge.annotate.records import ANNOTATOR_ROLES, AnnotatorInfo, CampaignInfo
from pooljudge.annotate.store import session_scope
from pooljudge.annotate.ui import session as login_state
from pooljudge.annotate.ui.render import md_escape, text_html
from pooljudge.annotate.ui.tables import MISSING, show_table
from sqlalchemy import Engine

from pooljudge.errors import InputError, StorageError

__all__ = ["ACK", "ACK_KEY_NAME", "GATE_FLASH", "SAVE", "editor_key", "gate", "render_editor"]

ACK = "guidelines_ack"              # the "I have read the guidelines" button
ACK_KEY_NAME = "Enter"              # its keyboard shortcut
SAVE = "guidelines_save"            # the editor's Save button
GATE_FLASH = "pj_guidelines_flash"  # session state: the last ack's or save's problem / outcome
READ = "I have read the guidelines"


def editor_key(campaign_id: int) -> str:
    """The editor's text area for one campaign (a fresh widget per campaign)."""
    return f"guidelines_text_{campaign_id}"


def gate(engine: Engine, user: AnnotatorInfo, campaign: CampaignInfo) -> bool:
    """True when ``user`` may judge; otherwise draw the guidelines and the button, and False.

    One read-only look-up (the acknowledgement of the current text) per full run of the page;
    a label press reruns only the judging fragment, never this."""
    with session_scope(engine, readonly=True) as session:
        needed = store.needs_guidelines(session, annotator_id=user.id)
    if not needed:
        return True
    sha = store.guidelines_sha256(campaign.guidelines)
    st.subheader("Guidelines")
    st.info("Please read the campaign's guidelines before you judge. They are shown here once, "
            "and again only when they change; later they stay in the sidebar.",
            icon=":material/menu_book:")
    if problem := st.session_state.pop(GATE_FLASH, None):
        st.error(md_escape(problem))
    with st.container(border=True):
        st.html(text_html(campaign.guidelines))
    st.button(READ, key=ACK, type="primary", shortcut=ACK_KEY_NAME, on_click=_acknowledge,
              args=(engine, user.campaign_name, sha))
    st.caption(f"Press {ACK_KEY_NAME} or the button to go on to the first pair.")
    return False


def _acknowledge(engine: Engine, campaign: str, sha: str) -> None:
    try:
        with login_state.write(engine, campaign=campaign, allowed=ANNOTATOR_ROLES) as (
                session, me):
            store.acknowledge_guidelines(session, annotator_id=me.id, sha256=sha)
    except InputError as exc:  # removed meanwhile: the rerun's login check says so
        st.session_state[GATE_FLASH] = f"Not saved: {exc}"
    except StorageError:
        st.session_state[GATE_FLASH] = ("Not saved: the database could not store it. "
                                        "Press the button again in a moment.")


def render_editor(engine: Engine, campaign: CampaignInfo) -> None:
    """The campaign's guidelines in a text area with Save, and who has read the current text."""
    st.subheader("Guidelines")
    if flash := st.session_state.pop(GATE_FLASH, None):
        st.success(md_escape(flash))
    with session_scope(engine, readonly=True) as session:
        current = store.get_campaign(session, name=campaign.name).guidelines
        readers = store.acknowledgements(session, campaign=campaign.name)
    key = editor_key(campaign.id)
    st.text_area("The guidelines every annotator reads before judging (plain text; a change "
                 "asks everyone to read them again)", value=current, key=key, height=200)
    st.button("Save the guidelines", key=SAVE, on_click=_save, args=(engine, campaign.name, key))
    if len(readers):
        done = int(readers["acknowledged"].sum())
        st.caption(f"{done} of {len(readers)} people have read the current guidelines.")
        read_at = readers["acked_at"].dt.strftime("%Y-%m-%d %H:%M")
        show_table(readers.assign(acked_at=read_at),
                   {"annotator": "Person", "role": "Role", "acknowledged": "Read",
                    "acked_at": "Read at (UTC)"},
                   helps={"acked_at": f"when they read the current guidelines ({MISSING}: not "
                                      "yet)"})


def _save(engine: Engine, campaign: str, key: str) -> None:
    text = st.session_state.get(key, "")
    try:
        with login_state.write(engine, campaign=campaign, allowed=("admin",)) as (session, _):
            before = store.get_campaign(session, name=campaign).guidelines
            store.set_guidelines(session, campaign=campaign, text=text)
    except (InputError, StorageError) as exc:
        st.session_state[GATE_FLASH] = f"Not saved: {exc}"
        return
    st.session_state[GATE_FLASH] = ("Nothing changed." if text == before else
                                    "Saved. Everyone reads the new guidelines before their "
                                    "next pair.")
