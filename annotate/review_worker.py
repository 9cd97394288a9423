"""The background thread that moves review topics on, so no annotator waits for a retrain.

Why a thread in the server process (and not the request that completes a batch): a Streamlit
callback has no "after the response"; whatever it runs delays the next pair on screen. The
judging page stores a label (its own transaction, committed) and then calls :func:`submit`,
which only puts (engine, pair) in a queue and returns. One daemon thread per process takes
pairs from the queue, finds the pair's review topic (none: not a review, nothing to do) and
runs :func:`pooljudge.annotate.review.update_topic`: it reads,
computes outside any transaction, and writes a result in one short transaction that discards
it if outdated, so several servers on one database (each with its own thread) may race safely
— the first result for a newer label count wins, the others are dropped. Meanwhile claims take
the ranking stored last.

The judging page submits only the pairs of review topics (it knows from the pair's render), so
a pooled campaign's labels cost the thread nothing. A pair already waiting is not queued twice;
an update with nothing due costs one read. A failure is logged and dropped: the next label of
the topic submits it again.
"""

from __future__ import annotations

import logging
import queue
import threading

from pooljudge.annotate import store
from pooljudge.annotate.review import update_topic
from sqlalchemy import Engine

__all__ = ["drain", "submit"]

LOG = logging.getLogger(__name__)

_Key = tuple[int, int]  # (id of the engine, pair id)
_QUEUE: queue.Queue[_Key] = queue.Queue()
_WAITING: set[_Key] = set()
_ENGINES: dict[int, Engine] = {}
_LOCK = threading.Lock()
_THREAD: threading.Thread | None = None
_IDLE = threading.Condition(_LOCK)
_BUSY = 0


def submit(engine: Engine, *, pair_id: int) -> None:
    """Queue the topic of ``pair_id`` (just labelled) for an update; returns at once."""
    global _THREAD, _BUSY
    key = (id(engine), pair_id)
    with _LOCK:
        _ENGINES[id(engine)] = engine
        if key in _WAITING:
            return
        _WAITING.add(key)
        _BUSY += 1
        if _THREAD is None or not _THREAD.is_alive():
            _THREAD = threading.Thread(target=_work, name="pooljudge-review", daemon=True)
            _THREAD.start()
    _QUEUE.put(key)


def drain(timeout: float = 60.0) -> bool:
    """Wait until every submitted topic has been updated (tests, shutdown); False on timeout."""
    with _IDLE:
        return _IDLE.wait_for(lambda: _BUSY == 0, timeout)


def _work() -> None:
    global _BUSY
    while True:
        key = _QUEUE.get()
        with _LOCK:
            _WAITING.discard(key)
            engine = _ENGINES[key[0]]
        try:
            _update(engine, key[1])
        except Exception:
            LOG.exception("review update after a label of pair %s failed", key[1])
        finally:
            with _IDLE:
                _BUSY -= 1
                _IDLE.notify_all()


def _update(engine: Engine, pair_id: int) -> None:
    with store.session_scope(engine, readonly=True) as session:
        found = store.review_topic_of(session, pair_id=pair_id)
    if found is None:
        return
    steps = update_topic(engine, campaign_id=found[0], topic_id=found[1])
    if steps:
        LOG.info("review campaign %s topic %s: %s", found[0], found[1], ", ".join(steps))
