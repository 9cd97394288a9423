"""AppTest (no browser): a role granted with ``pooljudge annotators grant`` opens the other
campaign's pages with the person's own login link, and ``revoke`` closes them again (also on a
page already open)."""

from __future__ import annotations

import pandas as pd
import pytest
from pooljudge.annotate import store
from pooljudge.annotate.records import LabelScale
from pooljudge.annotate.store import database_url, session_scope
from pooljudge.annotate.ui import keys
from streamlit.testing.v1 import AppTest

from pooljudge.cli import main


@pytest.fixture
def campaigns(app_db) -> dict[str, str]:
    """Campaigns ``home`` (annotator ann) and ``away`` (annotator bea); their tokens."""
    docs = pd.DataFrame({"id": ["d1", "d2"], "title": "t", "text": "x"})
    topics = pd.DataFrame({"id": ["7"], "title": ["widgets"], "description": "d",
                           "narrative": "n"})
    pool = pd.DataFrame({"topic": "7", "doc": ["d1", "d2"], "order": [1, 2],
                         "best_rank": [1, 2], "runs": "r1"})
    with session_scope(app_db) as session:
        for name in ("home", "away"):
            store.create_campaign(session, name=name, scale=LabelScale.binary(), topics=topics,
                                  documents=docs, pool=pool)
        return {"ann": store.add_annotator(session, campaign="home", name="ann"),
                "bea": store.add_annotator(session, campaign="away", name="bea")}


def _cli(*argv: str) -> None:
    assert main(["annotators", *argv, "--db", database_url()]) == 0


def _headings(at: AppTest) -> list[str]:
    return [t.value for t in at.title]


def _errors(at: AppTest) -> str:
    return " ".join(e.value for e in at.error)


def test_a_granted_admin_opens_the_other_campaigns_pages_until_revoked(
        campaigns, open_page, capsys) -> None:
    at = open_page(campaigns["ann"])  # an annotator: no admin page
    with pytest.raises(ValueError, match="Could not find a navigation page"):
        at.switch_page("app_pages/people.py")

    _cli("grant", "ann", "--of", "home", "--campaign", "away", "--role", "admin")
    at = open_page(campaigns["ann"], "people")
    assert _headings(at) == ["People · away"] and not at.error
    assert "bea" in at.dataframe[0].value["Name"].tolist()
    at.switch_page("app_pages/overview.py").run()
    assert _headings(at) == ["Overview · away"] and not at.exception

    _cli("revoke", "ann", "--of", "home", "--campaign", "away")
    at.run()  # the page already open: its next run is refused
    assert not at.exception and at.session_state[keys.ROLES] == {"home": "annotator"}
    assert "Overview · away" not in _headings(at) and not at.metric and not at.dataframe
    at = open_page(campaigns["ann"])
    with pytest.raises(ValueError, match="Could not find a navigation page"):
        at.switch_page("app_pages/people.py")
    capsys.readouterr()


def test_a_granted_adjudicator_adjudicates_but_does_not_administer(campaigns,
                                                                   open_page) -> None:
    _cli("grant", "ann", "--of", "home", "--campaign", "away", "--role", "adjudicator")
    at = open_page(campaigns["ann"], "adjudicate")
    assert _headings(at) == ["Adjudicate · away"] and not at.error
    with pytest.raises(ValueError, match="Could not find a navigation page"):
        at.switch_page("app_pages/people.py")
