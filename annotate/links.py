"""Login links: ``<app address>/?token=<token>``, the same from the command line and the app.

The app's address is, in order: the one given explicitly, ``$POOLJUDGE_URL`` (set it where the
app runs behind a proxy or on another host), else :data:`DEFAULT_APP_URL` (``pooljudge serve``'s
default host and port).
"""

from __future__ import annotations

import os
from urllib.parse import urlsplit

from pooljudge.errors import UsageError

__all__ = ["DEFAULT_APP_URL", "URL_ENV", "check_app_address", "configured_address",
           "login_link"]

DEFAULT_APP_URL = "http://127.0.0.1:8501"
URL_ENV = "POOLJUDGE_URL"


def configured_address(explicit: str | None = None) -> str | None:
    """``explicit``, else ``$POOLJUDGE_URL``, without a trailing slash; None when neither.
    UsageError unless it is an http(s) address with a host and no blank or control character
    (``javascript:...`` or a line break would reach the printed login link)."""
    source = "--url" if explicit else f"${URL_ENV}"
    address = explicit or os.environ.get(URL_ENV)
    if not address:
        return None
    check_app_address(address, source)
    return address.rstrip("/")


def check_app_address(address: str, source: str) -> None:
    """UsageError naming ``source`` unless ``address`` is ``http(s)://host[:port][/path]``
    without blanks or control characters."""
    if any(ord(c) <= 32 or 127 <= ord(c) < 160 or c in "\u2028\u2029" for c in address):
        raise UsageError(f"{source}: blank or control character in the app's address "
                         f"{address!r}")
    try:
        parts = urlsplit(address)
        parts.port  # noqa: B018 - raises ValueError for a port out of range
    except ValueError as exc:
        raise UsageError(f"{source}: not a URL: {address!r} ({exc})") from None
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        raise UsageError(f"{source}: the app's address must be http:// or https:// with a "
                         f"host, got {address!r}")


def login_link(address: str, token: str) -> str:
    """The login link of ``token`` on the app at ``address``."""
    return f"{address.rstrip('/')}/?token={token}"
