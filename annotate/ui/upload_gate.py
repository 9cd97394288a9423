"""Which browser sessions may upload files: only those logged in as an admin.

Streamlit accepts ``PUT /_stcore/upload_file/<session>/<file>`` from any open session and keeps
the file in the server's memory until the session ends, login or not (issue 29, W3: 4 × 50 MB
from a visitor without a login raised the server's memory by 211 MB). The app script admits its
session here after each login (:func:`admit`); the ASGI middleware in
``pooljudge.annotate.asgi_app`` asks :func:`admitted` before Streamlit reads a byte of the body.
A session that logs out, or whose login stops working, is withdrawn at its next script run.

The set lives in this process (one Streamlit server); its entries are session ids, which end
with the session (pruned at each admission).
"""

from __future__ import annotations

import threading

from pooljudge.annotate.records import AnnotatorInfo

__all__ = ["UPLOAD_ROLES", "admit", "admitted"]

UPLOAD_ROLES = frozenset({"admin"})
_lock = threading.Lock()
_sessions: set[str] = set()


def admit(user: AnnotatorInfo | None) -> None:
    """Let this script run's session upload when ``user`` is an admin; withdraw it otherwise."""
    from streamlit import runtime
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    context = get_script_run_ctx()
    if context is None:  # not inside a Streamlit script run (bare mode, tests)
        return
    with _lock:
        if user is not None and user.role in UPLOAD_ROLES:
            _sessions.add(context.session_id)
        else:
            _sessions.discard(context.session_id)
        if runtime.exists():  # forget sessions that have ended
            live = runtime.get_instance().is_active_session
            _sessions.intersection_update({s for s in _sessions if live(s)})


def admitted(session_id: str) -> bool:
    """Whether session ``session_id`` may upload (its last script run was an admin's)."""
    with _lock:
        return session_id in _sessions
