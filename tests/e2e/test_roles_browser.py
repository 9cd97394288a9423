"""Rights per campaign and logins in a real browser against the real ``pooljudge serve``.

- W1: a person's page is open, the person is removed with ``pooljudge annotators remove``,
  then a write is pressed (every write callback of the admin and adjudicator pages): nothing
  is stored.
- W2: two admins of different campaigns; each admin page refuses the other's campaign, even
  through the address, and the campaign picker lists only one's own.
- Login: the login link sets an HttpOnly, SameSite=Strict session cookie and leaves the address
  without its token; reload and a bookmark stay logged in; Log out ends it.

Everything runs on SQLite. The cases that exercise the store's authorisation (a removed person's
writes, a campaign refused through the address, the picker, a granted role) also run on
PostgreSQL (``served``), on a few representative pages and writes rather than all of them, so
the file's runtime does not double.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator

import pandas as pd
import pytest
import sqlalchemy as sa
from pooljudge.annotate import store
from pooljudge.annotate.store import open_engine, session_scope
from pooljudge.annotate.ui import keys
from pooljudge.annotate.ui.guidelines import SAVE, editor_key
from pooljudge.annotate.ui.terms_admin import TERMS_SAVE, terms_text_key

from tests.e2e.conftest import App
from tests.support.browser import start_serve, stop_app, wait_idle
from tests.support.guidelines import acknowledge_for
from tests.support.postgres import PG_SERVER, create_pg_database, drop_pg_database

ADMIN_PAGES = ("overview", "agreement", "export", "evaluate", "people", "terms", "adjudicate")
PEOPLE = (("boss", "admin"), ("a", "annotator"), ("b", "annotator"), ("ref", "adjudicator"))


def _serve(url: str, log) -> Iterator[App]:
    engine = open_engine(url)
    base, process = start_serve(url, log)
    try:
        yield App(base, engine)
    finally:
        stop_app(process)
        engine.dispose()


@pytest.fixture(scope="module")
def app(tmp_path_factory) -> Iterator[App]:
    """The real ``pooljudge serve`` on a SQLite file of its own (replaces the module server)."""
    folder = tmp_path_factory.mktemp("roles")
    yield from _serve(f"sqlite:///{folder / 'roles.db'}", folder / "serve.log")


@pytest.fixture(scope="module")
def pg_app(tmp_path_factory) -> Iterator[App]:
    """The real ``pooljudge serve`` on a fresh PostgreSQL database, dropped afterwards."""
    name = create_pg_database("pooljudge_roles")
    try:
        yield from _serve(PG_SERVER.format(database=name),
                          tmp_path_factory.mktemp("roles-pg") / "serve.log")
    finally:
        drop_pg_database(name)


SQLITE = "sqlite"
POSTGRES = pytest.param("postgresql", marks=pytest.mark.postgres)


@pytest.fixture(params=[SQLITE, POSTGRES])
def served(request) -> App:
    """The server on SQLite (``app``) or on PostgreSQL (``pg_app``), as parametrised."""
    return request.getfixturevalue("app" if request.param == SQLITE else "pg_app")


def _cases(every: list, on_postgres: list) -> list:
    """(case, backend) parameters: every case on SQLite, those of ``on_postgres`` also on
    PostgreSQL."""
    def name(case) -> str:
        return "-".join(map(str, case)) if isinstance(case, tuple) else str(case)

    return [*[pytest.param(c, SQLITE, id=f"{name(c)}-sqlite") for c in every],
            *[pytest.param(c, "postgresql", id=f"{name(c)}-postgresql",
                           marks=pytest.mark.postgres) for c in on_postgres]]


def _judged(app: App) -> tuple[str, dict[str, str]]:
    """A campaign (overlap 2) where a and b disagree on d2 and d5."""
    campaign, tokens = app.campaign(overlap=2, people=PEOPLE)
    labels = {"a": [1, 1, 0, 0, 1, 0], "b": [1, 0, 0, 0, 0, 0]}
    frame = pd.DataFrame([(n, "101", f"d{i}", lab) for n, row in labels.items()
                          for i, lab in enumerate(row, start=1)],
                         columns=["annotator", "topic", "doc", "label"])
    with session_scope(app.engine) as session:
        store.import_judgments(session, campaign=campaign, frame=frame, source="human")
    return campaign, tokens


def _annotators(app: App, *argv: str) -> None:
    """``pooljudge annotators ...`` on the server's database, as an organiser would."""
    done = subprocess.run([sys.executable, "-m", "pooljudge", "annotators", *argv,
                           "--db", app.engine.url.render_as_string(hide_password=False)],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr


def _picker_options(page) -> list[str]:
    """The campaign picker's options, as a person sees them after clicking its box (the
    combobox itself: a click on the widget's centre may land between its label and its box)."""
    page.locator(f".st-key-{keys.CAMPAIGN_PICKER} [role='combobox']").click()
    page.get_by_role("option").first.wait_for()
    return page.get_by_role("option").all_inner_texts()


def _remove(app: App, campaign: str, name: str) -> None:
    _annotators(app, "remove", "--campaign", campaign, name)


def _state(app: App, campaign: str) -> tuple:
    """Everything the write callbacks could change, to compare before and after."""
    with session_scope(app.engine, readonly=True) as session:
        people = store.list_annotators(session, campaign=campaign, include_removed=True)
        info = store.get_campaign(session, name=campaign)
        terms = store.campaign_terms(session, campaign=campaign)
        rows = len(store.judgments_frame(session, campaign=campaign, latest_only=False))
        campaigns = [c.name for c in store.list_campaigns(session)]
    return (sorted(map(tuple, people[["name", "role", "active"]].to_numpy().tolist())),
            info.guidelines, terms, rows, campaigns)


def _press_add(page, _campaign_id: int) -> None:
    page.locator(f".st-key-{keys.PEOPLE_TEXT} textarea").fill("intruder,admin")
    page.locator(f".st-key-{keys.ADD_PEOPLE_SUBMIT} button").click()


def _press_remove(page, _campaign_id: int) -> None:
    page.locator(f".st-key-{keys.REMOVE_PERSON}").click()
    page.get_by_role("option", name="a", exact=True).click()
    page.locator(f".st-key-{keys.REMOVE_CONFIRM} label").click()
    page.locator(f".st-key-{keys.REMOVE_SUBMIT} button").click()


def _press_guidelines(page, campaign_id: int) -> None:
    page.locator(f".st-key-{editor_key(campaign_id)} textarea").fill("New rules by a ghost")
    page.locator(f".st-key-{SAVE} button").click()


def _press_terms(page, campaign_id: int) -> None:
    page.locator(f".st-key-{terms_text_key(campaign_id, '101')} textarea").fill("ghost")
    page.locator(f".st-key-{TERMS_SAVE} button").click()


def _press_adjudicate(page, _campaign_id: int) -> None:
    page.locator(f'[class*="st-key-{keys.ADJUDICATE_PREFIX}_"] button').last.click()


WRITES = {  # callback -> (page, who presses it, the press)
    "add-people": ("people", "boss", _press_add),
    "remove-person": ("people", "boss", _press_remove),
    "save-guidelines": ("people", "boss", _press_guidelines),
    "save-terms": ("terms", "boss", _press_terms),
    "adjudicate-as-admin": ("adjudicate", "boss", _press_adjudicate),
    "adjudicate-as-adjudicator": ("adjudicate", "ref", _press_adjudicate),
}


@pytest.mark.parametrize(("write", "served"),
                         _cases(list(WRITES), ["add-people", "adjudicate-as-adjudicator"]),
                         indirect=["served"])
def test_a_removed_person_writes_nothing_from_an_open_page(served, page, write) -> None:
    app = served
    campaign, tokens = _judged(app)
    path, person, press = WRITES[write]
    app.open_as(page, tokens[person], f"/{path}")
    page.get_by_role("heading", name=f"· {campaign}").first.wait_for()
    with session_scope(app.engine, readonly=True) as session:
        campaign_id = store.get_campaign(session, name=campaign).id
    before = _state(app, campaign)
    _remove(app, campaign, person)
    removed = _state(app, campaign)
    press(page, campaign_id)
    wait_idle(page)
    page.get_by_text("not valid").first.wait_for()
    assert _state(app, campaign) == removed
    assert before[1:] == removed[1:]  # the removal changed the people only


def test_a_live_admin_writes_through_the_same_callbacks(app, page) -> None:
    """The control: the same presses by a person still in store what they say."""
    campaign, tokens = _judged(app)
    app.open_as(page, tokens["boss"], "/people")
    page.get_by_role("heading", name=f"People · {campaign}").wait_for()
    with session_scope(app.engine, readonly=True) as session:
        campaign_id = store.get_campaign(session, name=campaign).id
    _press_add(page, campaign_id)
    page.get_by_text("Added 1 people").wait_for()
    _press_guidelines(page, campaign_id)
    page.get_by_text("Saved. Everyone reads").wait_for()
    people, guidelines, *_ = _state(app, campaign)
    assert ("intruder", "admin", True) in people and guidelines == "New rules by a ghost"


@pytest.fixture
def rivals(served) -> tuple[tuple[str, str], tuple[str, str]]:
    """Two campaigns, each with its own admin: ((campaign, token), (campaign, token))."""
    first, one = _judged(served)
    second, two = _judged(served)
    return (first, one["boss"]), (second, two["boss"])


@pytest.mark.parametrize(("case", "served"), _cases(
    [(path, who) for path in ADMIN_PAGES for who in (0, 1)],
    [("people", 0), ("export", 1), ("adjudicate", 0)]), indirect=["served"])
def test_an_admin_cannot_open_another_campaign_through_the_address(served, page, rivals,
                                                                   case) -> None:
    app, (path, who) = served, case
    (mine, token), (theirs, _) = rivals[who], rivals[1 - who]
    app.open_as(page, token, f"/{path}")
    page.get_by_role("heading", name=f"· {mine}").first.wait_for()
    page.goto(f"{app.url}/{path}?campaign={theirs}")
    wait_idle(page)
    page.get_by_text("you are not").first.wait_for()
    body = page.inner_text("body")
    assert f"campaign '{theirs}'" in body and "Not allowed" in body
    assert page.locator('[data-testid="stDataFrame"]').count() == 0
    assert page.locator("button", has_text="Download").count() == 0
    assert page.locator('[class*="st-key-adjudicate_"]').count() == 0


def test_the_picker_lists_only_ones_own_campaigns(served, page, rivals) -> None:
    app = served
    (mine, token), (theirs, _) = rivals
    app.open_as(page, token, "/overview")
    page.get_by_role("heading", name=f"Overview · {mine}").wait_for()
    options = _picker_options(page)
    assert mine in options and theirs not in options


def test_a_granted_role_opens_the_other_campaign_until_revoked(served, page, rivals) -> None:
    """``pooljudge annotators grant``: the person's own login then lists and opens the other
    campaign (picker and address); after ``revoke`` the same page refuses it."""
    app = served
    (mine, token), (theirs, _) = rivals
    _annotators(app, "grant", "boss", "--of", mine, "--campaign", theirs, "--role", "admin")
    app.open_as(page, token, "/people")
    page.get_by_role("heading", name=f"People · {mine}").wait_for()
    assert sorted(_picker_options(page)) == sorted([mine, theirs])
    page.keyboard.press("Escape")
    page.goto(f"{app.url}/people?campaign={theirs}")
    page.get_by_role("heading", name=f"People · {theirs}").wait_for()
    _annotators(app, "revoke", "boss", "--of", mine, "--campaign", theirs)
    page.reload()
    wait_idle(page)
    page.get_by_text("you are not").first.wait_for()
    assert page.get_by_role("heading", name=f"People · {theirs}").count() == 0
    assert page.locator('[data-testid="stDataFrame"]').count() == 0


def test_the_login_cookie_survives_reload_and_bookmarks_and_ends_at_log_out(app, page) -> None:
    campaign, tokens = _judged(app)
    acknowledge_for(app.engine, tokens["boss"])
    page.goto(f"{app.url}/export?campaign={campaign}&token={tokens['boss']}")
    page.get_by_role("heading", name=f"Export · {campaign}").wait_for()
    assert "token" not in page.url and f"campaign={campaign}" in page.url
    [cookie] = [c for c in page.context.cookies() if c["name"] == "pooljudge_session"]
    assert cookie["httpOnly"] and cookie["sameSite"] == "Strict"
    assert cookie["value"] not in tokens.values()
    with session_scope(app.engine, readonly=True) as session:  # the store keeps its hash only
        hashes = set(session.execute(sa.text("SELECT id_hash FROM login_session")).scalars())
    assert store.hash_token(cookie["value"]) in hashes and cookie["value"] not in hashes
    page.reload()
    page.get_by_role("heading", name=f"Export · {campaign}").wait_for()
    page.goto(f"{app.url}/agreement")  # a bookmark of another page: the campaign comes along
    page.get_by_role("heading", name=f"Agreement · {campaign}").wait_for()
    page.locator(f".st-key-{keys.LOGOUT} button").click()
    page.get_by_text("You are logged out").wait_for()
    with session_scope(app.engine, readonly=True) as session:
        assert store.login(session, credential=store.Credential("session",
                                                                cookie["value"])) is None
    page.goto(f"{app.url}/export?campaign={campaign}")  # the old cookie logs in no one
    page.get_by_text("This login is not valid").wait_for()
    assert page.get_by_role("heading", name=f"Export · {campaign}").count() == 0
    page.goto(f"{app.url}/logout")  # the route clears the cookie too
    page.get_by_text("Open the personal login link").wait_for()
    assert not [c for c in page.context.cookies() if c["name"] == "pooljudge_session"]
