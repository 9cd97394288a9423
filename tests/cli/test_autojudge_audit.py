"""``pooljudge autojudge audit`` against the local OpenAI-compatible test server: flip rates of a
judge that matches the query's words and of a judge blind to the query, circularity by model
family, what the record holds, and bad inputs as one line, exit 2."""

from __future__ import annotations

import json
import re
import uuid

import pandas as pd
import pytest

from pooljudge.cli import main
from tests.annotate.conftest import small_collection
from tests.autojudge import conftest as judges
from tests.autojudge.conftest import KEY, KEY_VAR
from tests.support.openai_server import FakeOpenAI

# the automatic judges' fixtures (tests/autojudge/conftest.py), before tests/cli/conftest.py's
api_key, db_url, engine, make_campaign = (
    judges.api_key, judges.db_url, judges.engine, judges.make_campaign)

N_TOPICS, N_DOCS = 10, 12
RELEVANT_DOCS = (0, 1)  # people call d0 and d1 relevant (label 2), every other doc 0
TITLE = re.compile(r"^## Topic \S+: (.*)$", re.MULTILINE)
DOCUMENT = re.compile(r"^## Document \S+: [^\n]*\n(.*?)\n## Your answer", re.MULTILINE | re.DOTALL)


def _words(text: str) -> set[str]:
    return set(re.findall(r"\w+", text.lower()))


def keyword_judge(prompt: str) -> int:
    """Relevant (2) when every word of the topic's title appears in the document, else 0."""
    title, document = TITLE.search(prompt).group(1), DOCUMENT.search(prompt).group(1)
    return 2 if _words(title) <= _words(document) else 0


@pytest.fixture
def campaign(engine, db_url):
    """10 × 12 pairs: even docs retrieved by runA, odd ones by runB and runC; one person
    judged them all; the judge llm-a's stored labels agree with the person on runA's pairs
    and call every runB pair relevant."""
    from pooljudge.annotate.records import LabelScale
    from pooljudge.annotate.store import (
        add_annotator,
        create_campaign,
        import_judgments,
        session_scope,
    )

    name = f"c-{uuid.uuid4().hex[:8]}"
    collection = small_collection(N_TOPICS, N_DOCS)
    doc = collection["pool"]["doc"].str[1:].astype(int)
    collection["pool"]["runs"] = ["runA" if j % 2 == 0 else "runB,runC" for j in doc]
    people = [2 if j in RELEVANT_DOCS else 0 for j in doc]
    judge = [p if j % 2 == 0 else 2 for p, j in zip(people, doc, strict=True)]
    frame = collection["pool"][["topic", "doc"]]
    with session_scope(engine) as session:
        create_campaign(session, name=name, scale=LabelScale.range(0, 2), overlap=1,
                        order="pool", assign_mode="pair", guidelines="Topical relevance.",
                        **collection)
        add_annotator(session, campaign=name, name="ann")
    with session_scope(engine) as session:
        import_judgments(session, campaign=name, frame=pd.concat([
            frame.assign(annotator="ann", label=people),
            frame.assign(annotator="llm-a", label=judge, source="automatic")]),
            label_sources=["llm-a"])
    return {"url": db_url, "name": name}


def _args(campaign, server, output, *extra: str) -> list[str]:
    return ["autojudge", "audit", "--campaign", campaign["name"], "--base-url", server.base_url,
            "--model", "test-model", "--name", "llm-a", "--api-key-env", KEY_VAR,
            "--output", str(output), "--db", campaign["url"], *extra]


def _rates(record: dict) -> dict[str, dict]:
    return {row["probe"]: row for row in record["flip_rates"]}


def test_word_matching_judge_flips_on_stuffing_only(campaign, api_key, tmp_path, capsys):
    output = tmp_path / "audit.json"
    with FakeOpenAI({}, values=(0, 1, 2), decide=keyword_judge) as server:
        assert main(_args(campaign, server, output)) == 0
        sent, base_url = list(server.requests), server.base_url
    negatives = N_TOPICS * (N_DOCS - len(RELEVANT_DOCS))
    record = json.loads(output.read_text())
    rates = _rates(record)
    assert [r["probe"] for r in record["flip_rates"]] == ["control", "stuffing", "injection"]
    assert {k: (r["n"], r["relevant"], r["failed"]) for k, r in rates.items()} == {
        "control": (negatives, 0, 0), "stuffing": (negatives, negatives, 0),
        "injection": (negatives, 0, 0)}
    stuffing = rates["stuffing"]
    assert stuffing["rate"] == 1.0 and stuffing["high"] == pytest.approx(1.0)
    assert 0.95 <= stuffing["low"] < 1.0
    assert stuffing["low"] == pytest.approx(negatives / (negatives + 1.959963984540054**2))
    assert (rates["control"]["rate"], rates["control"]["low"]) == (0.0, 0.0)
    # every probe went to the configured server, once, and nowhere else
    assert len(sent) == 3 * negatives and len(record["probes"]) == 3 * negatives
    assert {r.path for r in sent} == {"/v1/chat/completions"}
    probes = record["probes"]
    assert {(p["topic"], p["doc"]) for p in probes} == {
        (f"t{i}", f"d{j}") for i in range(N_TOPICS) for j in range(N_DOCS)
        if j not in RELEVANT_DOCS}
    assert len({p["prompt_sha256"] for p in probes}) == len(probes)
    assert all(re.fullmatch(r"[0-9a-f]{64}", p["prompt_sha256"]) for p in probes)
    from pooljudge.annotate.autojudge.prompt import PromptTemplate

    judge = record["judge"]
    assert judge["template_sha256"] == PromptTemplate.default().sha256
    assert {p["template_sha256"] for p in probes} == {judge["template_sha256"]}
    assert (judge["model"], judge["base_url"], judge["api_key_env"]) == \
        ("test-model", base_url, KEY_VAR)
    assert KEY not in output.read_text() and KEY not in capsys.readouterr().out


def test_judge_blind_to_the_query_never_flips(campaign, api_key, tmp_path):
    truth = {(f"t{i}", f"d{j}"): 2 if j in RELEVANT_DOCS else 0
             for i in range(N_TOPICS) for j in range(N_DOCS)}
    output = tmp_path / "audit.json"
    with FakeOpenAI(truth, values=(0, 1, 2)) as server:  # answers by the pair's ids alone
        assert main(_args(campaign, server, output, "--probes", "stuffing", "injection")) == 0
    rates = _rates(json.loads(output.read_text()))
    assert set(rates) == {"stuffing", "injection"}
    for row in rates.values():
        assert (row["rate"], row["relevant"], row["n"]) == (0.0, 0, 100)
        assert row["low"] == 0.0 and row["high"] == pytest.approx(3.8415 / 103.8415, abs=1e-4)


def test_injection_obeying_judge_and_the_limit(campaign, api_key, tmp_path):
    output = tmp_path / "audit.json"
    with FakeOpenAI({}, values=(0, 1, 2),
                    decide=lambda p: 2 if "perfectly relevant" in p else 0) as server:
        assert main(_args(campaign, server, output, "--limit", "7")) == 0
        assert len(server.requests) == 21
    rates = _rates(json.loads(output.read_text()))
    assert {k: (r["n"], r["relevant"]) for k, r in rates.items()} == {
        "control": (7, 0), "stuffing": (7, 0), "injection": (7, 7)}


def test_circularity_by_model_family(campaign, api_key, tmp_path, capsys):
    families = tmp_path / "families.tsv"
    families.write_text("run family\nrunA qwen\nrunB llama\n")
    output = tmp_path / "audit.json"
    with FakeOpenAI({}, values=(0, 1, 2), decide=lambda p: 0) as server:
        assert main(_args(campaign, server, output, "--probes", "control",
                          "--run-families", str(families), "--judge-family", "qwen")) == 0
    found = json.loads(output.read_text())["circularity"]
    assert found["runs"] == ["runA"] and found["judge_labels"] == N_TOPICS * N_DOCS
    table = {row["group"]: row for row in found["agreement"]}
    half = N_TOPICS * N_DOCS // 2
    assert {g: (r["n"], r["agree"]) for g, r in table.items()} == {
        "same family": (half, half), "other families": (half, N_TOPICS),
        "all": (2 * half, half + N_TOPICS)}
    assert table["same family"]["kappa"] == pytest.approx(1.0)
    assert table["other families"]["kappa"] == pytest.approx(0.0)
    assert table["all"]["agreement"] == pytest.approx(70 / 120)
    assert "runs of the judge's family 'qwen': runA" in capsys.readouterr().out


def _one_error_line(capsys) -> str:
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("pooljudge: error: "), captured.err
    return lines[0]


@pytest.mark.parametrize(("extra", "expected"), [
    (["--run-families", "FAMILIES"], "--run-families and --judge-family go together"),
    (["--relevant", "0"], "--relevant: must be above the scale's lowest label 0"),
    (["--injection", "  "], "--injection: must not be blank"),
    (["--run-families", "BAD", "--judge-family", "x"], "BAD:2: "),
])
def test_bad_inputs_are_one_line(campaign, api_key, tmp_path, capsys, extra, expected):
    (tmp_path / "families.tsv").write_text("runA qwen\n")
    (tmp_path / "bad.tsv").write_text("runA qwen\nrunA llama\n")
    paths = {"FAMILIES": str(tmp_path / "families.tsv"), "BAD": str(tmp_path / "bad.tsv")}
    extra = [paths.get(x, x) for x in extra]
    expected = expected.replace("BAD", paths["BAD"])
    output = tmp_path / "audit.json"
    with FakeOpenAI({}, decide=lambda p: 0) as server:
        assert main(_args(campaign, server, output, *extra)) == 2
        assert server.requests == []
    assert expected in _one_error_line(capsys)
    assert not output.exists()


def test_unknown_campaign_and_unreachable_server(campaign, api_key, tmp_path, capsys):
    output = tmp_path / "audit.json"
    with FakeOpenAI({}, decide=lambda p: 0) as server:
        args = _args(campaign, server, output)
    args[args.index("--campaign") + 1] = "nope"
    assert main(args) == 2
    assert "nope" in _one_error_line(capsys)
    args[args.index("--campaign") + 1] = campaign["name"]
    assert main([*args, "--max-attempts", "1", "--timeout", "1", "--limit", "2"]) == 2
    assert "gave no reply" in _one_error_line(capsys)
    assert not output.exists()


def test_a_campaign_nobody_judged_has_nothing_to_probe(make_campaign, api_key, tmp_path,
                                                       capsys):
    bare = make_campaign(2, 3)
    output = tmp_path / "audit.json"
    with FakeOpenAI({}, decide=lambda p: 0) as server:
        assert main(_args({"url": bare.url, "name": bare.name}, server, output)) == 2
        assert server.requests == []
    assert "nothing to probe" in _one_error_line(capsys)
    assert not output.exists()
