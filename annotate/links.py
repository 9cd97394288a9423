"""Login links: ``<app address>/?token=<token>``, the same from the command line and the app.

The app's address is, in order: the one given explicitly, ``$POOLJUDGE_URL`` (set it where the
app runs behind a proxy or on another host), else :data:`DEFAULT_APP_URL` (``pooljudge serve``'s
default host and port).
"""

from __future__ import annotations

import os

__all__ = ["DEFAULT_APP_URL", "URL_ENV", "configured_address", "login_link"]

DEFAULT_APP_URL = "http://127.0.0.1:8501"
URL_ENV = "POOLJUDGE_URL"


def configured_address(explicit: str | None = None) -> str | None:
    """``explicit``, else ``$POOLJUDGE_URL``, without a trailing slash; None when neither."""
    address = explicit or os.environ.get(URL_ENV)
    return address.rstrip("/") if address else None


def login_link(address: str, token: str) -> str:
    """The login link of ``token`` on the app at ``address``."""
    return f"{address.rstrip('/')}/?token={token}"
