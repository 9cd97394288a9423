"""The writers' queue (:func:`pooljudge.annotate.store.writer_queue.writer_turn`) on real files and
kernel
locks.

Mutual exclusion across processes and threads, first-come-first-served hand-over, release when a
holder dies or raises, and wrap-around of the 64-bit ticket counter. Every wait is bounded, so a
broken lock fails a test instead of hanging the suite.
"""

from __future__ import annotations

import itertools
import multiprocessing
import os
import queue
import signal
import struct
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from pooljudge.annotate.store import writer_queue
from pooljudge.annotate.store.writer_queue import FAIR, SLOTS, writer_turn

TICKET = struct.Struct("<Q")
WAIT = 10.0  # bound of every wait for something that must happen
QUIET = 0.2  # how long something that must not happen is watched for
PAUSE = 0.0002  # inside each critical section, to widen any race
SPAWN = multiprocessing.get_context("spawn")
pytestmark = pytest.mark.timeout(120)  # a backstop: the waits below are bounded already
NEEDS_OFD = pytest.mark.skipif(not FAIR, reason="FIFO queue needs OFD locks (Linux)")

Span = tuple[float, float, str]  # (enter, leave, worker) in time.monotonic() seconds


def _count(path: str, counter: str, rounds: int, worker: str, go: Any, out: Any) -> None:
    """Worker (process or thread): put ``worker`` on ``out`` (ready), wait for ``go``, then
    ``rounds`` times, inside ``writer_turn(path)``, read the integer in ``counter``, pause, write
    it + 1; put its list of spans on ``out``."""
    spans: list[Span] = []
    descriptor = os.open(counter, os.O_RDWR)
    try:
        out.put(worker)
        if not go.wait(WAIT):
            raise TimeoutError("never told to go")
        for _ in range(rounds):
            with writer_turn(path):
                enter = time.monotonic()
                value = int(os.pread(descriptor, 20, 0))
                time.sleep(PAUSE)
                os.pwrite(descriptor, b"%020d" % (value + 1), 0)
                leave = time.monotonic()
            spans.append((enter, leave, worker))
    finally:
        os.close(descriptor)
        out.put(spans)


def _hold_until_killed(path: str, entered: Any, die: Any, how: str) -> None:
    """Child process: enter ``writer_turn(path)``, set ``entered``, then, still inside, either
    ``os._exit`` once ``die`` is set (``how="exit"``) or sleep until SIGKILLed (``"kill"``; not
    waiting on ``die``: setting an Event a killed waiter sleeps on would hang)."""
    with writer_turn(path):
        entered.set()
        if how == "exit":
            die.wait(WAIT)
            os._exit(3)
        time.sleep(6 * WAIT)


class _Turn:
    """A thread that enters ``writer_turn(path)``, sets ``entered`` (and appends ``name`` to
    ``log``), stays inside until ``release`` is set, then sets ``left``."""

    def __init__(self, path: str, name: str = "", log: list[str] | None = None) -> None:
        self.path, self.name, self.log = path, name, log
        self.entered, self.release, self.left = (threading.Event() for _ in range(3))
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        with writer_turn(self.path):
            self.entered.set()
            if self.log is not None:
                self.log.append(self.name)
            self.release.wait(WAIT)
        self.left.set()

    def start(self) -> _Turn:
        self.thread.start()
        return self

    def finish(self) -> None:
        """Let it leave; fail unless it has left within WAIT."""
        self.release.set()
        self.thread.join(WAIT)
        assert self.left.is_set(), f"writer {self.name!r} never left writer_turn"


def _ticket(path: str) -> int:
    """The ticket counter of the queue ``path`` (0 before its first writer)."""
    try:
        raw = Path(f"{path}.ticket").read_bytes()
    except FileNotFoundError:
        return 0
    return TICKET.unpack(raw)[0] if len(raw) == TICKET.size else 0


def _await_ticket(path: str, value: int) -> None:
    """Wait until the ticket counter reads ``value`` (a writer has queued); fail after WAIT."""
    deadline = time.monotonic() + WAIT
    while _ticket(path) != value:
        assert time.monotonic() < deadline, f"ticket counter stuck at {_ticket(path)}, not {value}"
        time.sleep(0.001)


def _within(body: Callable[[], None], timeout: float) -> None:
    """Run ``body`` in a thread; fail if it is still running after ``timeout`` s, re-raise its
    error otherwise."""
    errors: list[BaseException] = []

    def run() -> None:
        try:
            body()
        except BaseException as exc:  # handed to the test's thread
            errors.append(exc)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(timeout)
    assert not thread.is_alive(), f"still blocked after {timeout} s"
    if errors:
        raise errors[0]


def _assert_round_robin(spans: list[Span]) -> None:
    """FIFO hand-over: while all workers keep asking (the middle 80 % of the sections), none gets
    more than 3 turns in a row (a barging ``flock`` gives 10 or more)."""
    owners = [worker for _, _, worker in sorted(spans)]
    middle = owners[len(owners) // 10: -len(owners) // 10]
    longest = max(len(list(run)) for _, run in itertools.groupby(middle))
    assert longest <= 3, f"a worker entered {longest} times in a row while others waited"


def _gather(go: Any, out: Any, workers: int) -> list[Span]:
    """Once all ``workers`` :func:`_count` workers are ready, let them go; all their spans."""
    for _ in range(workers):
        assert isinstance(out.get(timeout=6 * WAIT), str), "a worker failed before it was ready"
    go.set()
    return [span for _ in range(workers) for span in out.get(timeout=6 * WAIT)]


def _assert_exclusive(spans: list[Span]) -> None:
    """No two critical sections overlap: sorted by entry, each starts after the last ended."""
    spans = sorted(spans)
    overlaps = [(a, b) for a, b in itertools.pairwise(spans) if b[0] < a[1]]
    assert not overlaps, f"{len(overlaps)} overlapping critical sections, e.g. {overlaps[0]}"


@pytest.fixture
def queue_path(tmp_path: Path) -> str:
    """The queue file of a fresh writers' lock."""
    return str(tmp_path / "writers.lock")


@pytest.fixture
def counter(tmp_path: Path) -> str:
    """A shared counter file holding 0."""
    path = tmp_path / "counter"
    path.write_bytes(b"%020d" % 0)
    return str(path)


@pytest.fixture
def children() -> Iterator[list[multiprocessing.process.BaseProcess]]:
    """Spawned processes of a test; any still alive at teardown are killed."""
    started: list[multiprocessing.process.BaseProcess] = []
    yield started
    for process in started:
        if process.is_alive():
            process.kill()
        process.join(WAIT)


def test_processes_exclude_each_other(queue_path: str, counter: str, children: list) -> None:
    """6 processes × 100 locked read-pause-write increments: none lost, no sections overlap,
    turns taken round-robin (FIFO)."""
    go, out = SPAWN.Event(), SPAWN.Queue()
    for worker in range(6):
        process = SPAWN.Process(target=_count,
                                args=(queue_path, counter, 100, f"p{worker}", go, out))
        children.append(process)
        process.start()
    spans = _gather(go, out, len(children))
    for process in children:
        process.join(WAIT)
        assert process.exitcode == 0
    assert int(Path(counter).read_bytes()) == 600 == len(spans)
    _assert_exclusive(spans)
    if FAIR:
        _assert_round_robin(spans)


def test_threads_exclude_each_other(queue_path: str, counter: str) -> None:
    """6 threads of one process × 100 increments: none lost, no sections overlap, turns taken
    round-robin (FIFO)."""
    go, out = threading.Event(), queue.SimpleQueue()
    threads = [threading.Thread(target=_count, daemon=True,
                                args=(queue_path, counter, 100, f"t{worker}", go, out))
               for worker in range(6)]
    for thread in threads:
        thread.start()
    spans = _gather(go, out, len(threads))
    for thread in threads:
        thread.join(WAIT)
    assert int(Path(counter).read_bytes()) == 600 == len(spans)
    _assert_exclusive(spans)
    if FAIR:
        _assert_round_robin(spans)


@NEEDS_OFD
def test_waiters_enter_in_arrival_order(queue_path: str) -> None:
    """Waiters queued one after another behind a holder enter in arrival order, and the holder,
    asking again the moment it leaves, queues behind them all instead of barging in."""
    order: list[str] = []
    held, release = threading.Event(), threading.Event()

    def holder() -> None:
        with writer_turn(queue_path):
            held.set()
            release.wait(WAIT)
        with writer_turn(queue_path):  # at once: a plain flock would very likely let it back in
            order.append("holder again")

    holding = threading.Thread(target=holder, daemon=True)
    holding.start()
    assert held.wait(WAIT)
    waiters = []
    for i in range(8):
        waiters.append(_Turn(queue_path, f"w{i}", order))
        waiters[-1].release.set()
        waiters[-1].start()
        _await_ticket(queue_path, i + 2)  # its ticket is taken: it is queued
    assert not order, f"entered while the holder held the lock: {order}"
    release.set()
    for thread in [holding, *(waiter.thread for waiter in waiters)]:
        thread.join(WAIT)
    assert order == [*(f"w{i}" for i in range(8)), "holder again"]


@pytest.mark.parametrize("how", ["kill", "exit"])
def test_a_holder_that_dies_releases_the_lock(queue_path: str, children: list, how: str) -> None:
    """A process killed (SIGKILL) or exiting (os._exit) inside the block hands the lock to the
    writer queued behind it, and later writers get it at once."""
    entered, die = SPAWN.Event(), SPAWN.Event()
    process = SPAWN.Process(target=_hold_until_killed, args=(queue_path, entered, die, how))
    children.append(process)
    process.start()
    assert entered.wait(6 * WAIT), "the child never entered writer_turn"
    waiter = _Turn(queue_path, "waiter").start()
    if FAIR:
        _await_ticket(queue_path, 2)
    assert not waiter.entered.wait(QUIET), "entered while another process held the lock"
    if how == "kill":
        os.kill(process.pid, signal.SIGKILL)
    else:
        die.set()
    process.join(WAIT)
    assert process.exitcode == (-signal.SIGKILL if how == "kill" else 3)
    assert waiter.entered.wait(5), "the lock of a dead holder was never released"
    waiter.finish()

    def enter_and_leave() -> None:
        with writer_turn(queue_path):
            pass

    _within(enter_and_leave, 5)


@pytest.mark.parametrize("error", [ValueError, KeyboardInterrupt])
def test_an_error_inside_the_block_releases_the_lock(queue_path: str, error: type) -> None:
    """An exception escaping the block releases the lock: the same thread gets it again at once,
    and the exception propagates unchanged."""

    def fail_then_enter_again() -> None:
        with pytest.raises(error, match="inside"), writer_turn(queue_path):
            raise error("inside")
        with writer_turn(queue_path):
            pass

    _within(fail_then_enter_again, 2)


@NEEDS_OFD
def test_the_ticket_counter_wraps_around(queue_path: str) -> None:
    """From the counter's maximum 2**64 - 1, two writers in turn enter and leave; it reads 1."""
    Path(f"{queue_path}.ticket").write_bytes(TICKET.pack(2**64 - 1))

    def twice() -> None:
        for _ in range(2):
            with writer_turn(queue_path):
                pass

    _within(twice, 2)
    assert _ticket(queue_path) == 1


@NEEDS_OFD
def test_exclusion_holds_across_the_wrap(queue_path: str) -> None:
    """The writer with ticket 0 waits for the one with ticket 2**64 - 1 (same slot arithmetic
    as any other neighbours, since SLOTS divides 2**64)."""
    assert 2**64 % SLOTS == 0
    Path(f"{queue_path}.ticket").write_bytes(TICKET.pack(2**64 - 1))
    holder = _Turn(queue_path, "last ticket").start()
    assert holder.entered.wait(WAIT), "ticket 2**64 - 1 never entered"
    waiter = _Turn(queue_path, "ticket 0").start()
    _await_ticket(queue_path, 1)
    assert not waiter.entered.wait(QUIET), "ticket 0 entered while ticket 2**64 - 1 held the lock"
    holder.finish()
    assert waiter.entered.wait(WAIT), "ticket 0 never entered"
    waiter.finish()
    assert _ticket(queue_path) == 1


def test_a_waiter_waits_while_the_lock_is_held(queue_path: str) -> None:
    """A second thread does not enter while a first holds the lock, and enters once it leaves."""
    holder = _Turn(queue_path, "holder").start()
    assert holder.entered.wait(WAIT)
    waiter = _Turn(queue_path, "waiter").start()
    assert not waiter.entered.wait(QUIET), "entered while another thread held the lock"
    assert not holder.left.is_set()
    holder.finish()
    assert waiter.entered.wait(WAIT), "never entered after the holder left"
    waiter.finish()


@NEEDS_OFD
def test_a_waiter_that_dies_does_not_let_its_successor_in(queue_path: str, children: list) -> None:
    """A process killed while queued (not yet holding) frees its slot early: the writer queued
    behind it passes the queue, but the mutex keeps it out while the holder is inside."""
    holder = _Turn(queue_path, "holder").start()
    assert holder.entered.wait(WAIT)
    entered = SPAWN.Event()  # kept referenced: start() drops the Process's own reference to args
    doomed = SPAWN.Process(target=_hold_until_killed, args=(queue_path, entered, None, "kill"))
    children.append(doomed)
    doomed.start()
    _await_ticket(queue_path, 2)  # the child is queued behind the holder
    successor = _Turn(queue_path, "successor").start()
    _await_ticket(queue_path, 3)  # and the successor behind the child
    os.kill(doomed.pid, signal.SIGKILL)
    doomed.join(WAIT)
    assert doomed.exitcode == -signal.SIGKILL and not entered.is_set()
    try:
        assert not successor.entered.wait(QUIET), "the successor entered beside the holder"
    finally:
        holder.finish()
        assert successor.entered.wait(WAIT), "the successor never entered"
        successor.finish()


@NEEDS_OFD
def test_fewer_writers_than_slots_never_deadlock(queue_path: str,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """Slots are reused every SLOTS tickets; the module's bound says that is safe while fewer
    than SLOTS writers are queued at once. With SLOTS shrunk to 5, four threads asking again
    the moment they leave (so ticket t + 4 often re-locks a byte just freed) all finish."""
    monkeypatch.setattr(writer_queue, "SLOTS", 5)
    assert writer_queue.SLOTS > 4 and SLOTS > 2**22  # the real bound exceeds any pid_max
    done = [0] * 4

    def work(i: int) -> None:
        for _ in range(300):
            with writer_turn(queue_path):
                pass
            done[i] += 1

    threads = [threading.Thread(target=work, args=(i,), daemon=True) for i in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(WAIT)
    assert not any(thread.is_alive() for thread in threads), f"stuck after {done}"
    assert done == [300] * 4
