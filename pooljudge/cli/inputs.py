"""What commands read from the paths and URLs they are given: run files, once each, and the
database of ``--db``."""

from __future__ import annotations

import argparse
import contextlib
import os
from collections import deque
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING

from pooljudge.errors import UsageError
from pooljudge.ground.progress import progress

if TYPE_CHECKING:
    from pooljudge.formats.trec import RunColumns

__all__ = ["open_database", "read_runs"]


def read_runs(
    paths: Sequence[str], *, depth: int | None = None, workers: int | None = None
) -> Iterator[tuple[str, RunColumns]]:
    """(name, run) for each path, read by a few threads, in path order, with a progress bar;
    the name is the file name without folder and ``.gz``. ``dict(read_runs(paths))`` holds
    them all; iterating holds at most ``2 * workers`` at once (``pool``'s flat memory).

    With ``depth`` each thread cuts its run to the rows that can reach the top ``depth``
    (:func:`pooljudge.pooling.pool.top_candidates`), after checking the whole file. Raises
    UsageError
    when two paths share a run name (before reading any), InputError (``path:line``) for a bad
    run: the first bad one in path order, after the reads still running have ended and those
    not started have been cancelled.
    """
    from concurrent.futures import ThreadPoolExecutor

    names = _run_names(paths)
    workers = workers or min(4, os.cpu_count() or 1)
    bar = progress(total=len(paths), desc="reading runs", unit="run")
    pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="read-run")
    try:
        pending: deque = deque()
        for name, path in zip(names, paths, strict=True):
            pending.append((name, pool.submit(_read_one, path, depth)))
            if len(pending) >= 2 * workers:
                yield _finish(pending, bar)
        while pending:
            yield _finish(pending, bar)
    finally:
        # On a bad run (or a consumer that stops early) reads not yet started are cancelled and
        # running ones awaited: no reader outlives the error, none runs at interpreter exit.
        pool.shutdown(wait=True, cancel_futures=True)
        bar.close()


def _run_names(paths: Sequence[str]) -> list[str]:
    """Each path's run name; UsageError naming both paths when two share one."""
    from pooljudge.formats.trec import run_name

    seen: dict[str, str] = {}
    for path in paths:
        name = run_name(path)
        if name in seen:
            raise UsageError(f"two runs are named {name!r}: {seen[name]} and {path}")
        seen[name] = path
    return list(seen)


def _read_one(path: str, depth: int | None) -> RunColumns:
    from pooljudge.formats.trec import read_run_columns

    run = read_run_columns(path)
    if depth is None:
        return run
    from pooljudge.pooling.pool import top_candidates

    return top_candidates(run, depth)


def _finish(pending: deque, bar) -> tuple[str, RunColumns]:
    name, future = pending.popleft()
    result = future.result()
    bar.update(1)
    return name, result


def checked_db_url(given: str | None) -> str:
    """``--db``, else ``$POOLJUDGE_DB``, else the default, refused (UsageError) when it is empty
    or names an in-memory SQLite database (which keeps nothing after the command)."""
    from pooljudge.annotate.store import database_url

    if given is not None and not given.strip():
        raise UsageError("--db: empty; give a database URL such as sqlite:///pooljudge.db")
    source = "--db" if given is not None else "$POOLJUDGE_DB"
    env = os.environ.get("POOLJUDGE_DB")
    if given is None and env is not None and not env.strip():
        raise UsageError("$POOLJUDGE_DB: empty; unset it or give a database URL")
    url = database_url(given)
    if _control(url):
        raise UsageError(f"{source}: control character in the database URL: {url!r}")
    rest = url.split("?", 1)[0]
    if rest.startswith("sqlite") and rest.split("://", 1)[-1] in ("", "/", "/:memory:"):
        raise UsageError(f"{source}: {url} is an in-memory database, which keeps nothing "
                         "after the command; give a file, e.g. sqlite:///pooljudge.db")
    return url


def _control(text: str) -> bool:
    return any(ord(c) < 32 or 127 <= ord(c) < 160 for c in text)


@contextlib.contextmanager
def open_database(args: argparse.Namespace, *, create: bool = False) -> Iterator:
    """The migrated engine for ``args.db``, disposed on exit. Only with ``create`` (commands
    that make a campaign) is a missing SQLite database created; otherwise it is a UsageError."""
    from pooljudge.annotate.store import open_engine

    engine = open_engine(checked_db_url(args.db), create=create)
    try:
        yield engine
    finally:
        engine.dispose()
