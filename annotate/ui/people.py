"""A campaign's people in the browser: list them, add several at once, remove one (admins).

People are given as ``name`` or ``name,role`` lines (:func:`parse_people`, shared with the
create page). A batch is added in one transaction through the store: a bad line, a duplicate
name or a name already in the campaign refuses the whole batch. Each new person gets a login
link, built like ``pooljudge annotators add`` builds it (``<app address>/?token=…``) and shown
once to copy: the store keeps only the token's hash. Removal deactivates a person (their link
stops working, their judgments are kept); the logged-in admin cannot remove themselves here.
"""

from __future__ import annotations

from collections.abc import Sequence
from urllib.parse import urlsplit, urlunsplit

import pandas as pd
import streamlit as st
from pooljudge.annotate import store
from pooljudge.annotate.links import DEFAULT_APP_URL, configured_address, login_link
from pooljudge.annotate.records import ANNOTATOR_ROLES, AnnotatorInfo, CampaignInfo
from pooljudge.annotate.store import session_scope
from pooljudge.annotate.ui import guidelines, keys
from pooljudge.annotate.ui import session as login_state
from pooljudge.annotate.ui.render import md_escape
from sqlalchemy import Engine
from sqlmodel import Session

from pooljudge.errors import InputError, StorageError

__all__ = ["Link", "add_people", "app_address", "parse_people", "render_people",
           "show_links"]

Link = tuple[str, str, str]  # (role, name, login link)
ADMIN = ("admin",)


def parse_people(text: str) -> list[tuple[str, str]]:
    """``name`` or ``name,role`` lines -> (name, role); blank lines are ignored.

    InputError (with the line number) for a missing name, an unknown role or a name given twice.
    """
    found: dict[str, tuple[int, str]] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        name, _, role = (part.strip() for part in line.partition(","))
        role = role or "annotator"
        if not name:
            raise InputError("a person needs a name", path="people", line=number)
        if role not in ANNOTATOR_ROLES:
            raise InputError(f"unknown role {role!r} for {name!r}; choose from "
                             f"{', '.join(ANNOTATOR_ROLES)}", path="people", line=number)
        if name in found:
            raise InputError(f"{name!r} is also on line {found[name][0]}", path="people",
                             line=number)
        found[name] = (number, role)
    return [(name, role) for name, (_, role) in found.items()]


def app_address() -> str:
    """The app's address for login links: ``$POOLJUDGE_URL`` (as for ``pooljudge annotators
    add``), else the address this browser uses minus the page's own path, else the CLI's
    default. Admin pages are never the default page, so their URL ends in their path."""
    if configured := configured_address():
        return configured
    if url := st.context.url:
        parts = urlsplit(url)
        return urlunsplit((parts.scheme, parts.netloc, parts.path.rsplit("/", 1)[0], "", ""))
    return DEFAULT_APP_URL


def add_people(session: Session, *, campaign: str, people: Sequence[tuple[str, str]],
               address: str) -> list[Link]:
    """Add (name, role) people to ``campaign`` in the caller's transaction; their login links.

    The store raises InputError for a name already in the campaign: the caller's transaction
    then rolls back, so a batch is added whole or not at all.
    """
    return [(role, name, login_link(address, store.add_annotator(
        session, campaign=campaign, name=name, role=role))) for name, role in people]


def show_links(links: Sequence[Link], done: str, *, state_key: str) -> None:
    """``done`` (Markdown) and the new login links in a copyable block, with a button that
    forgets them (they are kept under ``state_key`` of the session until then)."""
    if not links:
        st.success(done)
    else:
        st.success(f"{done} Copy each person's link now: only its hash is stored, so it cannot "
                   "be shown again.")
        st.code("\n".join(f"{role:<11} {name:<16} {url}" for role, name, url in links),
                language=None)
    if st.button("Hide this" if not links else "I copied the links: hide them",
                 key=keys.HIDE_LINKS):
        st.session_state.pop(state_key, None)
        st.rerun()


def render_people(engine: Engine, campaign: CampaignInfo, user: AnnotatorInfo) -> None:
    _show_outcome(campaign.name)
    with session_scope(engine, readonly=True) as session:
        listed = store.list_annotators(session, campaign=campaign.name)
    listed = listed.loc[listed["human"].astype(bool)]
    shown = listed[["name", "role", "judgments", "last_judgment"]].astype({"last_judgment":
                                                                         object})
    shown["last_judgment"] = shown["last_judgment"].map(
        lambda t: "never" if t is None or pd.isna(t) else str(t)[:16])
    st.dataframe(shown.rename(columns={"name": "Name", "role": "Role", "judgments": "Judgments",
                                       "last_judgment": "Last judgment (UTC)"}),
                 hide_index=True)
    own = user.name if user.campaign_name == campaign.name else None
    left, right = st.columns(2)
    with left:
        _add_form(engine, campaign.name)
    with right:
        _remove_form(engine, campaign.name, [n for n in listed["name"] if n != own])
    guidelines.render_editor(engine, campaign)


def _show_outcome(campaign: str) -> None:
    state = st.session_state
    if flash := state.pop(keys.PEOPLE_FLASH, None):
        kind, message = flash
        (st.error if kind == "error" else st.success)(md_escape(message))
    shown = state.get(keys.PEOPLE_LINKS)
    if shown and shown[0] == campaign:
        show_links(shown[1], f"Added {len(shown[1])} people.", state_key=keys.PEOPLE_LINKS)


def _add_form(engine: Engine, campaign: str) -> None:
    with st.form(keys.PEOPLE_FORM):
        st.text_area("Add people, one per line: `name` or `name,role` (role: annotator, "
                     "adjudicator, admin)", key=keys.PEOPLE_TEXT)
        st.form_submit_button("Add people", key=keys.ADD_PEOPLE_SUBMIT, on_click=_add,
                              args=(engine, campaign))


def _add(engine: Engine, campaign: str) -> None:
    """Add the form's people (all or nothing); clear the form only when they were added."""
    state = st.session_state
    try:
        people = parse_people(state.get(keys.PEOPLE_TEXT, ""))
        if not people:
            raise InputError("nobody to add: write one `name` or `name,role` per line")
        with login_state.write(engine, campaign=campaign, allowed=ADMIN) as (session, _):
            links = add_people(session, campaign=campaign, people=people,
                               address=app_address())
    except (InputError, StorageError) as exc:
        state[keys.PEOPLE_FLASH] = ("error", f"Nobody was added: {exc}")
        return
    state[keys.PEOPLE_LINKS] = (campaign, links)
    state[keys.PEOPLE_TEXT] = ""


def _remove_form(engine: Engine, campaign: str, names: list[str]) -> None:
    with st.form(keys.REMOVE_FORM):
        st.selectbox("Remove a person", names, index=None, key=keys.REMOVE_PERSON,
                     placeholder="choose a person")
        st.checkbox("Their link stops working at once (their judgments are kept)",
                    key=keys.REMOVE_CONFIRM)
        st.form_submit_button("Remove", key=keys.REMOVE_SUBMIT, on_click=_remove,
                              args=(engine, campaign))


def _remove(engine: Engine, campaign: str) -> None:
    state = st.session_state
    name = state.get(keys.REMOVE_PERSON)
    if name is None or not state.get(keys.REMOVE_CONFIRM):
        state[keys.PEOPLE_FLASH] = ("error", "Choose a person and tick the box to remove them.")
        return
    try:
        with login_state.write(engine, campaign=campaign, allowed=ADMIN) as (session, _):
            store.remove_annotator(session, campaign=campaign, name=name)
    except (InputError, StorageError) as exc:
        state[keys.PEOPLE_FLASH] = ("error", f"Not removed: {exc}")
        return
    state.pop(keys.PEOPLE_LINKS, None)
    state[keys.PEOPLE_FLASH] = ("success", f"Removed {name} (their judgments are kept).")
    state[keys.REMOVE_PERSON], state[keys.REMOVE_CONFIRM] = None, False
