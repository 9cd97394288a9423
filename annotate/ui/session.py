"""Engine, login and rights for the app: one cached engine per database URL; every write
re-checks the login inside its own transaction.

A browser logs in with a login link (``?token=``). The server exchanges the token for a browser
session (:mod:`pooljudge.annotate.login_route`: a random id in an HttpOnly, SameSite=Strict
cookie, stored hashed with an expiry) and sends the browser on without the token, so a reload or
a bookmark stays logged in. Either credential is checked against the store on every script run;
removal, *Log out* and the expiry end it.

Streamlit runs widget callbacks *before* the page script, so a page's login check comes too late
to guard them: every write goes through :func:`write`, which calls
:func:`pooljudge.annotate.store.authorize` first in the write's own transaction (the login still
active, the role held in that campaign). Every page starts with :func:`require_page`.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator
from contextlib import contextmanager

import streamlit as st
from pooljudge.annotate import store
from pooljudge.annotate.records import AnnotatorInfo
from pooljudge.annotate.store import Credential, database_url, open_engine, session_scope
from pooljudge.annotate.ui import keys, routes
from sqlalchemy import Engine
from sqlmodel import Session

__all__ = ["COOKIE", "credential", "engine", "login", "logout", "nugget_features",
           "require_page", "require_role", "roles", "show_login_problem", "user", "write"]

COOKIE = "pooljudge_session"  # the browser session's cookie (set by annotate/login_route.py)


@st.cache_resource(show_spinner=False)
def _engine_for(url: str) -> Engine:
    return open_engine(url)


def engine() -> Engine:
    """The process-wide engine for :func:`database_url` (created once, shared by sessions)."""
    return _engine_for(database_url())


def credential() -> Credential:
    """This browser's login: a token this session was given in its address (which replaces
    any other login), else the session cookie."""
    if token := st.session_state.get(keys.TOKEN):
        return Credential("token", token)
    return Credential("session", _cookie())


def _cookie() -> str:
    """The session cookie's value, or "" (also where there are no real cookies, as in tests
    without a browser)."""
    value = st.context.cookies.get(COOKIE)
    return value if isinstance(value, str) else ""


def login() -> AnnotatorInfo | None:
    """The logged-in person (their own campaign), from the session cookie or a ``?token=``.

    A new token in the URL replaces the session's login (and its judging state). Also keeps
    the person's role in every campaign (:func:`roles`)."""
    state = st.session_state
    url_token = st.query_params.get("token")
    if url_token and url_token != state.get(keys.TOKEN):
        for key in list(state.keys()):
            del state[key]
        state[keys.TOKEN] = url_token
    given = credential()
    with session_scope(engine(), readonly=True) as session:
        found = store.login(session, credential=given)
        state[keys.ROLES] = ({} if found is None else
                             store.campaign_roles(session, annotator_id=found.id))
    state[keys.USER] = found
    return found


def roles() -> dict[str, str]:
    """Campaign name -> the logged-in person's role there (their own campaign first); read
    from the store when :func:`login` did not (a page run on its own)."""
    state = st.session_state
    if state.get(keys.ROLES) is None and (found := state.get(keys.USER)) is not None:
        with session_scope(engine(), readonly=True) as session:
            state[keys.ROLES] = store.campaign_roles(session, annotator_id=found.id)
    return state.get(keys.ROLES) or {}


def nugget_features(found: AnnotatorInfo) -> frozenset[str]:
    """What the person's campaigns have of :data:`pooljudge.annotate.ui.routes.NEEDS`:
    ``answers`` when their own campaign holds RAG answers and active nuggets, ``rag`` when a
    campaign where they adjudicate or administer holds answers or nuggets (two counts per
    campaign, every run)."""
    held = {name for name, role in roles().items() if role in ("adjudicator", "admin")}
    if found.role in ("adjudicator", "admin"):
        held.add(found.campaign_name)
    features = set()
    with session_scope(engine(), readonly=True) as session:
        for name in sorted(held | {found.campaign_name}):
            answers, nuggets = store.nugget_counts(session, campaign=name)
            if name == found.campaign_name and answers and nuggets:
                features.add("answers")
            if name in held and (answers or nuggets):
                features.add("rag")
    return frozenset(features)


def top_role(found: AnnotatorInfo) -> str:
    """The widest role the person holds in any campaign (which pages the menu shows)."""
    held = set(roles().values()) | {found.role}
    return next(r for r in ("admin", "adjudicator", "annotator") if r in held)


@contextmanager
def write(engine: Engine, *, campaign: str, allowed: Collection[str]
          ) -> Iterator[tuple[Session, AnnotatorInfo]]:
    """A write transaction that first re-checks this browser's login: active, with one of
    ``allowed`` roles in ``campaign`` (:func:`pooljudge.annotate.store.authorize`, row-locked).
    NotAllowed (an InputError) when not, and nothing is written."""
    with session_scope(engine) as session:
        principal = store.authorize(session, credential=credential(), campaign=campaign,
                                    roles=allowed)
        yield session, principal


def logout() -> None:
    """End this browser's session in the store (its cookie logs in no one from now on) and
    forget the login here (the Log out button's callback)."""
    given = credential()
    if given.kind == "session":
        with session_scope(engine()) as session:
            store.end_login_session(session, session_id=given.secret)
    for key in list(st.session_state.keys()):
        del st.session_state[key]
    st.session_state[keys.LOGGED_OUT] = True


def show_login_problem() -> None:
    """The only thing a visitor without a valid login sees."""
    if st.session_state.get(keys.LOGGED_OUT):
        st.info("You are logged out. Open your login link to log in again.",
                icon=":material/logout:")
    elif st.session_state.get(keys.TOKEN) or _cookie():
        st.error("This login is not valid: the link is wrong or was removed, or you logged out "
                 "or the login expired. Open your login link again, or ask the campaign's "
                 "organiser for a new one.", icon=":material/block:")
    else:
        st.info("Open the personal login link you were given (it ends in `?token=…`).",
                icon=":material/key:")


def user() -> AnnotatorInfo:
    """The person :func:`login` found for this run (pages run only after a successful login)."""
    found = st.session_state.get(keys.USER)
    if found is None:
        show_login_problem()
        st.stop()
    return found


def require_role(*allowed: str) -> AnnotatorInfo:
    """The logged-in person when they hold one of ``allowed`` in some campaign; otherwise a
    clear refusal and ``st.stop()``. Each page calls it first, behind the router; the campaign
    itself is checked by :func:`pooljudge.annotate.ui.admin.pick_campaign`."""
    found = user()
    if not ({found.role, *roles().values()} & set(allowed)):
        st.error(f"Not allowed: this page is for {', '.join(allowed)} only, and you are logged "
                 f"in as {found.role}.", icon=":material/block:")
        st.stop()
    return found


def require_page(page_file: str) -> AnnotatorInfo:
    """:func:`require_role` with the roles of the page script ``page_file`` in
    :data:`pooljudge.annotate.ui.routes.ROUTES` (pages pass their ``__file__``)."""
    return require_role(*sorted(routes.roles_of(page_file)))
