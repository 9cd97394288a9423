"""A SQLite file deleted (or replaced) under open connections refuses writes (issue 29, F2):
StorageError, nothing acknowledged into the unlinked file, one log line per lost file; a file
put back at its path is written again."""

from __future__ import annotations

import logging
import shutil
import sqlite3

import pytest
from pooljudge.annotate import store
from pooljudge.annotate.records import LabelScale
from pooljudge.annotate.store import (
    add_annotator,
    create_campaign,
    judgments_frame,
    open_engine,
    session_scope,
)

from pooljudge.errors import StorageError


def _judge(engine, token: str, label: int) -> None:
    with session_scope(engine) as session:
        user = store.authenticate(session, token=token)
        pair = store.next_pair(session, annotator_id=user.id)
        store.record_judgment(session, annotator_id=user.id, pair_id=pair.pair_id, label=label)


@pytest.mark.parametrize("how", ["deleted", "replaced"])
def test_writes_into_a_lost_file_are_refused_and_logged_once(tmp_path, collection, caplog, how):
    path = tmp_path / "lost.db"
    engine = open_engine(f"sqlite:///{path}")
    with session_scope(engine) as session:
        create_campaign(session, name="c", scale=LabelScale.binary(), overlap=1,
                        **collection(3, 5))
        token = add_annotator(session, campaign="c", name="ann")
    _judge(engine, token, 1)  # the pool's connection is open on the file now
    with sqlite3.connect(path) as source, sqlite3.connect(tmp_path / "backup.db") as copy:
        source.backup(copy)  # the WAL's pages too
    path.unlink()
    if how == "replaced":
        shutil.copy(tmp_path / "backup.db", path)  # a new inode at the same path
    caplog.set_level(logging.ERROR, logger="pooljudge.store")
    if how == "deleted":
        for _ in range(3):  # an old connection is refused; a new one finds an empty new file
            with pytest.raises(StorageError):
                _judge(engine, token, 0)
        errors = [r for r in caplog.records if r.levelno == logging.ERROR]
        assert len(errors) == 1 and str(path) in errors[0].getMessage()
        path.unlink(missing_ok=True)
        for suffix in ("-wal", "-shm"):
            (tmp_path / f"lost.db{suffix}").unlink(missing_ok=True)
        shutil.copy(tmp_path / "backup.db", path)  # the operator restores it
    else:  # the connection on the old inode is dropped before the write, which goes to the
        assert len([r for r in caplog.records if r.levelno == logging.ERROR]) <= 1  # new file
    _judge(engine, token, 0)  # the file at the path is written again
    engine.dispose()
    check = open_engine(f"sqlite:///{path}")
    with session_scope(check, readonly=True) as session:
        assert len(judgments_frame(session, campaign="c")) == 2
    check.dispose()
