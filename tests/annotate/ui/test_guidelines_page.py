"""AppTest (no browser): guidelines first. A first visit shows the whole guidelines, escaped,
and no pair (nothing is claimed); "I have read the guidelines" stores one acknowledgement and
the pairs appear; a change (admin editor or store) opens them again; blank guidelines need
nothing. The editor on the People page saves and lists who has read the current text."""

from __future__ import annotations

import sqlalchemy as sa
from pooljudge.annotate import store
from pooljudge.annotate.records import LabelScale
from pooljudge.annotate.store import session_scope
from pooljudge.annotate.ui import keys
from pooljudge.annotate.ui.guidelines import ACK, ACK_KEY_NAME, SAVE, editor_key
from streamlit.testing.v1 import AppTest

DOCS = {"d1": "7", "d2": "7", "d3": "8"}
RULES = "Rule 1: judge the page, not the site.\n[trap](http://evil.example) <b>bold</b>"


def _campaign(engine, collection, guidelines: str = RULES) -> dict[str, str]:
    with session_scope(engine) as session:
        store.create_campaign(session, name="c", scale=LabelScale.binary(), overlap=2,
                              guidelines=guidelines, **collection(DOCS, "text of"))
        return {n: store.add_annotator(session, campaign="c", name=n, role=r)
                for n, r in (("ann", "annotator"), ("boss", "admin"))}


def _count(engine, table: str) -> int:
    with session_scope(engine, readonly=True) as session:
        return session.execute(sa.text(f"SELECT COUNT(*) FROM {table}")).scalar_one()


def _gate_shown(at: AppTest) -> bool:
    return any(b.key == ACK for b in at.button)


def _pair_shown(at: AppTest) -> bool:
    return any("pj-doc-id" in h.value for h in at.get("html"))


def test_a_first_visit_shows_the_guidelines_and_no_pair(app_db, collection, open_page,
                                                        inert) -> None:
    tokens = _campaign(app_db, collection)
    at = open_page(tokens["ann"], read_guidelines=False)
    assert _gate_shown(at) and not _pair_shown(at)
    assert keys.CURRENT not in at.session_state or at.session_state[keys.CURRENT] is None
    assert _count(app_db, "claim") == 0                  # nothing was handed out
    shown = [inert.html(h.value) for h in at.main.get("html")]
    texts = [s.text for s in shown if "Rule 1" in s.text]
    assert texts == [RULES]                              # the whole text, as written
    assert all(s.elements == () for s in shown)          # no link, no bold: escaped
    (button,) = [b for b in at.button if b.key == ACK]
    assert button.label == "I have read the guidelines"
    assert button.proto.shortcut.lower() == ACK_KEY_NAME.lower()


def test_acknowledging_stores_one_row_and_shows_the_pairs(app_db, collection, open_page) -> None:
    tokens = _campaign(app_db, collection)
    at = open_page(tokens["ann"], read_guidelines=False)
    at.button(key=ACK).click().run()
    assert not _gate_shown(at) and _pair_shown(at)
    assert _count(app_db, "guidelines_ack") == 1
    again = open_page(tokens["ann"], read_guidelines=False)   # a later visit: straight to work
    assert not _gate_shown(again) and _pair_shown(again)
    assert _count(app_db, "guidelines_ack") == 1
    (sidebar,) = [e for e in again.sidebar.expander if e.label == "Guidelines"]
    assert "Rule 1" in sidebar.get("html")[0].value       # the guidelines moved to the sidebar


def test_a_change_to_the_guidelines_opens_them_again(app_db, collection, open_page) -> None:
    tokens = _campaign(app_db, collection)
    at = open_page(tokens["ann"], read_guidelines=False)
    at.button(key=ACK).click().run()
    with session_scope(app_db) as session:
        store.set_guidelines(session, campaign="c", text=RULES + "\nRule 2: new.")
    at = open_page(tokens["ann"], read_guidelines=False)
    assert _gate_shown(at) and not _pair_shown(at)
    assert any("Rule 2: new." in h.value for h in at.main.get("html"))
    at.button(key=ACK).click().run()
    assert _pair_shown(at) and _count(app_db, "guidelines_ack") == 2


def test_blank_guidelines_need_no_acknowledgement(app_db, collection, open_page) -> None:
    tokens = _campaign(app_db, collection, guidelines="  \n")
    at = open_page(tokens["ann"], read_guidelines=False)
    assert not _gate_shown(at) and _pair_shown(at)


def test_an_admin_who_judges_reads_them_too(app_db, collection, open_page) -> None:
    tokens = _campaign(app_db, collection)
    at = open_page(tokens["boss"], "judge", read_guidelines=False)
    assert _gate_shown(at) and not _pair_shown(at)


def test_the_admin_editor_saves_and_every_annotator_reads_again(app_db, collection,
                                                                open_page) -> None:
    tokens = _campaign(app_db, collection)
    open_page(tokens["ann"], read_guidelines=False).button(key=ACK).click().run()
    at = open_page(tokens["boss"], "people")
    with session_scope(app_db, readonly=True) as session:
        campaign_id = store.get_campaign(session, name="c").id
    box = at.text_area(key=editor_key(campaign_id))
    assert box.value == RULES
    readers = at.dataframe[-1].value
    assert readers.set_index("Person")["Read"].to_dict() == {"ann": True, "boss": True}
    box.input("Only rule: be careful.")
    at.button(key=SAVE).click().run()
    assert not at.exception
    assert any("Saved" in s.value for s in at.success)
    with session_scope(app_db, readonly=True) as session:
        assert store.get_campaign(session, name="c").guidelines == "Only rule: be careful."
        assert store.needs_guidelines(session, annotator_id=store.annotator_id(
            session, campaign="c", name="ann"))
    readers = at.dataframe[-1]
    assert readers.value["Read"].tolist() == [False, False]
    assert readers.value["Read at (UTC)"].isna().all()              # drawn as a dash
    assert readers.proto.placeholder == "—"
    at = open_page(tokens["ann"], read_guidelines=False)
    assert _gate_shown(at)
