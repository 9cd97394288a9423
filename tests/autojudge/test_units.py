"""Units: label parsing rules, Retry-After, the back-off policy, the template's fields."""

from __future__ import annotations

import asyncio
import random
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime

import pytest
from pooljudge.annotate.autojudge.parse import InvalidReply, parse_label
from pooljudge.annotate.autojudge.prompt import FIELDS, PromptTemplate
from pooljudge.annotate.autojudge.retry import RetryPolicy, parse_retry_after, retryable_status
from pooljudge.annotate.records import Label, LabelScale, PairView

from pooljudge.errors import InputError
from tests.support.openai_server import FakeOpenAI

SCALE = LabelScale.range(0, 2)


@pytest.mark.parametrize(("reply", "label", "reason"), [
    ("2", 2, None),
    ("  1 \n", 1, None),
    ('{"label": 2, "reason": "on topic"}', 2, "on topic"),
    ('{"label": "0"}', 0, None),
    ("```json\n{\"label\": 1, \"reason\": \"partly\"}\n```", 1, "partly"),
    ("1\nIt mentions the topic once.", 1, "It mentions the topic once."),
    ("Label: 2 - the document answers the need", 2, "the document answers the need"),
    ("label=0", 0, None),
    ("\n\n2.", 2, None),
])
def test_labels_that_are_read(reply, label, reason):
    parsed = parse_label(reply, SCALE)
    assert (parsed.label, parsed.reason) == (label, reason)


@pytest.mark.parametrize("reply", [
    "", "   ", None, "7", "-1", '{"label": 5}', '{"grade": 1}', "[1]", "1.5", "2.0", "2nd",
    "true", '{"label": true}', '{"label": 1.0}', "The label is 2", "relevant", "12",
    '{"label": "two"}',
])
def test_replies_without_a_label_of_the_scale(reply):
    with pytest.raises(InvalidReply):
        parse_label(reply, SCALE)


def test_negative_and_sparse_scales():
    scale = LabelScale((Label(-1, "spam"), Label(0, "no"), Label(3, "yes")))
    assert parse_label("-1", scale).label == -1
    assert parse_label('{"label": 3}', scale).label == 3
    with pytest.raises(InvalidReply):
        parse_label("1", scale)


NOW = datetime(2025, 3, 1, 12, 0, 0, tzinfo=UTC)


@pytest.mark.parametrize(("headers", "seconds"), [
    ({"retry-after": "3"}, 3.0),
    ({"retry-after": "0.5"}, 0.5),
    ({"retry-after": format_datetime(NOW + timedelta(seconds=7), usegmt=True)}, 7.0),
    ({"retry-after": format_datetime(NOW - timedelta(seconds=7), usegmt=True)}, 0.0),
    ({"retry-after-ms": "250", "retry-after": "9"}, 0.25),
    ({"retry-after": "soon"}, None),
    ({"retry-after": "-4"}, None),
    ({}, None),
])
def test_retry_after(headers, seconds):
    assert parse_retry_after(headers, now=NOW) == seconds


def test_retryable_statuses():
    assert [s for s in (400, 401, 404, 408, 409, 422, 429, 500, 502, 503, 599)
            if retryable_status(s)] == [408, 409, 429, 500, 502, 503, 599]


def test_full_jitter_bounds_and_retry_after_wins():
    policy = RetryPolicy(base=0.5, cap=4.0, max_retry_after=10, rng=random.Random(7))
    for attempts, ceiling in [(1, 0.5), (2, 1.0), (3, 2.0), (4, 4.0), (9, 4.0)]:
        draws = [policy.delay(attempts) for _ in range(2000)]
        assert min(draws) >= 0 and max(draws) <= ceiling
        assert abs(sum(draws) / len(draws) - ceiling / 2) < ceiling * 0.05  # uniform mean
        assert max(draws) > ceiling * 0.95 and min(draws) < ceiling * 0.05
    assert policy.delay(1, retry_after=3.0) == 3.0
    assert policy.delay(5, retry_after=60.0) == 10


@pytest.fixture
def one_pair_server():
    """``one_pair_server(**options)``: a started server knowing the pair (t0, d0) only."""
    started = []

    def start(**options) -> FakeOpenAI:
        started.append(FakeOpenAI({("t0", "d0"): 2}, values=(0, 1, 2), **options).start())
        return started[-1]

    yield start
    for server in started:
        server.stop()


def test_judge_sleeps_what_the_policy_says(one_pair_server):
    """Retry-After is slept as given; otherwise the seeded full-jitter draw, exactly."""
    from pooljudge.annotate.autojudge.client import Judge, Tally, make_client

    server = one_pair_server(retry_after="2.5")
    server.plan("t0", "d0", "429", "500", "drop", "503")
    slept: list[float] = []

    async def sleep(seconds: float) -> None:
        slept.append(seconds)

    async def ask():
        client = make_client(base_url=server.base_url, api_key="none", timeout=5)
        judge = Judge(client, model="m", scale=SCALE, tally=Tally(), sleep=sleep,
                      policy=RetryPolicy(max_attempts=5, base=1.0, rng=random.Random(3)))
        try:
            return await judge.judge("## Topic t0: x\n## Document d0: y\n"), judge.tally
        finally:
            await client.close()

    verdict, tally = asyncio.run(ask())
    expected = random.Random(3)
    assert slept == [2.5, expected.uniform(0, 2.0), expected.uniform(0, 4.0),
                     expected.uniform(0, 8.0)]
    assert verdict.attempts == 5 and (tally.requests, tally.retries) == (5, 4)
    assert verdict.label == server.answers[("t0", "d0")]


def test_attempts_are_bounded(one_pair_server):
    from pooljudge.annotate.autojudge.client import Failure, Judge, Tally, make_client

    server = one_pair_server()
    server.plan("t0", "d0", *["500"] * 10)

    async def no_sleep(seconds: float) -> None:
        return None

    async def ask():
        client = make_client(base_url=server.base_url, api_key="none", timeout=5)
        judge = Judge(client, model="m", scale=SCALE, tally=Tally(), sleep=no_sleep,
                      policy=RetryPolicy(max_attempts=4))
        try:
            return await judge.judge("## Topic t0: x\n## Document d0: y\n")
        finally:
            await client.close()

    outcome = asyncio.run(ask())
    assert isinstance(outcome, Failure) and outcome.transport and outcome.attempts == 4
    assert "HTTP 500 (after 4 attempts)" in outcome.reason
    assert len(server.requests) == 4


VIEW = PairView(1, "T7", "solar {power}", "desc", "narr", "D9", "A title", "body text", None)


def test_default_template_names_every_label_and_the_pair():
    prompt = PromptTemplate.default().fill(VIEW, scale=SCALE, guidelines="Be strict.")
    for piece in ("## Topic T7: solar {power}", "## Document D9: A title", "body text",
                  "Be strict.", "0: Not relevant", "2: Highly relevant", "(0, 1, 2)"):
        assert piece in prompt.text
    again = PromptTemplate.default().fill(VIEW, scale=SCALE, guidelines="Be strict.")
    assert again.sha256 == prompt.sha256 and len(prompt.sha256) == 64


@pytest.mark.parametrize(("text", "message"), [
    ("{title} {bogus}", "unknown field {bogus}"),
    ("{}", "unknown field {}"),
    ("{0}", "unknown field {0}"),
    ("{title.upper}", "unknown field {title.upper}"),
    ("{title!r}", "conversion or format spec"),
    ("{title:>10}", "conversion or format spec"),
    ("{title", "bad prompt template"),
    ("  \n", "empty"),
])
def test_bad_templates(text, message):
    with pytest.raises(InputError, match=r"^p\.txt: ") as raised:
        PromptTemplate.parse(text, source="p.txt")
    assert message in str(raised.value)


def test_every_field_fills():
    text = " ".join(f"{{{name}}}" for name in FIELDS) + " {{literal}}"
    filled = PromptTemplate.parse(text).fill(VIEW, scale=SCALE, guidelines="")
    assert filled.text.endswith("{literal}") and "(none)" in filled.text


def test_the_parser_does_not_import_openai():
    import subprocess
    import sys

    code = ("import sys; from pooljudge.cli import build_parser; "
            "build_parser('autojudge').parse_args(['autojudge', '--campaign', 'c']); "
            "print('openai' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True)
    assert done.stdout.strip() == "False"
