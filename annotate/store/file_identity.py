"""Is the SQLite file a connection writes still the file at the database's path?

A file deleted (or replaced, e.g. by ``mv backup.db pooljudge.db``) while the server runs stays
open in every pooled connection: SQLite goes on writing the unlinked file and answers "done",
and every judgment is lost when the server stops (issue 29, F2: 231 judgments acknowledged into
a deleted file). So each connection notes, when it opens, the identity of its file (device and
inode, ``os.stat`` of the path right after ``sqlite3.connect`` opened it), and every writing
transaction, just before its commit, compares it with ``os.stat`` of the path now: one stat
call (about a microsecond). The path gone (the file's last name was removed, its link count
fell to 0) or naming another inode raises :class:`pooljudge.errors.StorageError`; the
transaction is rolled back, the connection is dropped (so a restored file is opened afresh),
and one error is logged per file and identity, not one per write.
"""

from __future__ import annotations

import logging
import os
import threading

import sqlalchemy as sa

from pooljudge.errors import StorageError

__all__ = ["check_same_file", "remember_file"]

_KEY = "pooljudge_file"
_LOG = logging.getLogger("pooljudge.store")
_reported: set[tuple[str, int, int]] = set()
_lock = threading.Lock()


def remember_file(record, path: str) -> None:
    """Note on a pool connection ``record`` which file ``path`` names now (dev, inode)."""
    try:
        found = os.stat(path)
    except OSError:  # nothing to compare with later; SQLite itself will fail
        return
    record.info[_KEY] = (os.path.abspath(path), found.st_dev, found.st_ino)


def check_same_file(connection: sa.Connection) -> None:
    """StorageError (and the connection invalidated) when the file the connection opened is no
    longer the file at its path: deleted, renamed away or replaced."""
    noted = connection.info.get(_KEY)
    if noted is None:
        return
    path, device, inode = noted
    try:
        now = os.stat(path)
        same = (now.st_dev, now.st_ino) == (device, inode)
    except FileNotFoundError:
        same = False
    if same:
        return
    _report_once(path, device, inode)
    connection.invalidate()
    raise StorageError(f"{path}: the database file was deleted or replaced while the server "
                       "was running; nothing of this transaction was stored")


def _report_once(path: str, device: int, inode: int) -> None:
    """Log the lost file once per (path, identity) for the operator."""
    with _lock:
        if (path, device, inode) in _reported:
            return
        _reported.add((path, device, inode))
    _LOG.error("%s: the database file this server had open (inode %d) was deleted or replaced; "
               "writes are refused until it is back (restore it, or restart the server)",
               path, inode)
