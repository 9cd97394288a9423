"""Model drafts of nugget banks through an OpenAI-compatible server (the fake one of
``tests.support.openai_server``, a real HTTP server): the prompt and the reading of replies,
then ``pooljudge nuggets draft`` on SQLite and PostgreSQL — a valid reply stored as the model's
drafts in one transaction, a malformed reply asked again once and then reported with nothing
stored, a reply the store refuses stored not at all, a re-run asking only for what is left,
topics without relevant passages skipped, a refused key one line."""

from __future__ import annotations

import json
import uuid

import pytest
from pooljudge.annotate import store
from pooljudge.annotate.nugget_drafts import (
    PROMPT_SHA256,
    InvalidDraft,
    draft_messages,
    parse_drafts,
)
from pooljudge.annotate.store import session_scope

from pooljudge.cli import main
from tests.support.nugget_campaign import make_nugget_campaign, nugget_text
from tests.support.openai_server import FakeOpenAI

GOOD = {"nuggets": [{"text": "Salk made the polio vaccine", "importance": "vital"},
                    {"text": "  Tested in 1954 ", "importance": "OKAY"},
                    {"text": "Café « crème » — ☕ \"quoted\"", "importance": "okay"}]}


@pytest.mark.parametrize("reply", [
    json.dumps(GOOD), json.dumps(GOOD["nuggets"]),
    "```json\n" + json.dumps(GOOD, ensure_ascii=False) + "\n```"])
def test_a_valid_reply_is_read_in_order(reply):
    assert parse_drafts(reply, 30) == [("Salk made the polio vaccine", "vital"),
                                       ("Tested in 1954", "okay"),
                                       ("Café « crème » — ☕ \"quoted\"", "okay")]


@pytest.mark.parametrize(("reply", "problem"), [
    ("Here are the nuggets: Salk, 1954", "not JSON"),
    ('{"items": []}', "no list of nuggets"),
    ('{"nuggets": []}', "no nuggets"),
    (json.dumps([{"text": f"n{i}", "importance": "okay"} for i in range(4)]),
     "4 nuggets, at most 3 were asked for"),
    ('[{"text": "a", "importance": "okay"}, {"text": " a", "importance": "vital"}]',
     "nugget 2 repeats 'a'"),
    ('[{"text": "a", "importance": "high"}]', 'nugget 1: importance must be vital or okay, '
                                             'not "high"'),
    ('[{"text": "  ", "importance": "okay"}]', "nugget 1: empty nugget text"),
    ('["just a string"]', "nugget 1 is not an object"),
    ('[{"text": "a\\u0000b", "importance": "okay"}]', "NUL character"),
])
def test_an_invalid_reply_names_its_first_problem(reply, problem):
    with pytest.raises(InvalidDraft, match=problem.replace("(", r"\(")):
        parse_drafts(reply, 3)


def test_the_prompt_holds_the_topic_the_passages_and_the_limit():
    system, user = draft_messages(title="polio", description="", narrative="Who made it?",
                                  passages=[("d1", "Salk", "Jonas  Salk\nmade it."),
                                            ("d2", "", "x" * 5000)], max_nuggets=7)
    assert system["role"] == "system" and "NuggetizeLLM" in system["content"]
    text = user["content"]
    assert "at most 7 nuggets" in text and "(1-12 words)" in text
    assert "Search Query: polio\nDescription: (none)\nNarrative: Who made it?" in text
    assert "[1] Salk — Jonas Salk made it.\n[2] " + "x" * 4000 + "\n" in text
    assert len(PROMPT_SHA256) == 64 and set(PROMPT_SHA256) <= set("0123456789abcdef")


def _topic_of(messages) -> str:
    return next(m["content"] for m in messages if m["role"] == "user").split(
        "Search Query: question ")[1].split("\n")[0]


def _respond(messages) -> str:
    """301: valid; 302: never valid; 303: a repeated text, valid when asked again; 304: a
    text the topic's bank already has (the store refuses it)."""
    topic, reask = _topic_of(messages), any(m["role"] == "assistant" for m in messages)
    if topic == "302":
        return "Sure! Salk made the vaccine."
    if topic == "303" and not reask:
        return json.dumps([{"text": "same", "importance": "vital"}] * 2)
    if topic == "304":
        return json.dumps([{"text": "new one", "importance": "vital"},
                           {"text": nugget_text("304", 1), "importance": "okay"}])
    return "```json\n" + json.dumps({"nuggets": [
        {"text": f"draft {i} of {topic}", "importance": "vital" if i == 1 else "okay"}
        for i in (1, 2)]}) + "\n```"


def _name() -> str:
    """A campaign name of its own (the PostgreSQL database is shared by the session)."""
    return f"c-{uuid.uuid4().hex[:8]}"


def _draft(db_url, server, name, *extra):
    return main(["nuggets", "draft", "--campaign", name, "--model", "test-model",
                 "--base-url", server.base_url, "--format", "json", "--backoff", "0",
                 "--db", db_url, *extra])


def _drafts(engine, name):
    with session_scope(engine, readonly=True) as session:
        return [n for n in store.nugget_bank(session, campaign=name)
                if n.author == "test-model"]


def test_draft_stores_valid_replies_and_reports_the_rest(engine, db_url, monkeypatch, capsys):
    name = _name()
    make_nugget_campaign(engine, name, topics=4, nuggets=1, answers=False)
    monkeypatch.setenv("OPENAI_API_KEY", "none")
    with FakeOpenAI({}, respond=_respond) as server:
        assert _draft(db_url, server, name) == 0
        out, err = capsys.readouterr()
        asked = len(server.requests)
    outcomes = {r["topic"]: (r["status"], r["nuggets"]) for r in json.loads(out)}
    assert outcomes == {"301": ("stored", 2), "302": ("malformed", 0), "303": ("stored", 2),
                        "304": ("refused", 0)}
    assert asked == 6  # 302 and 303 asked twice
    assert "2 topics were not drafted" in err
    report = {r["topic"]: r["detail"] for r in json.loads(out)}
    assert report["302"].startswith("no valid nugget list after a re-ask: not JSON")
    assert report["304"] == "topic '304' already has a nugget 'fact 1 of topic 304' (merge " \
                            "duplicates instead of importing them twice)"
    drafts = _drafts(engine, name)
    assert [(n.key, n.topic, n.text, n.importance) for n in drafts] == [
        ("301-2", "301", "draft 1 of 301", "vital"), ("301-3", "301", "draft 2 of 301", "okay"),
        ("303-2", "303", "draft 1 of 303", "vital"), ("303-3", "303", "draft 2 of 303", "okay")]
    assert {(n.author_kind, n.prompt_sha256) for n in drafts} == {("model", PROMPT_SHA256)}
    with session_scope(engine, readonly=True) as session:
        history = store.nugget_history(session, campaign=name)
    mine = history[history["actor"] == "test-model"]
    assert mine["action"].tolist() == ["created"] * 4
    # a second run asks only for what the first did not store
    seen: list[str] = []
    with FakeOpenAI({}, respond=lambda m: seen.append(_topic_of(m)) or _respond(m)) as server:
        assert _draft(db_url, server, name, "--topics", "301", "302") == 0
    outcomes = {r["topic"]: (r["status"], r["detail"]) for r in
                json.loads(capsys.readouterr().out)}
    assert outcomes["301"] == ("skipped", "drafted before by this model and prompt")
    assert outcomes["302"][0] == "malformed" and seen == ["302", "302"]
    assert len(_drafts(engine, name)) == 4


def test_topics_without_relevant_passages_are_skipped_unasked(engine, db_url, make_campaign,
                                                               monkeypatch, capsys):
    name = make_campaign()  # nothing judged: no relevant passage
    monkeypatch.setenv("OPENAI_API_KEY", "none")
    with FakeOpenAI({}, respond=_respond) as server:
        assert main(["nuggets", "draft", "--campaign", name, "--model", "m", "--base-url",
                     server.base_url, "--db", db_url, "--format", "tsv"]) == 0
        assert server.requests == []
    assert capsys.readouterr().out.splitlines() == [
        "topic\tstatus\tnuggets\tdetail", "t0\tskipped\t0\tno relevant passage",
        "t1\tskipped\t0\tno relevant passage"]


@pytest.mark.parametrize(("extra", "env", "message"), [
    ([], {"OPENAI_API_KEY": "wrong"}, "the server refused the request with HTTP 401 (check "
                                      "--base-url, --model and the API key)"),
    ([], {}, "--api-key-env: the environment variable OPENAI_API_KEY is not set"),
    (["--topics", "999"], {"OPENAI_API_KEY": "right"}, "has no topic '999'"),
])
def test_errors_are_one_line_and_store_nothing(engine, db_url, monkeypatch, capsys, extra,
                                               env, message):
    name = _name()
    make_nugget_campaign(engine, name, topics=2, nuggets=0, answers=False)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    for variable, value in env.items():
        monkeypatch.setenv(variable, value)
    with FakeOpenAI({}, respond=_respond, api_key="right") as server:
        assert _draft(db_url, server, name, *extra) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err, err
    assert _drafts(engine, name) == []
