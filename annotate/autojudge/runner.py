"""One run of an automatic judge over a campaign: bounded concurrency, a label per transaction.

``concurrency`` worker tasks take pairs in queue order, ask the :class:`Judge`, and hand each
outcome to a single writer thread, which commits it in its own transaction (a label with its
provenance, or a failure row); a worker goes on to its next pair without waiting for the
commit, with at most ``2 × concurrency`` outcomes waiting to be written (none while the
database keeps up). So an interrupted run, even by ``kill -9``, loses only the requests in
flight and that short backlog, and the next run skips what was committed.

Stopping: :meth:`Run.stop` (SIGINT or SIGTERM) stops taking pairs; requests in flight get
``grace`` seconds to finish (their outcomes are committed), then they are cancelled; a second
signal cancels at once. A :class:`pooljudge.annotate.autojudge.client.ServerRefused`, or a server
that
gave no reply to any request of the run before the first label, stops the run the same way and
is raised at the end (no failure rows are written for it).
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from pooljudge.annotate import store
from pooljudge.annotate.autojudge.client import Failure, Judge, Verdict
from pooljudge.annotate.autojudge.prompt import PromptTemplate
from pooljudge.annotate.records import CampaignInfo
from pooljudge.annotate.store import session_scope
from sqlalchemy import Engine

from pooljudge.errors import PoolJudgeError, UsageError
from pooljudge.ground.progress import progress

__all__ = ["Plan", "Run", "Summary", "plan_run"]

VIEW_BATCH = 64


@dataclass(frozen=True)
class Plan:
    """What a run will do: the judge (``annotator_id`` None until its first write creates
    it), the campaign and the pairs left, in order."""

    campaign: CampaignInfo
    judge_name: str
    annotator_id: int | None
    pair_ids: list[int]
    skipped: int
    left_over: int


@dataclass
class Summary:
    """Counts of a run (requests, retries and tokens come from the judge's tally)."""

    labelled: int = 0
    failed: int = 0
    skipped: int = 0
    concurrent: int = 0
    left_over: int = 0
    interrupted: bool = False
    requests: int = 0
    retries: int = 0
    tokens_in: int = 0
    tokens_out: int = 0

    def cost(self, price_in: float | None, price_out: float | None) -> float | None:
        """USD for the tokens at the prices per million tokens; None without prices."""
        if price_in is None and price_out is None:
            return None
        return (self.tokens_in * (price_in or 0) + self.tokens_out * (price_out or 0)) / 1e6

    def paragraph(self, *, price_in: float | None = None, price_out: float | None = None
                  ) -> str:
        """The one-paragraph summary printed at the end of a run."""
        parts = [f"labelled {self.labelled}", f"failed {self.failed}",
                 f"skipped {self.skipped}" + (f" ({self.concurrent} labelled meanwhile by "
                                              "another process)" if self.concurrent else "")]
        if self.left_over:
            parts.append(f"left for later {self.left_over} (--limit)")
        text = (f"autojudge: {', '.join(parts)}; {self.requests} requests, {self.retries} "
                f"retries, tokens in {self.tokens_in:,}, out {self.tokens_out:,}")
        cost = self.cost(price_in, price_out)
        if cost is not None:
            text += f", cost ${cost:.4f}"
        if self.interrupted:
            text += "; interrupted: a re-run continues where this one stopped"
        return text + "."


def plan_run(engine: Engine, *, campaign: str, name: str, pairs: str,
             limit: int | None) -> Plan:
    """List the pairs left to the judge ``name`` (at most ``limit``); writes nothing."""
    with session_scope(engine, readonly=True) as session:
        info = store.get_campaign(session, name=campaign)
        annotator_id = store.auto_judge(session, campaign=campaign, name=name, create=False)
        left, skipped = store.pairs_for_judge(session, campaign=campaign,
                                              annotator_id=annotator_id, pairs=pairs)
    chosen = left if limit is None else left[:limit]
    return Plan(info, name, annotator_id, chosen, skipped, len(left) - len(chosen))


@dataclass
class Run:
    """An asynchronous run of ``judge`` over ``plan`` (see the module docstring)."""

    engine: Engine
    plan: Plan
    judge: Judge
    template: PromptTemplate
    concurrency: int = 8
    grace: float = 5.0
    summary: Summary = field(default_factory=Summary)

    def __post_init__(self) -> None:
        self._stopping = asyncio.Event()
        self._fatal: PoolJudgeError | None = None
        self._writer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="autojudge-writer")
        self._bar = progress(total=len(self.plan.pair_ids), unit="pair", desc="autojudge")
        self._workers: list[asyncio.Task] = []
        self._annotator_id = self.plan.annotator_id
        self._write_slots = asyncio.Semaphore(2 * self.concurrency)
        self._pending: set[asyncio.Future] = set()
        self._errors: list[BaseException] = []
        self._busy: set[asyncio.Task] = set()
        self.summary.skipped, self.summary.left_over = self.plan.skipped, self.plan.left_over

    def stop(self) -> None:
        """Stop taking pairs (first call); cancel the requests in flight (second call)."""
        if self._stopping.is_set():
            for task in self._workers:
                task.cancel()
        self._stopping.set()

    async def execute(self) -> Summary:
        """Run to the end (or to a stop); raise the fatal error that stopped it, if any."""
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue = asyncio.Queue(maxsize=self.concurrency * 2)
        with self._signals(loop):
            feeder = asyncio.create_task(self._feed(queue))
            self._workers = [asyncio.create_task(self._work(queue))
                             for _ in range(self.concurrency)]
            results = await self._until_done_or_stopped()
            feeder.cancel()
            await asyncio.gather(feeder, *self._pending, return_exceptions=True)
        await loop.run_in_executor(None, self._writer.shutdown)  # the last commits
        self._bar.close()
        self._tally()
        if self._fatal is not None:
            raise self._fatal
        for error in [*self._errors, *results]:  # a bug, not an outcome: never swallowed
            if isinstance(error, Exception) and not isinstance(error, asyncio.CancelledError):
                raise error
        return self.summary

    async def _until_done_or_stopped(self) -> list:
        """Wait for the workers to finish, or for a stop: then cancel the idle workers at
        once and the busy ones after ``grace`` seconds. The workers' results."""
        stopped = asyncio.create_task(self._stopping.wait())
        working = asyncio.gather(*self._workers, return_exceptions=True)
        await asyncio.wait([stopped, working], return_when=asyncio.FIRST_COMPLETED)
        stopped.cancel()
        if self._stopping.is_set():
            for task in set(self._workers) - self._busy:
                task.cancel()  # idle: waiting for a pair that will not come
            await asyncio.wait(self._workers, timeout=self.grace)
            for task in self._workers:
                task.cancel()
        await asyncio.gather(stopped, return_exceptions=True)
        return await working

    @contextlib.contextmanager
    def _signals(self, loop: asyncio.AbstractEventLoop):
        installed = []
        for sig in (signal.SIGINT, signal.SIGTERM):
            try:
                loop.add_signal_handler(sig, self._interrupt)
                installed.append(sig)
            except (NotImplementedError, RuntimeError, ValueError):
                pass  # not the main thread, or no signals here: no handler
        try:
            yield
        finally:
            for sig in installed:
                loop.remove_signal_handler(sig)

    def _interrupt(self) -> None:
        self.summary.interrupted = True
        self.stop()

    async def _feed(self, queue: asyncio.Queue) -> None:
        """Put the pairs' views on the queue (read in batches), then one None per worker."""
        loop = asyncio.get_running_loop()
        ids = self.plan.pair_ids
        for start in range(0, len(ids), VIEW_BATCH):
            if self._stopping.is_set():
                break
            views = await loop.run_in_executor(self._writer, self._views,
                                               ids[start:start + VIEW_BATCH])
            for view in views:
                await queue.put(view)
        for _ in range(self.concurrency):
            await queue.put(None)

    def _views(self, pair_ids: list[int]):
        with session_scope(self.engine, readonly=True) as session:
            return store.pair_views(session, pair_ids=pair_ids)

    async def _work(self, queue: asyncio.Queue) -> None:
        """Take pairs until the queue's end or a stop; busy from taking a pair to handing
        its outcome to the writer (a stop cancels idle workers at once)."""
        me = asyncio.current_task()
        while not self._stopping.is_set():
            view = await queue.get()
            if view is None or self._stopping.is_set():
                return
            self._busy.add(me)
            try:
                await self._judge_pair(view)
            finally:
                self._busy.discard(me)

    async def _judge_pair(self, view) -> None:
        """Ask for one pair's label and hand the outcome to the writer."""
        campaign = self.plan.campaign
        prompt = self.template.fill(view, scale=campaign.scale, guidelines=campaign.guidelines)
        try:
            outcome = await self.judge.judge(prompt.text)
        except PoolJudgeError as exc:
            self._fail(exc)
            return
        if isinstance(outcome, Failure) and outcome.transport \
                and self.judge.tally.successes == 0:
            self._fail(UsageError(f"the server at {self.judge.client.base_url} gave no "
                                  f"reply: {outcome.reason}"))
            return
        await self._write_slots.acquire()  # a bounded backlog of commits
        written = asyncio.get_running_loop().run_in_executor(
            self._writer, self._write, view.pair_id, prompt, outcome)
        self._pending.add(written)
        written.add_done_callback(self._written)

    def _written(self, future: asyncio.Future) -> None:
        self._pending.discard(future)
        self._write_slots.release()
        if not future.cancelled() and future.exception() is not None:
            self._errors.append(future.exception())
            self._stopping.set()

    def _fail(self, exc: PoolJudgeError) -> None:
        if self._fatal is None:
            self._fatal = exc
        self._stopping.set()

    def _write(self, pair_id: int, prompt, outcome: Verdict | Failure) -> None:
        """Commit one outcome in its own transaction (runs on the writer thread)."""
        common = {"annotator_id": self._judge_id(), "pair_id": pair_id,
                  "model": self.judge.model}
        try:
            with session_scope(self.engine) as session:
                if isinstance(outcome, Failure):
                    store.record_auto_failure(session, reason=outcome.reason,
                                              reply=outcome.reply, attempts=outcome.attempts,
                                              **common)
                else:
                    store.record_auto_judgment(
                        session, label=outcome.label, template_sha256=prompt.template_sha256,
                        prompt_sha256=prompt.sha256, reply=outcome.reply,
                        reason=outcome.reason, tokens_in=outcome.tokens_in,
                        tokens_out=outcome.tokens_out, latency=outcome.latency,
                        attempts=outcome.attempts, seconds=outcome.seconds, **common)
        except store.DuplicateWrite:
            self.summary.concurrent += 1
            self.summary.skipped += 1
        else:
            if isinstance(outcome, Failure):
                self.summary.failed += 1
            else:
                self.summary.labelled += 1
        self._bar.update(1)
        self._bar.set_postfix(failed=self.summary.failed, refresh=False)

    def _judge_id(self) -> int:
        """The judge's annotator id, created (in its own transaction) before its first
        outcome is written; another process creating it at the same time is no error."""
        if self._annotator_id is None:
            for attempt in range(2):
                try:
                    with session_scope(self.engine) as session:
                        found = store.auto_judge(session, campaign=self.plan.campaign.name,
                                                 name=self.plan.judge_name)
                except store.DuplicateWrite:
                    if attempt:
                        raise
                    continue  # created by another process meanwhile: found next time
                self._annotator_id = found
                break
        return self._annotator_id

    def _tally(self) -> None:
        tally = self.judge.tally
        self.summary.requests, self.summary.retries = tally.requests, tally.retries
        self.summary.tokens_in, self.summary.tokens_out = tally.tokens_in, tally.tokens_out
