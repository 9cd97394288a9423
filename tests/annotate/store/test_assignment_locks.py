"""A pair locked for a moment by another transaction is waited for, not reported as the end.

``FOR UPDATE SKIP LOCKED`` skips a row another transaction holds (its own claim, a judgment
updating the pair's counters). When that row is the last open pair, a claim must not conclude
"nothing left": it waits for the holder and takes the slot that is still free.
"""

from __future__ import annotations

import threading
import time
import uuid

import pytest
import sqlalchemy as sa
from pooljudge.annotate import store
from pooljudge.annotate.records import LabelScale
from pooljudge.annotate.store import open_engine, session_scope


@pytest.mark.postgres
def test_claim_waits_for_a_pair_locked_by_another_transaction(pg_url, collection) -> None:
    engine = open_engine(pg_url)
    name = f"locks-{uuid.uuid4().hex[:8]}"
    with session_scope(engine) as session:
        store.create_campaign(session, name=name, scale=LabelScale.binary(), overlap=1,
                              **collection(1, 1))
        token = store.add_annotator(session, campaign=name, name="ann")
        annotator = store.authenticate(session, token=token)
    holder = engine.connect()
    transaction = holder.begin()
    locked = holder.execute(sa.text(
        "SELECT p.id FROM pair p JOIN campaign c ON c.id = p.campaign_id "
        "WHERE c.name = :name FOR UPDATE OF p"), {"name": name}).scalar_one()
    claimed: list = []

    def claim() -> None:
        with session_scope(engine) as session:
            claimed.append(store.next_pair(session, annotator_id=annotator.id))

    worker = threading.Thread(target=claim)
    worker.start()
    time.sleep(0.3)
    assert worker.is_alive(), "the claim gave up while the only open pair was locked"
    transaction.commit()  # the holder changed nothing: the slot is still free
    holder.close()
    worker.join(timeout=10)
    engine.dispose()
    assert len(claimed) == 1 and claimed[0] is not None and claimed[0].pair_id == locked
