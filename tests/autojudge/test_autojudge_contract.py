"""The command's contract: the API key, Retry-After, pair selection, errors as one line."""

from __future__ import annotations

import itertools
import socket
import time
from email.utils import formatdate
from pathlib import Path

import pytest
import sqlalchemy as sa

from pooljudge.cli import main
from tests.autojudge.conftest import KEY

from .helpers import KEY_VAR, autojudge_args, counters, labels


def _one_error_line(capsys) -> str:
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("pooljudge: error: "), captured.err
    assert "Traceback" not in captured.err
    return lines[0]


def _every_text(engine: sa.Engine) -> str:
    """Every value of every table, as text."""
    texts = []
    with engine.connect() as connection:
        for table in sa.inspect(connection).get_table_names():
            rows = connection.execute(sa.text(f'SELECT * FROM "{table}"')).all()
            texts.extend(str(value) for row in rows for value in row)
    return "\n".join(texts)


def test_key_is_read_from_the_env_and_stored_nowhere(engine, make_campaign, server_for,
                                                    api_key, capsys):
    campaign = make_campaign(2, 3)
    server = server_for(campaign, api_key=KEY)
    assert main(autojudge_args(campaign, server)) == 0
    captured = capsys.readouterr()
    assert labels(engine) == {p: server.answers[p] for p in campaign.truth}
    assert {r.authorization for r in server.requests} == {f"Bearer {KEY}"}
    assert KEY not in _every_text(engine) and KEY not in captured.out + captured.err
    if engine.dialect.name == "sqlite":
        engine.dispose()
        database = Path(campaign.url.removeprefix("sqlite:///"))
        for path in database.parent.glob(f"{database.name}*"):
            assert KEY.encode() not in path.read_bytes()


def test_wrong_key_is_one_line_and_not_echoed(engine, make_campaign, server_for, monkeypatch,
                                             capsys):
    campaign = make_campaign(1, 3)
    server = server_for(campaign, api_key=KEY)
    monkeypatch.setenv(KEY_VAR, "sk-wrong-key-0000")
    assert main(autojudge_args(campaign, server)) == 2
    line = _one_error_line(capsys)
    assert "HTTP 401" in line and "sk-wrong" not in line
    assert labels(engine) == {}


def test_missing_key_variable_is_a_usage_error(engine, make_campaign, server_for, monkeypatch,
                                              capsys):
    campaign = make_campaign(1, 2)
    server = server_for(campaign)
    monkeypatch.delenv(KEY_VAR, raising=False)
    assert main(autojudge_args(campaign, server)) == 2
    assert KEY_VAR in _one_error_line(capsys)
    assert server.requests == []


@pytest.mark.parametrize("form", ["seconds", "http-date"])
def test_retry_after_is_honoured(engine, make_campaign, server_for, api_key, form):
    campaign = make_campaign(1, 1)
    if form == "seconds":
        server = server_for(campaign, retry_after="1.2")
    else:  # an HTTP-date 2 s after the reply: whole seconds, so the wait is 1 to 2 s
        server = server_for(campaign,
                            retry_after=lambda: formatdate(time.time() + 2.0, usegmt=True))
    server.plan("t0", "d0", "429")
    assert main(autojudge_args(campaign, server, "--backoff", "0")) == 0
    first, second = server.requests_for("t0", "d0")
    assert first.fault == "429" and second.fault is None
    assert 0.95 <= second.time - first.time <= 5.0
    assert labels(engine) == {("t0", "d0"): server.answers[("t0", "d0")]}


def test_backoff_gaps_grow_within_full_jitter_bounds(engine, make_campaign, server_for,
                                                     api_key):
    campaign = make_campaign(1, 1)
    server = server_for(campaign)
    server.plan("t0", "d0", "503", "503", "503", "503")
    assert main(autojudge_args(campaign, server, "--backoff", "0.2")) == 0
    times = [r.time for r in server.requests_for("t0", "d0")]
    assert len(times) == 5
    gaps = [b - a for a, b in itertools.pairwise(times)]
    for n, gap in enumerate(gaps, start=1):  # uniform in [0, 0.2 * 2^(n-1)], plus overhead
        assert gap <= 0.2 * 2 ** (n - 1) + 1.5  # generous: a loaded machine


def test_unjudged_skips_human_judged_pairs_and_keeps_slots(engine, make_campaign, server_for,
                                                          api_key, capsys):
    from pooljudge.annotate.store import (
        add_annotator,
        annotator_id,
        next_pair,
        record_judgment,
        session_scope,
    )

    campaign = make_campaign(2, 3, overlap=2)
    with session_scope(engine) as session:
        add_annotator(session, campaign=campaign.name, name="alice")
        alice = annotator_id(session, campaign=campaign.name, name="alice")
    human = []
    for _ in range(2):
        with session_scope(engine) as session:
            view = next_pair(session, annotator_id=alice)
            record_judgment(session, annotator_id=alice, pair_id=view.pair_id, label=1)
            human.append((view.topic_id, view.doc_id))
    slots = counters(engine)
    server = server_for(campaign)
    assert main(autojudge_args(campaign, server, "--pairs", "unjudged")) == 0
    assert "labelled 4, failed 0, skipped 2" in capsys.readouterr().out
    assert set(labels(engine)) == set(campaign.truth) - set(human)
    assert counters(engine) == slots
    with session_scope(engine) as session:  # alice's queue still offers the open pairs
        assert next_pair(session, annotator_id=alice) is not None


def test_a_person_cannot_be_the_judge(engine, make_campaign, server_for, api_key, capsys):
    from pooljudge.annotate.store import add_annotator, session_scope

    campaign = make_campaign(1, 2)
    with session_scope(engine) as session:
        add_annotator(session, campaign=campaign.name, name="llm-a")
    server = server_for(campaign)
    assert main(autojudge_args(campaign, server)) == 2
    assert "is a person" in _one_error_line(capsys)
    assert server.requests == []


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.mark.parametrize(("change", "expected"), [
    (["--campaign", "nope"], "no campaign named 'nope'"),
    (["--base-url", "127.0.0.1:8000/v1"], "--base-url: not an http(s) URL"),
    (["--base-url", "ftp://127.0.0.1/v1"], "--base-url: not an http(s) URL"),
    (["--prompt", "{missing}"], "no such file"),
    (["--concurrency", "0"], "--concurrency: must be "),
    (["--price-in", "-1"], "--price-in: must be a finite number >= 0"),
])
def test_bad_options_are_one_line_before_any_request(engine, make_campaign, server_for,
                                                     api_key, capsys, tmp_path, change,
                                                     expected):
    campaign = make_campaign(1, 2)
    server = server_for(campaign)
    change = [str(tmp_path / "absent.txt") if c == "{missing}" else c for c in change]
    assert _status([*autojudge_args(campaign, server), *change]) == 2
    assert expected in _one_error_line(capsys)
    assert server.requests == []
    assert labels(engine) == {}


def _status(args: list[str]) -> int:
    """main's exit status (bad option values included)."""
    return main(args)


def test_unknown_template_field_is_a_path_error(engine, make_campaign, server_for, api_key,
                                                capsys, tmp_path):
    campaign = make_campaign(1, 2)
    server = server_for(campaign)
    template = tmp_path / "prompt.txt"
    template.write_text("Topic {title}: is {document} about {topc}?", encoding="utf-8")
    assert main([*autojudge_args(campaign, server), "--prompt", str(template)]) == 2
    line = _one_error_line(capsys)
    assert line.startswith(f"pooljudge: error: {template}: unknown field {{topc}}")
    assert server.requests == []


def test_custom_template_is_used_and_hashed(engine, make_campaign, server_for, api_key,
                                            tmp_path):
    import hashlib

    campaign = make_campaign(1, 2)
    server = server_for(campaign)
    text = ("## Topic {topic_id}: {title}\n{narrative}\n## Document {doc_id}: {doc_title}\n"
            "{document}\nLabels:\n{scale}\nAnswer one of {values}.\n")
    template = tmp_path / "prompt.txt"
    template.write_text(text, encoding="utf-8")
    assert main([*autojudge_args(campaign, server), "--prompt", str(template)]) == 0
    with engine.connect() as connection:
        hashes = connection.execute(sa.text(
            "SELECT template_sha256, prompt_sha256 FROM auto_judgment")).all()
    assert {h[0] for h in hashes} == {hashlib.sha256(text.encode()).hexdigest()}
    assert len({h[1] for h in hashes}) == 2
    assert labels(engine) == {p: server.answers[p] for p in campaign.truth}


def test_unreachable_server_is_one_line_and_writes_nothing(engine, make_campaign, api_key,
                                                           capsys):
    campaign = make_campaign(1, 2)
    url = f"http://127.0.0.1:{_closed_port()}/v1"
    args = ["autojudge", "--campaign", campaign.name, "--base-url", url, "--model", "m",
            "--api-key-env", KEY_VAR, "--db", campaign.url, "--max-attempts", "2",
            "--backoff", "0.01"]
    assert main(args) == 2
    assert "gave no reply" in _one_error_line(capsys)
    with engine.connect() as connection:
        assert connection.execute(sa.text("SELECT COUNT(*) FROM annotator")).scalar() == 0
        assert connection.execute(sa.text("SELECT COUNT(*) FROM auto_failure")).scalar() == 0
