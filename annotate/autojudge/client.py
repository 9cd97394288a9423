"""Asking an OpenAI-compatible chat server for one label (or any one reply), under the retry
policy.

The ``openai`` client is built with ``max_retries=0``: every retry is this module's, following
:mod:`pooljudge.annotate.autojudge.retry`. One pair is asked once; a reply without a valid label
(:mod:`pooljudge.annotate.autojudge.parse`) is asked again once, with the first reply and a short
corrective message appended to the conversation; a second invalid reply is a failure.

Outcomes: :class:`Verdict` (a label), :class:`Failure` (no label for this pair: it is recorded
and retried on the next run), or :class:`ServerRefused` raised for 401, 403 and 404, which no
other pair would escape either (a wrong key, URL or model name).

:class:`Chat` is the transport under :class:`Judge`: :meth:`Chat.ask` sends one conversation
under the same retry policy and returns the reply's text (:class:`Answer`) or a
:class:`Failure`, for callers that read the reply themselves (model drafts of nugget banks).
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from pooljudge.annotate.autojudge.parse import InvalidReply, ParsedLabel, parse_label
from pooljudge.annotate.autojudge.prompt import SYSTEM_MESSAGE, corrective_message
from pooljudge.annotate.autojudge.retry import RetryPolicy, parse_retry_after, retryable_status
from pooljudge.annotate.records import LabelScale

from pooljudge.errors import UsageError

__all__ = ["Answer", "Chat", "Failure", "Judge", "ServerRefused", "Tally", "Verdict",
           "make_client"]

FATAL_STATUSES = frozenset({401, 403, 404})
MAX_TOKENS = 256


class ServerRefused(UsageError):
    """The server refused with 401, 403 or 404: the key, the URL or the model is wrong."""


@dataclass
class Tally:
    """Counters over a whole run (one instance shared by every request)."""

    requests: int = 0
    retries: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    successes: int = 0


@dataclass(frozen=True)
class Verdict:
    """A label, the reply that gave it, and what it cost (``attempts``: HTTP requests)."""

    label: int
    reason: str | None
    reply: str
    tokens_in: int
    tokens_out: int
    latency: float
    attempts: int
    seconds: float


@dataclass(frozen=True)
class Answer:
    """A reply's text and what it cost (``attempts``: HTTP requests, retries included)."""

    text: str
    tokens_in: int
    tokens_out: int
    attempts: int
    seconds: float


@dataclass(frozen=True)
class Failure:
    """No label. ``transport``: every attempt of a request failed (no reply at all)."""

    reason: str
    reply: str | None
    attempts: int
    transport: bool = False


@dataclass
class _Reply:
    text: str
    tokens_in: int
    tokens_out: int
    latency: float


class _Exhausted(Exception):
    """A request given up: every attempt failed (``transport``), or a pair-specific refusal."""

    def __init__(self, reason: str, *, transport: bool = True) -> None:
        super().__init__(reason)
        self.reason, self.transport = reason, transport


@dataclass
class _Pair:
    """What one pair used so far."""

    attempts: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    started: float = field(default_factory=time.monotonic)


class _Malformed(Exception):
    """A 200 reply that is not a chat completion."""


def make_client(*, base_url: str, api_key: str, timeout: float):
    """An ``openai.AsyncOpenAI`` without retries of its own (imported here, lazily)."""
    try:
        import openai
    except ModuleNotFoundError:
        raise UsageError("pooljudge autojudge needs the openai package: "
                         "pip install 'pooljudge[llm]'") from None
    return openai.AsyncOpenAI(base_url=base_url, api_key=api_key, max_retries=0,
                              timeout=timeout)


class Chat:
    """Sends conversations to ``model`` on ``client`` (an ``openai.AsyncOpenAI``) under
    ``policy``, at most ``max_tokens`` tokens a reply, temperature 0."""

    def __init__(self, client, *, model: str, policy: RetryPolicy, tally: Tally,
                 secret: str = "", max_tokens: int = MAX_TOKENS,
                 sleep: Callable[[float], Awaitable[None]] = asyncio.sleep) -> None:
        import openai

        self._openai = openai
        self.client, self.model, self.max_tokens = client, model, max_tokens
        self.policy, self.tally, self._secret, self._sleep = policy, tally, secret, sleep

    async def ask(self, messages: list[dict]) -> Answer | Failure:
        """One conversation's reply (retried under the policy), or a Failure when every
        attempt failed or the server refused this request; ServerRefused for 401/403/404."""
        pair = _Pair()
        try:
            reply = await self._complete(messages, pair)
        except _Exhausted as exc:
            return Failure(exc.reason, None, pair.attempts, transport=exc.transport)
        return Answer(reply.text, pair.tokens_in, pair.tokens_out, pair.attempts,
                      time.monotonic() - pair.started)

    async def _complete(self, messages: list[dict], pair: _Pair) -> _Reply:
        """One chat completion, retried under the policy; _Exhausted when it gives up."""
        attempt = 0
        while True:
            attempt += 1
            pair.attempts += 1
            self.tally.requests += 1
            try:
                return self._count(await self._request(messages), pair)
            except _Retry as exc:
                if attempt >= self.policy.max_attempts:
                    raise _Exhausted(f"{exc.reason} (after {attempt} attempts)",
                                     transport=True) from None
                self.tally.retries += 1
                await self._sleep(self.policy.delay(attempt, exc.retry_after))

    def _count(self, reply: _Reply, pair: _Pair) -> _Reply:
        pair.tokens_in += reply.tokens_in
        pair.tokens_out += reply.tokens_out
        self.tally.tokens_in += reply.tokens_in
        self.tally.tokens_out += reply.tokens_out
        return reply

    async def _request(self, messages: list[dict]) -> _Reply:
        """One HTTP request; _Retry for a transient failure, _Exhausted (not transport) for a
        pair-specific refusal, ServerRefused for a fatal one."""
        openai = self._openai
        start = time.monotonic()
        body = {"model": self.model, "messages": messages, "temperature": 0,
                "max_tokens": self.max_tokens}
        try:  # the raw text: the typed ``create`` costs milliseconds of CPU per request
            text = await self.client.post("/chat/completions", cast_to=str, body=body)
            return _reply_of(text, time.monotonic() - start)
        except openai.APIStatusError as exc:
            raise self._status_error(exc) from None
        except openai.APITimeoutError:
            raise _Retry("time-out") from None
        except openai.APIConnectionError as exc:
            raise _Retry(f"connection error ({self._scrub(exc)})") from None
        except (openai.APIResponseValidationError, _Malformed) as exc:
            raise _Retry(f"malformed reply ({self._scrub(exc)})") from None

    def _status_error(self, exc) -> Exception:
        status = exc.status_code
        if status in FATAL_STATUSES:
            return ServerRefused(f"the server refused the request with HTTP {status} "
                                 "(check --base-url, --model and the API key)")
        if retryable_status(status):
            return _Retry(f"HTTP {status}", parse_retry_after(exc.response.headers))
        return _Exhausted(f"HTTP {status}: {self._scrub(exc)}", transport=False)

    def _scrub(self, exc: BaseException) -> str:
        """The error's text on one line, shortened, with the API key (if any) masked."""
        text = " ".join(str(exc).split())[:200]
        return text.replace(self._secret, "***") if self._secret else text


class Judge(Chat):
    """Labels prompts with ``model`` on ``client`` (an ``openai.AsyncOpenAI``)."""

    def __init__(self, client, *, model: str, scale: LabelScale, policy: RetryPolicy,
                 tally: Tally, secret: str = "",
                 sleep: Callable[[float], Awaitable[None]] = asyncio.sleep) -> None:
        super().__init__(client, model=model, policy=policy, tally=tally, secret=secret,
                         sleep=sleep)
        self.scale = scale

    async def judge(self, prompt: str) -> Verdict | Failure:
        """Ask for the label of one filled prompt (see the module docstring)."""
        pair = _Pair()
        messages = [{"role": "system", "content": SYSTEM_MESSAGE},
                    {"role": "user", "content": prompt}]
        try:
            reply = await self._complete(messages, pair)
            try:
                return self._verdict(parse_label(reply.text, self.scale), reply, pair)
            except InvalidReply:
                messages += [{"role": "assistant", "content": reply.text},
                             {"role": "user", "content": corrective_message(self.scale)}]
            reply = await self._complete(messages, pair)
            try:
                return self._verdict(parse_label(reply.text, self.scale), reply, pair)
            except InvalidReply as exc:
                return Failure(f"no valid label after a re-ask: {exc}", reply.text,
                               pair.attempts)
        except _Exhausted as exc:
            return Failure(exc.reason, None, pair.attempts, transport=exc.transport)

    def _verdict(self, parsed: ParsedLabel, reply: _Reply, pair: _Pair) -> Verdict:
        self.tally.successes += 1
        return Verdict(parsed.label, parsed.reason, reply.text, pair.tokens_in, pair.tokens_out,
                       reply.latency, pair.attempts, time.monotonic() - pair.started)

class _Retry(Exception):
    def __init__(self, reason: str, retry_after: float | None = None) -> None:
        super().__init__(reason)
        self.reason, self.retry_after = reason, retry_after


def _reply_of(body: str, latency: float) -> _Reply:
    """The text and usage of a chat completion's JSON body; _Malformed when it is not one."""
    try:
        data = json.loads(body)
    except (json.JSONDecodeError, TypeError, RecursionError) as exc:
        raise _Malformed(f"not JSON: {exc}") from None
    choices = data.get("choices") if isinstance(data, dict) else None
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        raise _Malformed("no choices in the reply")
    message = choices[0].get("message")
    text = message.get("content") if isinstance(message, dict) else None
    if text is not None and not isinstance(text, str):
        raise _Malformed("the reply's content is not text")
    usage = data.get("usage")
    usage = usage if isinstance(usage, dict) else {}
    return _Reply(text or "", _count_of(usage.get("prompt_tokens")),
                  _count_of(usage.get("completion_tokens")), latency)


def _count_of(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0
