"""Every page, for every role that sees it, shows hostile names from uploads as literal text.

Campaign, people, labels (names and descriptions), topic id and texts, document ids and texts,
guidelines, comments and an uploaded run's name are all traps (Markdown links and images, bare
URLs and e-mail addresses, HTML tags, Streamlit directives, icons and math). On each page every
string Streamlit would render — Markdown bodies, captions, labels, ``help=`` tooltips, alerts,
headers, progress texts and ``st.html`` blocks — is parsed as the browser would (the ``inert``
fixture): none may become a link, an image, an HTML element or any other element the text did
not come with, and the hostile texts the page is about must still be readable in what it shows.
"""

from __future__ import annotations

from collections.abc import Iterator

import pandas as pd
import pytest
import streamlit as st
from pooljudge.annotate import store
from pooljudge.annotate.records import Label, LabelScale
from pooljudge.annotate.store import session_scope
from pooljudge.annotate.ui import keys
from pooljudge.annotate.ui.routes import ROUTES
from streamlit.testing.v1 import AppTest

from pooljudge.formats.nuggets import NuggetRow
from pooljudge.formats.rag_answers import AnswerRow, Sentence
from tests.support.uploads import Upload

EVIL = ('[x](http://evil.example/a) ![i](https://evil.example/i.png) www.evil.example '
        'someone@evil.example <a href="http://evil.example/h">h</a> <img src=x onerror=alert(1)> '
        '<script>alert(1)</script> :red[x] :material/home: :streamlit: :smile: $x$ `t` a -> b')
CAMPAIGN = f"camp {EVIL}"
PEOPLE = {"annotator": f"ann {EVIL}", "adjudicator": f"judge {EVIL}", "admin": f"boss {EVIL}"}
OTHER = f"other {EVIL}"
NEWCOMER = f"new {EVIL}"
TOPIC = "t7<b>[x](http://evil.example/t)</b>"
DOCS = [f"d{i}<i>[x](http://evil.example/d{i})</i>" for i in (1, 2, 3)]
SCALE = LabelScale((Label(0, f"no {EVIL}", f"not it {EVIL}"),
                    Label(1, f"yes {EVIL}", f"# it\n{EVIL}")))
COMMENT = f"comment {EVIL}"
NUGGET = f"nugget {EVIL}"
SENTENCE = f"sentence {EVIL}"
ANSWER_ID = "a<i>[x](http://evil.example/a)</i>"
RUN = "run [x](http:evil.example) www.evil.example <img src=x onerror=alert(1)> :red[x] $x$"
# Elements a page's own text may have; anything else in a rendered string is a failure.
OWN = {"emphasis", "code"}
MARKDOWN_FIELDS = {"label", "help", "body", "text", "captions", "caption"}


@pytest.fixture
def tokens(app_db) -> dict[str, str]:
    """The hostile campaign: ``other`` judged d1..d3 with comments, the annotator judged d1 the
    other way (a disagreement to adjudicate); the annotator's next pair is d2."""
    topics = pd.DataFrame({"id": [TOPIC], "title": f"widgets {EVIL}",
                           "description": f"desc {EVIL}", "narrative": f"# narrative\n{EVIL}"})
    documents = pd.DataFrame({"id": DOCS, "title": f"title {EVIL}", "text": f"text {EVIL}"})
    pool = pd.DataFrame({"topic": TOPIC, "doc": DOCS, "order": [1, 2, 3],
                         "best_rank": [1, 2, 3], "runs": "r"})
    judged = pd.DataFrame({"annotator": [OTHER] * 3 + [PEOPLE["annotator"]], "topic": TOPIC,
                           "doc": [*DOCS, DOCS[0]], "label": ["1", "0", "1", "0"],
                           "comment": COMMENT})
    with session_scope(app_db) as session:
        store.create_campaign(session, name=CAMPAIGN, scale=SCALE, overlap=2, order="topic",
                              guidelines=f"# rules\n{EVIL}", show_others_labels=True,
                              topics=topics, documents=documents, pool=pool)
        found = {role: store.add_annotator(session, campaign=CAMPAIGN, name=name, role=role)
                 for role, name in PEOPLE.items()}
        store.add_annotator(session, campaign=CAMPAIGN, name=OTHER)
        store.import_judgments(session, campaign=CAMPAIGN, frame=judged, source="human")
        store.import_nuggets(session, campaign=CAMPAIGN, rows=[NuggetRow(TOPIC, NUGGET, "vital")])
        store.import_rag_answers(session, campaign=CAMPAIGN, answers=[AnswerRow(
            ANSWER_ID, TOPIC, RUN, (DOCS[0], "x<b>[y](http://evil.example/y)</b>"),
            (Sentence(SENTENCE, (0, 1)),))])
    return found


@pytest.fixture
def hostile_run(monkeypatch) -> None:
    """The evaluation page's run uploader returns one run named :data:`RUN`."""
    real = st.file_uploader
    data = "".join(f"{TOPIC} Q0 {d} {i} {9 - i}.0 tag\n" for i, d in enumerate(DOCS, 1)).encode()

    def fake(label, *args, key=None, **kwargs):
        return [Upload(RUN, data)] if key == keys.EVAL_RUNS else real(label, *args, key=key,
                                                                      **kwargs)
    monkeypatch.setattr(st, "file_uploader", fake)


def _nodes(node) -> Iterator:
    yield node
    for child in getattr(node, "children", {}).values():
        yield from _nodes(child)


def _strings(message, field: str = "") -> Iterator[tuple[str, str]]:
    """(field name, value) of every string in a protobuf message, nested ones included."""
    for descriptor, value in message.ListFields():
        repeated = getattr(descriptor, "is_repeated", None)
        if repeated is None:                                 # protobuf before 6
            repeated = descriptor.label == descriptor.LABEL_REPEATED
        values = value if repeated else [value]
        for item in values:
            if descriptor.type == descriptor.TYPE_MESSAGE:
                yield from _strings(item, descriptor.name)
            elif descriptor.type == descriptor.TYPE_STRING:
                yield descriptor.name, item


def _shown(at: AppTest, inert) -> str:
    """Check every rendered string of the page; the text a reader sees, one piece a line."""
    seen: list[str] = []
    for node in _nodes(at._tree):
        if node.type == "dataframe":                         # cells are plain text
            frame = node.value
            seen += [str(v) for v in (*frame.index, *frame.columns, frame.index.name,
                                      *frame.to_numpy().ravel())]
        proto = getattr(node, "proto", None)
        for field, text in _strings(proto) if proto is not None else ():
            if node.type == "html" and field == "body":
                rendered = inert.html(text)
                assert rendered.elements == (), (text, rendered.elements)
            elif node.type != "code" and (field in MARKDOWN_FIELDS or (
                    node.type == "radio" and field == "options")):
                rendered = inert.markdown(text)
                assert set(rendered.elements) <= OWN, (node.type, field, text, rendered.elements)
            else:
                seen.append(text)
                continue
            seen.append(rendered.text)
    return " ".join(" ".join(seen).split())


def _readable(shown: str, *texts: str) -> None:
    for text in texts:
        assert " ".join(text.split()) in shown, text


# What each page is about, besides the person's own name and the campaign (on every page).
EXPECTED = {
    "judge": (SCALE.labels[0].name, SCALE.labels[1].description, f"widgets {EVIL}",
              f"# narrative\n{EVIL}", DOCS[1], f"text {EVIL}", f"# rules\n{EVIL}", OTHER),
    "adjudicate": (SCALE.labels[1].name, f"desc {EVIL}", DOCS[0], COMMENT),
    "overview": (TOPIC, PEOPLE["annotator"], OTHER),
    "agreement": (PEOPLE["annotator"], OTHER, SCALE.labels[0].name),
    "export": (TOPIC, DOCS[2]),
    "evaluate": (RUN,),
    "create": (),
    "people": (OTHER, PEOPLE["adjudicator"]),
    "terms": (TOPIC,),
    "assign": (NUGGET, SENTENCE, DOCS[0], f"widgets {EVIL}"),
    "nuggets": (NUGGET, f"widgets {EVIL}", f"# narrative\n{EVIL}", DOCS[0], f"title {EVIL}",
                f"text {EVIL}"),
}


def _act(page: str, role: str, at: AppTest) -> Iterator[tuple[AppTest, tuple[str, ...]]]:
    """Actions that bring more hostile text on screen, and the texts they must show."""
    if page == "judge" and role == "annotator":              # who judged d1 before
        at.button(key=keys.back_key(at.session_state[keys.CURRENT].pair_id)).click().run()
        yield at, (SCALE.labels[0].name, DOCS[0])            # changing an earlier judgment
    elif page == "people":
        for _ in range(2):                                   # added, then refused as a duplicate
            at.text_area(key=keys.PEOPLE_TEXT).input(NEWCOMER)
            at.button(key=keys.ADD_PEOPLE_SUBMIT).click().run()
            yield at, (NEWCOMER,)
    elif page == "terms":                                    # hostile terms: saved, refused
        from pooljudge.annotate.ui.terms_admin import TERMS_SAVE

        terms = "\n".join(t for t in EVIL.split() if any(c.isalnum() for c in t))
        for text in (terms, f"{terms}\n{EVIL}"):              # EVIL is too long for a term
            at.text_area[0].input(text)
            at.button(key=TERMS_SAVE).click().run()
            yield at, ("<script>alert(1)</script>", "[x](http://evil.example/a)")
    elif page == "nuggets":                                  # a hostile nugget typed
        from pooljudge.annotate.ui.nugget_bank import box_key

        at.text_input(key=box_key(TOPIC, None)).input(f"typed {EVIL}").run()
        yield at, (f"typed {EVIL}", NUGGET)
    elif page == "create":
        at.session_state[keys.NEW_LINKS] = (CAMPAIGN, [("annotator", NEWCOMER, "http://x/?t")])
        yield at.run(), (CAMPAIGN, NEWCOMER)


CASES = [pytest.param(route.url_path, role, id=f"{route.url_path}-{role}")
         for route in ROUTES for role in sorted(route.roles)]


@pytest.mark.parametrize(("page", "role"), CASES)
def test_every_page_shows_hostile_names_as_literal_text(page, role, tokens, hostile_run,
                                                       open_page, inert) -> None:
    at = open_page(tokens[role], page, timeout=60)
    assert not at.exception
    shown = _shown(at, inert)
    _readable(shown, PEOPLE[role], CAMPAIGN, *EXPECTED[page])
    for after, texts in _act(page, role, at):
        assert not after.exception, [e.value for e in after.exception]
        _readable(_shown(after, inert), PEOPLE[role], *texts)


def test_the_cases_cover_every_route_and_role() -> None:
    assert {p.values[0] for p in CASES} == set(EXPECTED) == {r.url_path for r in ROUTES}
    assert len(CASES) == sum(len(r.roles) for r in ROUTES)
