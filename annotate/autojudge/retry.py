"""The retry policy of an automatic judge: which failures are retried, and how long to wait.

Retried: HTTP 408, 409, 429 and 5xx, connection errors (refused, reset, dropped mid-reply),
time-outs, and 200 replies whose body is not a chat completion (malformed JSON). Not retried:
other 4xx (a bad request, key or model is not transient).

Wait before attempt ``n + 1`` (``n`` = attempts made so far, from 1): the server's
``Retry-After`` when it sent one (``retry-after-ms`` in milliseconds, else ``Retry-After`` in
seconds or as an HTTP-date), capped at :attr:`RetryPolicy.max_retry_after`; otherwise "full
jitter" exponential back-off, a uniform draw in ``[0, min(cap, base · 2^(n-1))]``. At most
:attr:`RetryPolicy.max_attempts` attempts per request.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime

from pooljudge.errors import UsageError

__all__ = ["RETRY_STATUSES", "RetryPolicy", "parse_retry_after", "retryable_status"]

RETRY_STATUSES = frozenset({408, 409, 429})


def retryable_status(status: int) -> bool:
    """Whether an HTTP error status is worth another attempt (408, 409, 429, 5xx)."""
    return status in RETRY_STATUSES or 500 <= status <= 599


def parse_retry_after(headers, *, now: datetime | None = None) -> float | None:
    """Seconds to wait from a response's headers (a mapping, case-insensitive keys as in
    httpx), or None when they give none or give garbage. A date in the past gives 0."""
    if headers is None:
        return None
    milliseconds = headers.get("retry-after-ms")
    if milliseconds is not None:
        value = _number(milliseconds)
        if value is not None:
            return value / 1000
    value = headers.get("retry-after")
    if value is None:
        return None
    seconds = _number(value)
    if seconds is not None:
        return seconds
    try:
        when = parsedate_to_datetime(value.strip())
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - (now or datetime.now(UTC))).total_seconds())


def _number(text: str) -> float | None:
    try:
        value = float(text.strip())
    except (AttributeError, ValueError):
        return None
    return value if math.isfinite(value) and value >= 0 else None


@dataclass
class RetryPolicy:
    """Attempts and waits (seconds); ``rng`` draws the jitter (seed it in tests). UsageError
    for ``max_attempts`` below 1 or a negative wait."""

    max_attempts: int = 6
    base: float = 0.5
    cap: float = 30.0
    max_retry_after: float = 120.0
    rng: random.Random = field(default_factory=random.Random)

    def __post_init__(self) -> None:
        if self.max_attempts < 1:
            raise UsageError(f"max_attempts must be at least 1, got {self.max_attempts}")
        if not (self.base >= 0 and self.cap >= 0 and self.max_retry_after >= 0):
            raise UsageError("waits must be >= 0")

    def delay(self, attempts: int, retry_after: float | None = None) -> float:
        """Seconds to wait after ``attempts`` failed attempts (see the module docstring)."""
        if retry_after is not None:
            return min(retry_after, self.max_retry_after)
        ceiling = min(self.cap, self.base * 2 ** min(attempts - 1, 60))
        return self.rng.uniform(0.0, ceiling)
