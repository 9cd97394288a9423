"""The ASGI application ``pooljudge serve`` runs: the annotation app (``app.py``) mounted by
Streamlit's own ``st.App``, behind one middleware that closes two doors Streamlit leaves open.

- ``/_stcore/metrics`` answers 404: Streamlit serves its counters to anyone, with no option to
  turn them off (issue 29, W5).
- ``PUT /_stcore/upload_file/<session>/<file>`` answers 403 unless the session is logged in as
  an admin (:mod:`pooljudge.annotate.ui.upload_gate`), before a byte of the body is read, so a
  visitor cannot park data in the server's memory (W3). Admins' uploads are still bounded by
  ``server.maxUploadSize`` (``pooljudge serve --max-upload-mb``).

Behind it, the login exchange (:mod:`pooljudge.annotate.login_route`): a login link's token is
traded for an HttpOnly, SameSite=Strict session cookie and leaves the address bar; ``/logout``
ends the session.

``streamlit run`` finds ``app`` below (its ASGI app discovery) and serves it with its command
line options; the module is imported by its file's stem, so it refers to the app script by
path and to the gate through the installed package.
"""

from __future__ import annotations

import re
from pathlib import Path

import streamlit as st
from pooljudge.annotate.login_route import LoginExchange, logout
from pooljudge.annotate.ui.upload_gate import admitted
from starlette.middleware import Middleware
from starlette.responses import PlainTextResponse
from starlette.routing import Route

__all__ = ["METRICS", "UPLOAD", "DoorKeeper", "app"]

METRICS = re.compile(r"(^|/)_stcore/metrics/?$")
UPLOAD = re.compile(r"(^|/)_stcore/upload_file/(?P<session>[^/]+)/[^/]+/?$")


class DoorKeeper:
    """ASGI middleware: 404 for the metrics route, 403 for an upload from a session that is
    not an admin's; everything else (pages, WebSocket, health) passes untouched."""

    def __init__(self, inner) -> None:
        self.inner = inner

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] == "http":
            path = scope.get("path", "")
            if METRICS.search(path):
                return await PlainTextResponse("Not found", status_code=404)(scope, receive, send)
            upload = UPLOAD.search(path)
            if (upload and scope.get("method") == "PUT"
                    and not admitted(upload.group("session"))):
                return await PlainTextResponse("Uploads need an admin's login",
                                               status_code=403)(scope, receive, send)
        await self.inner(scope, receive, send)


app = st.App(Path(__file__).with_name("app.py"), routes=[Route("/logout", logout)],
             middleware=[Middleware(DoorKeeper), Middleware(LoginExchange)])
