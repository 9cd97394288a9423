"""What a page shows when the database fails under it: a notice, never an exception page.

A lost PostgreSQL connection (a restart, ``pg_terminate_backend``), a full disk or a SQLite file
deleted while serving raise :class:`pooljudge.errors.StorageError` from the store; the router
catches it around the whole page (login included) and shows :func:`show_storage_fault`, which
says that nothing of the last action was saved and tries the page again by itself after
:data:`RETRY_SECONDS` (the engine has dropped the dead connections by then, so the next run
opens fresh ones: no reload needed).
"""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Iterator

import streamlit as st

from pooljudge.errors import StorageError

__all__ = ["RETRY_SECONDS", "show_storage_fault", "storage_faults_shown"]

RETRY_SECONDS = 2.0
_LOG = logging.getLogger("pooljudge.serve")


def show_storage_fault(error: StorageError) -> None:
    """A "Not saved / trying again" notice for ``error``, then a fresh run of the page."""
    _LOG.warning("page run failed on the database: %s", error)
    st.warning("Not saved: the database did not answer, so nothing of your last action was "
               "stored. Trying again in a moment… (press the key again once the page is back)",
               icon=":material/sync_problem:")
    time.sleep(RETRY_SECONDS)
    st.rerun()


@contextlib.contextmanager
def storage_faults_shown() -> Iterator[None]:
    """Run a page; a StorageError from it becomes :func:`show_storage_fault`."""
    try:
        yield
    except StorageError as error:
        show_storage_fault(error)
