"""Engine and login for the app: one cached engine per database URL, login by ``?token=``.

The token from the login link is kept in the browser session and checked against the store on
every script run (one indexed lookup of its SHA-256 hash), so removing an annotator logs them out
at their next click. A wrong or removed token yields no user and a clear message, nothing else.
Every page starts with :func:`require_page`: a role its route (:mod:`pooljudge.annotate.ui.routes`)
does
not allow sees a refusal and nothing else.
"""

from __future__ import annotations

import streamlit as st
from pooljudge.annotate import store
from pooljudge.annotate.records import AnnotatorInfo
from pooljudge.annotate.store import database_url, open_engine, session_scope
from pooljudge.annotate.ui import keys, routes
from sqlalchemy import Engine

__all__ = ["engine", "login", "require_page", "require_role", "show_login_problem", "user"]

@st.cache_resource(show_spinner=False)
def _engine_for(url: str) -> Engine:
    return open_engine(url)


def engine() -> Engine:
    """The process-wide engine for :func:`database_url` (created once, shared by sessions)."""
    return _engine_for(database_url())


def login() -> AnnotatorInfo | None:
    """The logged-in person, from a ``?token=`` in the URL or the token this session already has.

    A new token in the URL replaces the session's login (and its judging state).
    """
    state = st.session_state
    url_token = st.query_params.get("token")
    if url_token and url_token != state.get(keys.TOKEN):
        for key in list(state.keys()):
            del state[key]
        state[keys.TOKEN] = url_token
    token = state.get(keys.TOKEN)
    if not token:
        return None
    with session_scope(engine(), readonly=True) as session:
        user = store.authenticate(session, token=token)
    state[keys.USER] = user
    return user


def show_login_problem() -> None:
    """The only thing a visitor without a valid login sees."""
    if st.session_state.get(keys.TOKEN):
        st.error("This login link is not valid: it is wrong, or it was removed. "
                 "Ask the campaign's organiser for a new link.", icon=":material/block:")
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


def require_role(*roles: str) -> AnnotatorInfo:
    """The logged-in person when their role is one of ``roles``; otherwise a clear refusal and
    ``st.stop()``. Each page calls it first: a second line of defence behind the router."""
    found = user()
    if found.role not in roles:
        st.error(f"Not allowed: this page is for {', '.join(roles)} only, and you are logged "
                 f"in as {found.role}.", icon=":material/block:")
        st.stop()
    return found


def require_page(page_file: str) -> AnnotatorInfo:
    """:func:`require_role` with the roles of the page script ``page_file`` in
    :data:`pooljudge.annotate.ui.routes.ROUTES` (pages pass their ``__file__``)."""
    return require_role(*sorted(routes.roles_of(page_file)))
