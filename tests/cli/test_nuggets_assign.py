"""``pooljudge nuggets assign``: a model labels answers' nuggets through an OpenAI-compatible
server (the fake one of ``tests.support.openai_server``, a real HTTP server on 127.0.0.1) — the
prompt and the reading of replies, then the command on SQLite and PostgreSQL: valid replies
stored under the model's name in one transaction per answer, a malformed reply asked again once
and then reported with nothing stored, a share of the answers drawn by seed, a re-run asking
only for what is left, a model named like a person refused, a refused key one line."""

from __future__ import annotations

import json
import uuid

import pytest
from pooljudge.annotate import store
from pooljudge.annotate.nugget_assign_prompt import (
    ASSIGN_PROMPT_SHA256,
    InvalidAssignment,
    assign_messages,
    parse_assignments,
)
from pooljudge.annotate.store import session_scope

from pooljudge.cli import main
from tests.support.nugget_campaign import make_nugget_campaign
from tests.support.openai_server import FakeOpenAI

LABELS = ["support", "partial_support", "not_support"]


@pytest.mark.parametrize("reply", [
    json.dumps({"labels": LABELS}), json.dumps(LABELS),
    "```json\n" + json.dumps({"labels": ["Support", "partial support", "NOT-SUPPORT"]}) + "\n```"])
def test_a_valid_reply_is_read_in_nugget_order(reply):
    assert parse_assignments(reply, 3) == LABELS


@pytest.mark.parametrize(("reply", "problem"), [
    ("support, support, support", "not JSON"),
    ('{"labels": ["support"], "why": "x"}', 'one key, "labels"'),
    ('{"labels": "support"}', "not a list"),
    (json.dumps(LABELS[:2]), "2 labels for 3 nuggets"),
    (json.dumps(["support", "yes", "support"]), "label 2 is 'yes'"),
    (json.dumps(["support", 1, "support"]), "label 2 is 1"),
])
def test_an_invalid_reply_names_its_first_problem(reply, problem):
    with pytest.raises(InvalidAssignment, match=problem):
        parse_assignments(reply, 3)


def test_the_prompt_numbers_the_nuggets_and_asks_for_each():
    system, user = assign_messages(query="polio", answer="Salk made it in 1954.",
                                   nuggets=["Salk made the vaccine", "Tested in 1954"])
    assert "NuggetizeAssignerLLM" in system["content"]
    text = user["content"]
    assert "each of the 2 nuggets" in text and "exactly 2 labels" in text
    assert "Search Query: polio\nPassage: Salk made it in 1954." in text
    assert "1. Salk made the vaccine\n2. Tested in 1954" in text
    assert len(ASSIGN_PROMPT_SHA256) == 64


def _asked(messages) -> tuple[str, str, bool]:
    """(topic, run, asked again) of a request."""
    user = next(m["content"] for m in messages if m["role"] == "user")
    topic = user.split("Search Query: question ")[1].split("\n")[0]
    run = user.split("Passage: First sentence by ")[1].split(" ")[0]
    return topic, run, any(m["role"] == "assistant" for m in messages)


def _respond(messages) -> str:
    """301: valid; 302: never valid; 303: one label short, valid when asked again."""
    topic, run, again = _asked(messages)
    if topic == "302":
        return "They all look supported."
    if topic == "303" and not again:
        return json.dumps(LABELS[:2])
    first = "support" if run == "r1" else "not_support"
    return json.dumps({"labels": [first, "partial_support", "not_support"]})


def _name() -> str:
    return f"c-{uuid.uuid4().hex[:8]}"


def _assign(db_url, server, name, *extra):
    return main(["nuggets", "assign", "--campaign", name, "--model", "judge-m", "--base-url",
                 server.base_url, "--format", "json", "--backoff", "0", "--db", db_url, *extra])


def _cells(engine, name):
    with session_scope(engine, readonly=True) as session:
        cells = store.nugget_cells(session, campaign=name)
    return cells[cells["assessor"] == "judge-m"]


def test_assign_stores_valid_replies_and_reports_the_rest(engine, db_url, monkeypatch, capsys):
    name = _name()
    make_nugget_campaign(engine, name, topics=3, nuggets=3)
    monkeypatch.setenv("OPENAI_API_KEY", "none")
    with FakeOpenAI({}, respond=_respond) as server:
        assert _assign(db_url, server, name) == 0
        out, err = capsys.readouterr()
        asked = len(server.requests)
    outcomes = {r["answer"]: (r["status"], r["cells"]) for r in json.loads(out)}
    assert outcomes == {"r1/301": ("stored", 3), "r2/301": ("stored", 3),
                        "r1/302": ("malformed", 0), "r2/302": ("malformed", 0),
                        "r1/303": ("stored", 3), "r2/303": ("stored", 3)}
    assert asked == 10 and "2 answers were not labelled" in err  # 302, 303 asked twice each
    cells = _cells(engine, name)
    assert len(cells) == 12 and set(cells["answer"]) == {"r1/301", "r2/301", "r1/303", "r2/303"}
    first = cells[cells["answer"] == "r1/301"].sort_values("nugget")["label"].tolist()
    assert first == ["support", "partial_support", "not_support"]
    with session_scope(engine, readonly=True) as session:
        people = store.list_annotators(session, campaign=name).set_index("name")
    assert not people.loc["judge-m", "human"]  # a label source: never a person
    # a second run asks only for what the first did not store
    seen: list[tuple] = []
    with FakeOpenAI({}, respond=lambda m: seen.append(_asked(m)[:2]) or _respond(m)) as server:
        assert _assign(db_url, server, name) == 0
    outcomes = {r["answer"]: r["status"] for r in json.loads(capsys.readouterr().out)}
    assert outcomes["r1/301"] == "skipped" and outcomes["r1/302"] == "malformed"
    assert sorted(set(seen)) == [("302", "r1"), ("302", "r2")]
    assert len(_cells(engine, name)) == 12


def test_a_share_labels_a_seeded_part_of_the_answers(engine, db_url, monkeypatch, capsys):
    name = _name()
    make_nugget_campaign(engine, name, topics=3, nuggets=2, runs=("r1", "r2", "r3", "r4"))
    monkeypatch.setenv("OPENAI_API_KEY", "none")
    respond = lambda m: json.dumps(["support", "not_support"])  # noqa: E731
    picked = []
    for _ in range(2):
        with FakeOpenAI({}, respond=respond) as server:
            assert _assign(db_url, server, name, "--share", "0.5", "--seed", "3") == 0
        picked.append({r["answer"] for r in json.loads(capsys.readouterr().out)})
    assert len(picked[0]) == 6 and picked[0] == picked[1]  # the same half: skipped the 2nd time
    assert set(_cells(engine, name)["answer"]) == picked[0]


@pytest.mark.parametrize(("extra", "env", "message"), [
    ([], {"OPENAI_API_KEY": "wrong"}, "the server refused the request with HTTP 401"),
    ([], {}, "--api-key-env: the environment variable OPENAI_API_KEY is not set"),
    (["--share", "0"], {"OPENAI_API_KEY": "right"}, "--share"),
])
def test_errors_are_one_line_and_store_nothing(engine, db_url, monkeypatch, capsys, extra, env,
                                               message):
    name = _name()
    make_nugget_campaign(engine, name, topics=1, nuggets=2)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    for variable, value in env.items():
        monkeypatch.setenv(variable, value)
    with FakeOpenAI({}, respond=_respond, api_key="right") as server:
        assert _assign(db_url, server, name, *extra) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err, err
    assert _cells(engine, name).empty


def test_a_model_named_like_a_person_is_refused(engine, db_url, monkeypatch, capsys):
    name = _name()
    make_nugget_campaign(engine, name, topics=1, nuggets=2, people=(("judge-m", "annotator"),))
    monkeypatch.setenv("OPENAI_API_KEY", "none")
    with FakeOpenAI({}, respond=_respond) as server:
        assert _assign(db_url, server, name) == 2
        assert server.requests == []
    err = capsys.readouterr().err
    assert "has a person named 'judge-m'" in err and err.count("\n") == 1
