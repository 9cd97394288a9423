"""Run one coroutine per item, at most ``concurrency`` at a time, results in the items' order.

What the model runs of ``pooljudge nuggets draft`` and ``nuggets assign`` share: each item is
asked and stored on its own; the first exception of any item (e.g.
:class:`~pooljudge.annotate.autojudge.client.ServerRefused`, a wrong key) cancels the rest and
is raised as itself, not as an ``ExceptionGroup``; what was stored before it stays stored.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from typing import TypeVar

__all__ = ["each_bounded"]

T = TypeVar("T")
R = TypeVar("R")


async def each_bounded(items: Sequence[T], one: Callable[[T], Awaitable[R]],
                       concurrency: int) -> list[R]:
    """``[await one(item) for item in items]``, ``concurrency`` at a time."""
    slots = asyncio.Semaphore(concurrency)

    async def bounded(item: T) -> R:
        async with slots:
            return await one(item)

    try:
        async with asyncio.TaskGroup() as group:
            running = [group.create_task(bounded(item)) for item in items]
    except ExceptionGroup as failures:
        raise failures.exceptions[0] from None
    return [task.result() for task in running]
