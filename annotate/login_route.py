"""The login exchange in front of the Streamlit app (ASGI middleware and a route, mounted by
:mod:`pooljudge.annotate.asgi_app`).

A login link (``…/page?token=T``) is answered, before Streamlit sees it, with a redirect to the
same address without the token, setting the cookie :data:`COOKIE`: a new random session id
(HttpOnly, SameSite=Strict, Secure over HTTPS, :data:`SESSION_HOURS` hours), stored only as its
SHA-256 with its expiry (:func:`pooljudge.annotate.store.start_login_session`). The app then logs
in from the cookie on every run, so the token leaves the address bar and a reload or a bookmark
stays logged in. A token that logs in no one is passed through unchanged (the app says it is not
valid). ``GET /logout`` ends the session in the store, clears the cookie and opens the start
page. ``pooljudge serve`` runs this file (``streamlit run`` finds the ``app`` object).
"""

from __future__ import annotations

from functools import cache
from urllib.parse import urlencode

from pooljudge.annotate import store
from pooljudge.annotate.store import SESSION_HOURS, database_url, open_engine, session_scope
from sqlalchemy import Engine
from starlette.concurrency import run_in_threadpool
from starlette.middleware.base import BaseHTTPMiddleware
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

__all__ = ["COOKIE", "LoginExchange", "logout"]

COOKIE = "pooljudge_session"


@cache
def _engine() -> Engine:
    return open_engine(database_url())


def _start(token: str) -> str | None:
    with session_scope(_engine()) as session:
        return store.start_login_session(session, token=token)


def _end(secret: str) -> None:
    with session_scope(_engine()) as session:
        store.end_login_session(session, session_id=secret)


class LoginExchange(BaseHTTPMiddleware):
    """``GET …?token=T`` with a valid T: a session cookie and a redirect without the token."""

    async def dispatch(self, request: Request, call_next) -> Response:
        token = request.query_params.get("token")
        if request.method != "GET" or not token:
            return await call_next(request)
        secret = await run_in_threadpool(_start, token)
        if secret is None:
            return await call_next(request)
        rest = [(k, v) for k, v in request.query_params.multi_items() if k != "token"]
        response = RedirectResponse(request.url.path + (f"?{urlencode(rest)}" if rest else ""),
                                    status_code=303)
        response.set_cookie(COOKIE, secret, max_age=int(SESSION_HOURS * 3600), path="/",
                            httponly=True, samesite="strict",
                            secure=request.url.scheme == "https")
        response.headers["Cache-Control"] = "no-store"
        response.headers["Referrer-Policy"] = "no-referrer"
        return response


async def logout(request: Request) -> Response:
    """End this browser's session (store and cookie) and open the start page."""
    if secret := request.cookies.get(COOKIE):
        await run_in_threadpool(_end, secret)
    response = RedirectResponse("/", status_code=303)
    response.delete_cookie(COOKIE, path="/", httponly=True, samesite="strict")
    return response

