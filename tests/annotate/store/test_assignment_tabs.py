"""One annotator in several sessions at once (two tabs, two servers): a normal case.

Rule: every session keeps working and no pair is judged twice by the same annotator. The
sessions share the annotator's one live claim; a judgment from a session whose pair that
annotator has meanwhile judged elsewhere is refused with DuplicateWrite (nothing stored), and
the session asks for its next pair again. Each session below does exactly what the judging page
does (the judgment and the next claim in one transaction), on an engine of its own, as a
separate server would, on SQLite and on PostgreSQL.
"""

from __future__ import annotations

import threading
import uuid
from collections import Counter

import pandas as pd
import pytest
import sqlalchemy as sa
from pooljudge.annotate import store
from pooljudge.annotate.records import LabelScale
from pooljudge.annotate.store import DuplicateWrite, open_engine, session_scope
from pooljudge.annotate.store.models import Annotator, Campaign, Claim, Judgment, Pair

from pooljudge.errors import InputError

# sessions per annotator: "a" judges in four tabs at once, "b" in two, "c" in one
SESSIONS = {"a": 4, "b": 2, "c": 1}
OVERLAP = 2


def _campaign(engine, collection, assign_mode: str) -> tuple[str, dict[str, int]]:
    name = f"tabs-{uuid.uuid4().hex[:8]}"
    with session_scope(engine) as session:
        store.create_campaign(session, name=name, scale=LabelScale.binary(), overlap=OVERLAP,
                              assign_mode=assign_mode, **collection(4, 25))
        for person in SESSIONS:
            store.add_annotator(session, campaign=name, name=person)
    with session_scope(engine) as session:
        ids = {p: store.annotator_id(session, campaign=name, name=p) for p in SESSIONS}
    return name, ids


def _judgments(session, campaign: str) -> pd.DataFrame:
    """(annotator, pair, version) of every judgment row of ``campaign``, read directly."""
    rows = session.execute(
        sa.select(Annotator.name, Judgment.pair_id, Judgment.version)
        .join(Annotator, Annotator.id == Judgment.annotator_id)
        .join(Campaign, Campaign.id == Annotator.campaign_id).where(Campaign.name == campaign)
    ).all()
    return pd.DataFrame(rows, columns=["annotator", "pair", "version"])


def _tab(url: str, annotator: int, skip_every: int, acknowledged: list[int],
         refused: list[int], errors: list[BaseException]) -> None:
    """Judge as the judging page does until nothing is left; every ``skip_every``-th pair is
    skipped first. Acknowledged pair ids (the transaction committed) go to ``acknowledged``."""
    engine = open_engine(url)
    try:
        current, shown = None, 0
        while True:
            if current is None:
                with session_scope(engine) as session:
                    current = store.next_pair(session, annotator_id=annotator)
                if current is None:
                    return
            shown += 1
            try:
                with session_scope(engine) as session:
                    if skip_every and shown % skip_every == 0:
                        store.skip_pair(session, annotator_id=annotator, pair_id=current.pair_id)
                        current = store.next_pair(session, annotator_id=annotator)
                        continue
                    store.record_judgment(session, annotator_id=annotator,
                                          pair_id=current.pair_id, label=shown % 2,
                                          seconds=0.1, expected_version=1)
                    following = store.next_pair(session, annotator_id=annotator)
                acknowledged.append(current.pair_id)
                current = following
            except DuplicateWrite:  # judged in another session of this annotator
                refused.append(current.pair_id)
                current = None
            except InputError:  # skip of a claim another session just released
                current = None
    except BaseException as exc:  # reported by the main thread
        errors.append(exc)
    finally:
        engine.dispose()


@pytest.mark.parametrize("skip_every", [0, 5], ids=["judge", "judge-and-skip"])
@pytest.mark.parametrize("assign_mode", ["pair", "topic"])
def test_one_annotator_in_many_sessions_judges_each_pair_once(
        engine, db_url, collection, assign_mode, skip_every) -> None:
    name, ids = _campaign(engine, collection, assign_mode)
    acknowledged = {person: [] for person in SESSIONS}
    refused: list[int] = []
    errors: list[BaseException] = []
    threads = [threading.Thread(target=_tab, args=(db_url, ids[person], skip_every,
                                                   acknowledged[person], refused, errors))
               for person, count in SESSIONS.items() for _ in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=300)
    assert not any(thread.is_alive() for thread in threads), "a session never finished"
    assert not errors, errors
    assert refused, "no session ever lost a race: the test exercised nothing"
    with session_scope(engine) as session:
        frame = _judgments(session, name)
        claims = session.execute(sa.select(sa.func.count()).select_from(Claim).join(
            Pair, Pair.id == Claim.pair_id).join(Campaign, Campaign.id == Pair.campaign_id)
            .where(Campaign.name == name)).scalar_one()
        open_slots = session.execute(sa.select(sa.func.sum(Pair.open_slots)).join(
            Campaign, Campaign.id == Pair.campaign_id).where(Campaign.name == name)).scalar_one()
    assert len(frame) == 100 * OVERLAP  # every pair got its K judgments, none more
    assert (frame["version"] == 1).all()
    per_pair = frame.groupby("pair")["annotator"].agg(["size", "nunique"])
    assert (per_pair["size"] == OVERLAP).all() and (per_pair["nunique"] == OVERLAP).all()
    stored = frame.groupby("annotator").size().to_dict()
    for person, pairs in acknowledged.items():  # every acknowledged judgment stored once
        assert Counter(pairs).most_common(1)[0][1] == 1, f"{person} judged a pair twice"
        assert stored.get(person, 0) == len(pairs)
    assert claims == 0 and open_slots == 0


def test_a_second_tab_shares_the_claim_and_a_judged_pair_is_refused(engine, make_campaign
                                                                     ) -> None:
    name = make_campaign(overlap=2, n_topics=1, n_docs=3)
    with session_scope(engine) as session:
        store.add_annotator(session, campaign=name, name="ann")
        ann = store.annotator_id(session, campaign=name, name="ann")
    with session_scope(engine) as session:  # tab 1
        first = store.next_pair(session, annotator_id=ann)
    with session_scope(engine) as session:  # tab 2: the same live claim
        assert store.next_pair(session, annotator_id=ann).pair_id == first.pair_id
    with session_scope(engine) as session:  # tab 1 judges it and claims the next pair
        store.record_judgment(session, annotator_id=ann, pair_id=first.pair_id, label=1,
                              expected_version=1)
        following = store.next_pair(session, annotator_id=ann)
    # tab 2 presses a key on the pair tab 1 judged
    with (pytest.raises(DuplicateWrite, match="already judged this pair"),
          session_scope(engine) as session):
        store.record_judgment(session, annotator_id=ann, pair_id=first.pair_id, label=0,
                              expected_version=1)
    with session_scope(engine) as session:  # tab 2 asks again: tab 1's new claim
        assert store.next_pair(session, annotator_id=ann).pair_id == following.pair_id
        frame = _judgments(session, name)
    assert frame[["pair", "version"]].values.tolist() == [[first.pair_id, 1]]


def test_a_label_for_a_pair_other_than_the_one_held_is_refused(engine, make_campaign) -> None:
    """The judging page's write (``current=True``): only the pair the annotator holds; a label
    naming another pair (one never shown, or shown before) writes nothing, on both backends."""
    name = make_campaign(overlap=2, n_topics=1, n_docs=3)
    with session_scope(engine) as session:
        store.add_annotator(session, campaign=name, name="ann")
        ann = store.annotator_id(session, campaign=name, name="ann")
    with session_scope(engine) as session:
        held = store.next_pair(session, annotator_id=ann)
        other = store.peek_next_pair(session, annotator_id=ann, held_pair_id=held.pair_id)
    assert other is not None and other.pair_id != held.pair_id
    with (pytest.raises(store.NotCurrent, match="not the pair you hold now"),
          session_scope(engine) as session):
        store.record_judgment(session, annotator_id=ann, pair_id=other.pair_id, label=1,
                              expected_version=1, current=True)
    with session_scope(engine) as session:
        assert _judgments(session, name).empty
        assert store.next_pair(session, annotator_id=ann).pair_id == held.pair_id  # still held
        store.record_judgment(session, annotator_id=ann, pair_id=held.pair_id, label=1,
                              expected_version=1, current=True)
        assert _judgments(session, name)[["pair", "version"]].values.tolist() == [
            [held.pair_id, 1]]


@pytest.mark.postgres
def test_a_claim_waiting_for_another_tabs_claim_shares_it(pg_url, collection) -> None:
    """Tab 2 asks while tab 1's claim is not yet committed: it waits, then returns the same
    pair, and the slot it may have taken meanwhile is given back."""
    engine = open_engine(pg_url)
    name, ids = _campaign(engine, collection, "pair")
    results: list = []
    with session_scope(engine) as tab1:
        mine = store.next_pair(tab1, annotator_id=ids["a"])

        def tab2() -> None:
            with session_scope(engine) as session:
                results.append(store.next_pair(session, annotator_id=ids["a"]))

        worker = threading.Thread(target=tab2)
        worker.start()
        worker.join(timeout=0.5)
        assert worker.is_alive(), "tab 2 did not wait for tab 1's transaction"
    worker.join(timeout=10)
    with session_scope(engine) as session:
        slots = session.execute(sa.select(sa.func.sum(Pair.open_slots)).join(
            Campaign, Campaign.id == Pair.campaign_id).where(Campaign.name == name)).scalar_one()
    engine.dispose()
    assert [view.pair_id for view in results] == [mine.pair_id]
    assert slots == 100 * OVERLAP - 1  # one live claim, one slot taken


# The same class of race elsewhere: a unique constraint hit by a normal concurrent action. Each
# case holds one write transaction open while a second session does the same thing, then
# commits; the second must end with the store's own error (or succeed), never IntegrityError.

def _while_held(engine, url: str, first, second) -> object:
    """Run ``first(session)`` in an open transaction, start ``second(session)`` in another
    session (its own engine, as another server), commit the first; what the second returned
    or raised."""
    outcome: list = []

    def other() -> None:
        other_engine = open_engine(url)
        try:
            with session_scope(other_engine) as session:
                outcome.append(second(session))
        except Exception as exc:  # the outcome under test
            outcome.append(exc)
        finally:
            other_engine.dispose()

    worker = threading.Thread(target=other)
    with session_scope(engine) as session:
        first(session)
        worker.start()
        worker.join(timeout=0.5)
    worker.join(timeout=30)
    assert not worker.is_alive()
    return outcome[0]


def _judged_once(engine, make_campaign) -> tuple[str, int, int]:
    """A campaign where annotator ``x`` judged one pair (version 1); (campaign, x, pair)."""
    name = make_campaign(overlap=2, n_topics=1, n_docs=3)
    with session_scope(engine) as session:
        store.add_annotator(session, campaign=name, name="x")
        x = store.annotator_id(session, campaign=name, name="x")
        pair = store.next_pair(session, annotator_id=x).pair_id
        store.record_judgment(session, annotator_id=x, pair_id=pair, label=1,
                              expected_version=1)
    return name, x, pair


def test_two_tabs_changing_one_label_store_one_version(engine, db_url, make_campaign) -> None:
    name, x, pair = _judged_once(engine, make_campaign)

    def change(label: int):
        return lambda session: store.record_judgment(session, annotator_id=x, pair_id=pair,
                                                     label=label, expected_version=2)

    assert isinstance(_while_held(engine, db_url, change(0), change(1)), DuplicateWrite)
    with session_scope(engine) as session:
        assert sorted(_judgments(session, name)["version"]) == [1, 2]


def test_the_same_person_added_twice_at_once_is_one_error(engine, db_url, make_campaign) -> None:
    name = make_campaign()

    def add(session):
        return store.add_annotator(session, campaign=name, name="zoe")

    outcome = _while_held(engine, db_url, add, add)
    assert isinstance(outcome, InputError) and "already exists" in str(outcome), outcome
    with session_scope(engine) as session:
        assert store.list_annotators(session, campaign=name)["name"].tolist() == ["zoe"]


def test_an_import_while_the_person_judges_continues_their_versions(engine, db_url,
                                                                     make_campaign) -> None:
    name = make_campaign(overlap=2, n_topics=1, n_docs=3)
    with session_scope(engine) as session:
        store.add_annotator(session, campaign=name, name="x")
        x = store.annotator_id(session, campaign=name, name="x")
        view = store.next_pair(session, annotator_id=x)
    frame = pd.DataFrame({"annotator": ["x"], "topic": [view.topic_id], "doc": [view.doc_id],
                          "label": ["0"]})

    def judge(session) -> None:
        store.record_judgment(session, annotator_id=x, pair_id=view.pair_id, label=1,
                              expected_version=1)

    def import_row(session) -> int:
        return store.import_judgments(session, campaign=name, frame=frame)

    assert _while_held(engine, db_url, judge, import_row) == 1
    with session_scope(engine) as session:
        assert _judgments(session, name)[["pair", "version"]].values.tolist() == [
            [view.pair_id, 1], [view.pair_id, 2]]
