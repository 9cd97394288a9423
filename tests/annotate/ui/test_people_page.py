"""AppTest (no browser): the people page (list, add a batch, remove) and every page's role guard.

Page scripts run on their own here, with the logged-in person put in the session as
``session.login`` does: the people page is tested whether or not the router lists it, and the
guard is tested as a second line of defence, behind the router.
"""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd
import pytest
import sqlalchemy as sa
from pooljudge.annotate import store
from pooljudge.annotate.records import LabelScale
from pooljudge.annotate.store import open_engine, session_scope
from pooljudge.annotate.store.models import Annotator
from pooljudge.annotate.ui import keys
from pooljudge.annotate.ui.people import parse_people
from pooljudge.annotate.ui.render import JOINER
from streamlit.testing.v1 import AppTest

from pooljudge.errors import InputError

PAGES = Path(__file__).resolve().parents[3] / "annotate" / "app_pages"
ADMIN_ONLY = ("overview", "agreement", "export", "evaluate", "create", "people")


@pytest.fixture
def camp(tmp_path, monkeypatch) -> dict:
    """Campaign ``c`` with ann1 (annotator), referee (adjudicator), boss (admin) and an imported
    label source ``qrels``."""
    url = f"sqlite:///{tmp_path / 'people.db'}"
    monkeypatch.setenv("POOLJUDGE_DB", url)
    monkeypatch.setenv("POOLJUDGE_URL", "https://pj.example.org")
    engine = open_engine(url)
    with session_scope(engine) as session:
        info = store.create_campaign(
            session, name="c", scale=LabelScale.binary(),
            topics=pd.DataFrame({"id": ["7"], "title": "t", "description": "", "narrative": ""}),
            documents=pd.DataFrame({"id": ["d1"], "title": "x", "text": "x"}),
            pool=pd.DataFrame({"topic": ["7"], "doc": ["d1"], "order": [1], "best_rank": [1],
                               "runs": ["r"]}))
        tokens = {n: store.add_annotator(session, campaign="c", name=n, role=r)
                  for n, r in (("ann1", "annotator"), ("referee", "adjudicator"),
                               ("boss", "admin"))}
        store.add_label_source(session, campaign_id=info.id, name="qrels")
    yield {"engine": engine, "tokens": tokens}
    engine.dispose()


def _who(camp: dict, name: str):
    with session_scope(camp["engine"], readonly=True) as session:
        return store.authenticate(session, token=camp["tokens"][name])


def _page(page: str, camp: dict, name: str | None) -> AppTest:
    """``app_pages/<page>.py`` run on its own, logged in as ``name`` (None: nobody) the way
    ``session.login`` leaves the session."""
    at = AppTest.from_file(str(PAGES / f"{page}.py"), default_timeout=30)
    if name is not None:
        at.session_state[keys.USER] = _who(camp, name)
        at.session_state[keys.TOKEN] = camp["tokens"][name]
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _people(camp: dict) -> list[tuple[str, str]]:
    with session_scope(camp["engine"], readonly=True) as session:
        frame = store.list_annotators(session, campaign="c")
    return sorted(map(tuple, frame.loc[frame["human"], ["name", "role"]].to_numpy().tolist()))


def _add(at: AppTest, text: str) -> AppTest:
    at.text_area(key=keys.PEOPLE_TEXT).input(text)
    at.button(key=keys.ADD_PEOPLE_SUBMIT).click().run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _plain(element) -> str:
    return element.value.replace("\\", "").replace(JOINER, "")  # md_escape's marks


BEFORE = [("ann1", "annotator"), ("boss", "admin"), ("referee", "adjudicator")]


# --- the people page ----------------------------------------------------------------------------

def test_the_page_lists_people_by_name_and_role_without_tokens(camp) -> None:
    at = _page("people", camp, "boss")
    table = at.dataframe[0].value
    assert list(table.columns) == ["Name", "Role", "Judgments", "Last judgment (UTC)"]
    assert sorted(map(tuple, table[["Name", "Role"]].to_numpy().tolist())) == BEFORE
    assert set(table["Last judgment (UTC)"]) == {"never"}  # no raw None
    with session_scope(camp["engine"], readonly=True) as session:
        hashes = session.execute(sa.select(Annotator.token_hash)).scalars().all()
    shown = " ".join(str(v) for v in table.to_numpy().ravel())
    assert not any(h and h in shown for h in hashes)
    # the admin cannot remove themselves; the label source is no person
    assert at.selectbox(key=keys.REMOVE_PERSON).options == ["ann1", "referee"]


def test_adding_a_batch_shows_working_links_once_stored_as_hashes(camp) -> None:
    at = _add(_page("people", camp, "boss"), "ann2\n\n  lead , admin \nref2,adjudicator")
    assert not at.error, [e.value for e in at.error]
    links = re.findall(r"^(\w+)\s+(\S+)\s+(\S+)$", at.code[0].value, flags=re.M)
    assert [(r, n) for r, n, _ in links] == [("annotator", "ann2"), ("admin", "lead"),
                                            ("adjudicator", "ref2")]
    with session_scope(camp["engine"], readonly=True) as session:
        for role, name, url in links:
            assert url.startswith("https://pj.example.org/?token=")
            token = url.split("?token=", 1)[1]
            person = store.authenticate(session, token=token)
            assert (person.campaign_name, person.name, person.role) == ("c", name, role)
            stored = session.execute(sa.select(Annotator.token_hash)
                                     .where(Annotator.name == name)).scalar_one()
            assert stored == store.hash_token(token) != token
    assert _people(camp) == sorted([*BEFORE, ("ann2", "annotator"), ("lead", "admin"),
                                    ("ref2", "adjudicator")])
    assert at.text_area(key=keys.PEOPLE_TEXT).value == ""
    listed = at.dataframe[0].value["Name"].tolist()              # the table is refreshed
    assert {"ann2", "lead", "ref2"} <= set(listed) and len(listed) == 6
    at.button(key=keys.HIDE_LINKS).click().run()
    assert not at.code


@pytest.mark.parametrize(("text", "message"), [
    ("new1\nann1", "annotator 'ann1' already exists in campaign 'c'"),
    ("new1\nnew2,boss", "people:2: unknown role 'boss' for 'new2'"),
    ("new1\nnew2\nnew1,admin", "people:3: 'new1' is also on line 1"),
    ("new1\nbad\tname", "an annotator name must be non-blank"),
    ("\n  \n", "nobody to add"),
])
def test_a_bad_batch_adds_nobody(camp, text, message) -> None:
    at = _add(_page("people", camp, "boss"), text)
    assert not at.code and len(at.error) == 1
    assert "Nobody was added" in _plain(at.error[0]) and message in _plain(at.error[0])
    assert _people(camp) == BEFORE
    assert at.text_area(key=keys.PEOPLE_TEXT).value == text      # kept, to correct


def test_removing_a_person_logs_them_out_and_needs_the_box_ticked(camp) -> None:
    at = _page("people", camp, "boss")
    at.selectbox(key=keys.REMOVE_PERSON).select("ann1")
    at.button(key=keys.REMOVE_SUBMIT).click().run()
    assert "tick the box" in _plain(at.error[0]) and _who(camp, "ann1") is not None
    at.selectbox(key=keys.REMOVE_PERSON).select("ann1")
    at.checkbox(key=keys.REMOVE_CONFIRM).check()
    at.button(key=keys.REMOVE_SUBMIT).click().run()
    assert "Removed ann1" in _plain(at.success[0])
    assert _who(camp, "ann1") is None
    assert _people(camp) == [p for p in BEFORE if p[0] != "ann1"]
    assert at.selectbox(key=keys.REMOVE_PERSON).options == ["referee"]


def test_parse_people_reads_names_and_roles() -> None:
    assert parse_people("a\n\n b , admin\nc,annotator\n") == [
        ("a", "annotator"), ("b", "admin"), ("c", "annotator")]
    with pytest.raises(InputError, match=r"people:2: a person needs a name"):
        parse_people("a\n,admin")


# --- the role guard on every page ---------------------------------------------------------------

def _only_refusal(at: AppTest, allowed: str, role: str) -> None:
    assert [e.value for e in at.error] == [
        f"Not allowed: this page is for {allowed} only, and you are logged in as {role}."]
    assert len(at.main.children) == 1 and not at.sidebar.children


@pytest.mark.parametrize("page", ADMIN_ONLY)
@pytest.mark.parametrize(("person", "role"), [("ann1", "annotator"), ("referee", "adjudicator")])
def test_admin_pages_refuse_everyone_else(camp, page, person, role) -> None:
    _only_refusal(_page(page, camp, person), "admin", role)


def test_the_adjudication_page_refuses_an_annotator_only(camp) -> None:
    _only_refusal(_page("adjudicate", camp, "ann1"), "adjudicator, admin", "annotator")
    assert not _page("adjudicate", camp, "referee").error


@pytest.mark.parametrize("page", ["judge", *ADMIN_ONLY])
def test_every_page_without_a_login_shows_only_the_login_problem(camp, page) -> None:
    at = _page(page, camp, None)
    assert not at.error and "login link" in at.info[0].value
    assert len(at.main.children) == 1


def test_the_judging_page_opens_for_every_role(camp) -> None:
    # overlap 1 and one pair: the first to open the page claims it, the others have nothing left
    first = _page("judge", camp, "referee")
    assert not first.error and first.button(key=keys.label_key(1, 1))
    for person in ("ann1", "boss"):
        at = _page("judge", camp, person)
        assert not at.error and "Nothing left to judge" in at.success[0].value
