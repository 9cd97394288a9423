"""Rights per campaign and logins, checked inside the writer's transaction (both backends)."""

from __future__ import annotations

import threading
import time

import pytest
import sqlalchemy as sa
from pooljudge.annotate import store
from pooljudge.annotate.store import Credential, NotAllowed, session_scope
from pooljudge.annotate.store.access_models import CampaignRole, LoginSession

from pooljudge.errors import InputError


@pytest.fixture
def two(engine, make_campaign):
    """Campaigns a and b; a's admin boss, a's annotator ann, b's admin other (their tokens)."""
    a, b = make_campaign(), make_campaign()
    with session_scope(engine) as session:
        tokens = {"boss": store.add_annotator(session, campaign=a, name="boss", role="admin"),
                  "ann": store.add_annotator(session, campaign=a, name="ann"),
                  "other": store.add_annotator(session, campaign=b, name="other",
                                               role="admin")}
    return a, b, tokens


def _authorize(engine, token: str, campaign: str, roles=("admin",)):
    with session_scope(engine) as session:
        return store.authorize(session, credential=Credential("token", token),
                               campaign=campaign, roles=roles)


def test_roles_are_per_campaign(engine, two) -> None:
    a, b, tokens = two
    assert _authorize(engine, tokens["boss"], a).role == "admin"
    with pytest.raises(NotAllowed, match=f"in campaign '{b}'"):
        _authorize(engine, tokens["boss"], b)
    with pytest.raises(NotAllowed, match="role admin"):
        _authorize(engine, tokens["ann"], a)
    with session_scope(engine) as session:
        boss = store.authenticate(session, token=tokens["boss"])
        assert store.campaign_roles(session, annotator_id=boss.id) == {a: "admin"}
        store.grant_role(session, annotator_id=boss.id, campaign=b, role="adjudicator")
        assert store.campaign_roles(session, annotator_id=boss.id) == {a: "admin",
                                                                       b: "adjudicator"}
    assert _authorize(engine, tokens["boss"], b, ("adjudicator", "admin")).campaign_name == b
    with pytest.raises(NotAllowed):
        _authorize(engine, tokens["boss"], b)


def test_a_removed_person_writes_nothing_in_the_same_transaction(engine, two) -> None:
    """The UI's write pattern: authorize, then write, one transaction. After removal the
    authorize raises, and the write that follows it never happens."""
    a, _, tokens = two
    with session_scope(engine) as session:
        store.remove_annotator(session, campaign=a, name="boss")
    with pytest.raises(NotAllowed, match="no longer valid"), session_scope(engine) as session:
        store.authorize(session, credential=Credential("token", tokens["boss"]), campaign=a,
                        roles=("admin",))
        store.add_annotator(session, campaign=a, name="intruder", role="admin")
    with session_scope(engine, readonly=True) as session:
        names = set(store.list_annotators(session, campaign=a)["name"])
    assert "intruder" not in names


def test_login_sessions_expire_end_at_logout_and_at_removal(engine, two) -> None:
    a, _, tokens = two
    with session_scope(engine) as session:
        assert store.start_login_session(session, token="wrong") is None
        first = store.start_login_session(session, token=tokens["boss"])
        second = store.start_login_session(session, token=tokens["boss"])
        short = store.start_login_session(session, token=tokens["ann"], hours=-1)
        stored = set(session.execute(sa.select(LoginSession.id_hash)).scalars())
    assert first not in stored and store.hash_token(first) in stored  # only the digest
    with session_scope(engine, readonly=True) as session:
        assert store.login(session, credential=Credential("session", first)).name == "boss"
        assert store.login(session, credential=Credential("session", short)) is None
        assert store.login(session, credential=Credential("session", "")) is None
    with session_scope(engine) as session:
        store.end_login_session(session, session_id=first)
    with session_scope(engine, readonly=True) as session:
        assert store.login(session, credential=Credential("session", first)) is None
        assert store.login(session, credential=Credential("session", second)).name == "boss"
    with session_scope(engine) as session:
        boss = store.authenticate(session, token=tokens["boss"]).id
        mine = sa.select(LoginSession).where(LoginSession.annotator_id == boss)
        assert len(session.execute(mine).all()) == 1  # the second
        store.remove_annotator(session, campaign=a, name="boss")
        assert session.execute(mine).all() == []
    with pytest.raises(NotAllowed), session_scope(engine) as session:
        store.authorize(session, credential=Credential("session", second), campaign=a,
                        roles=("admin",))


def test_grants_refuse_other_roles_and_the_own_campaign(engine, two) -> None:
    a, b, tokens = two
    with session_scope(engine) as session:
        boss = store.authenticate(session, token=tokens["boss"])
        with pytest.raises(InputError, match="campaign role is one of"):
            store.grant_role(session, annotator_id=boss.id, campaign=b, role="annotator")
        with pytest.raises(InputError, match=r"cannot grant .boss. a role in .* their own"):
            store.grant_role(session, annotator_id=boss.id, campaign=a, role="admin")
        store.grant_role(session, annotator_id=boss.id, campaign=b, role="admin")
        store.grant_role(session, annotator_id=boss.id, campaign=b, role="admin")  # replaces
        assert session.execute(sa.select(sa.func.count()).select_from(CampaignRole).where(
            CampaignRole.annotator_id == boss.id)).scalar() == 1


def test_a_removal_during_a_write_waits_and_the_next_write_is_refused(engine, two) -> None:
    """The authorize locks the person's row (PostgreSQL: FOR UPDATE; SQLite: the writer's
    lock): a removal that starts while a write is in flight waits for it, and a write that
    starts after the removal is refused."""
    a, _, tokens = two
    order: list[str] = []
    inside = threading.Event()

    def remove() -> None:
        inside.wait(5)
        with session_scope(engine) as session:
            store.remove_annotator(session, campaign=a, name="boss")
        order.append("removed")

    thread = threading.Thread(target=remove)
    thread.start()
    with session_scope(engine) as session:
        store.authorize(session, credential=Credential("token", tokens["boss"]), campaign=a,
                        roles=("admin",))
        inside.set()
        time.sleep(0.5)
        store.add_annotator(session, campaign=a, name="late")
        order.append("written")
    thread.join(10)
    assert order == ["written", "removed"]
    with pytest.raises(NotAllowed):
        _authorize(engine, tokens["boss"], a)


def test_revoke_ends_a_grant_and_removal_ends_all_grants(engine, two) -> None:
    a, b, tokens = two
    with session_scope(engine) as session:
        boss = store.annotator_id(session, campaign=a, name="boss")
        ann = store.annotator_id(session, campaign=a, name="ann")
        store.grant_role(session, annotator_id=boss, campaign=b, role="admin")
        store.grant_role(session, annotator_id=ann, campaign=b, role="adjudicator")
        assert store.list_grants(session, campaign=b).to_dict("records") == [
            {"name": "ann", "of": a, "role": "adjudicator"},
            {"name": "boss", "of": a, "role": "admin"}]
        assert store.list_grants(session, campaign=a).empty
    assert _authorize(engine, tokens["boss"], b).role == "admin"
    with session_scope(engine) as session:
        assert store.revoke_role(session, annotator_id=boss, campaign=b) == "admin"
        with pytest.raises(InputError, match=f"'boss' holds no granted role in campaign '{b}'"):
            store.revoke_role(session, annotator_id=boss, campaign=b)
        with pytest.raises(InputError, match="no campaign named 'nowhere'"):
            store.revoke_role(session, annotator_id=ann, campaign="nowhere")
    with pytest.raises(NotAllowed, match=f"in campaign '{b}'"):
        _authorize(engine, tokens["boss"], b)
    assert _authorize(engine, tokens["ann"], b, ("adjudicator",)).name == "ann"
    with session_scope(engine) as session:
        store.remove_annotator(session, campaign=a, name="ann")
        assert store.list_grants(session, campaign=b).empty
        token = store.add_annotator(session, campaign=a, name="ann")  # re-added: no grant back
        assert store.campaign_roles(session, annotator_id=ann) == {a: "annotator"}
    with pytest.raises(NotAllowed):
        _authorize(engine, token, b, ("adjudicator", "admin"))


def test_grants_refuse_removed_people_label_sources_and_unknown_campaigns(engine, two) -> None:
    a, b, _ = two
    with session_scope(engine) as session:
        ann = store.annotator_id(session, campaign=a, name="ann")
        qrels = store.add_label_source(session, campaign_id=store.get_campaign(
            session, name=a).id, name="qrels")
        with pytest.raises(InputError, match="no campaign named 'nowhere'"):
            store.grant_role(session, annotator_id=ann, campaign="nowhere", role="admin")
        with pytest.raises(InputError, match="only to an active person who logs in"):
            store.grant_role(session, annotator_id=qrels, campaign=b, role="admin")
        store.remove_annotator(session, campaign=a, name="ann")
        with pytest.raises(InputError, match="only to an active person who logs in"):
            store.grant_role(session, annotator_id=ann, campaign=b, role="admin")
        assert store.list_grants(session, campaign=b).empty


def test_concurrent_grants_to_one_person_leave_one_grant(engine, two) -> None:
    """Grants lock the person's row: two writers granting at once never trip the unique
    (person, campaign) constraint, and one grant (either role) remains."""
    _, b, tokens = two
    with session_scope(engine, readonly=True) as session:
        boss = store.authenticate(session, token=tokens["boss"]).id
    errors: list[BaseException] = []

    def grant(role: str) -> None:
        try:
            for _ in range(5):
                with session_scope(engine) as session:
                    store.grant_role(session, annotator_id=boss, campaign=b, role=role)
        except BaseException as exc:  # reported by the assert below
            errors.append(exc)

    threads = [threading.Thread(target=grant, args=(role,)) for role in ("admin", "adjudicator")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert errors == []
    with session_scope(engine, readonly=True) as session:
        granted = store.list_grants(session, campaign=b)
    assert len(granted) == 1 and granted["role"].iat[0] in ("admin", "adjudicator")
