"""Child processes that die with their command, even when the command is killed with SIGKILL.

A process started by pooljudge (a simulating worker, a server) must not outlive the command
that started it: orphaned, it would go on writing to the database or serving a port, parented
to init, where nobody sees it. SIGTERM and SIGINT can be forwarded, but SIGKILL cannot be
caught, so the child asks the kernel itself: on Linux ``prctl(PR_SET_PDEATHSIG, sig)``
delivers ``sig`` to the child the moment its parent thread ends — SIGKILL for a worker that
only writes committed transactions, SIGTERM for a server that can shut down cleanly. Elsewhere
the request is a no-op (a documented limitation).

The parent may die between starting the child and the child's request, so the child passes the
parent's pid and exits at once when its parent is already gone.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys
from collections.abc import Callable

__all__ = ["die_with_parent", "preexec_dying_with"]

_PR_SET_PDEATHSIG = 1


def die_with_parent(parent_pid: int, sig: int = signal.SIGKILL) -> None:
    """In a child process: receive ``sig`` when the parent dies; exit now if it already has.

    ``parent_pid`` is the pid of the process that started this one (``os.getpid()`` there).
    Use as a ``ProcessPoolExecutor`` ``initializer`` (with ``initargs=(os.getpid(),)``). Linux
    sends the signal when the parent *thread* that forked the child ends, so start such
    children from the main thread (``ProcessPoolExecutor.submit`` and ``map`` do).
    """
    prctl = _prctl()
    if prctl is not None and prctl(_PR_SET_PDEATHSIG, int(sig), 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_PDEATHSIG) failed")
    if os.getppid() != parent_pid:
        os._exit(1)


def preexec_dying_with(parent_pid: int, sig: int = signal.SIGTERM) -> Callable[[], None] | None:
    """A ``subprocess.Popen`` ``preexec_fn`` that makes the child receive ``sig`` when
    ``parent_pid`` dies, or None where there is no ``prctl``. ``prctl`` is looked up here,
    before the fork, so the function run between fork and exec only calls it."""
    prctl = _prctl()
    if prctl is None:
        return None

    def preexec() -> None:
        prctl(_PR_SET_PDEATHSIG, int(sig), 0, 0, 0)
        if os.getppid() != parent_pid:
            os._exit(1)

    return preexec


def _prctl():
    """libc's ``prctl`` on Linux, else None."""
    if not sys.platform.startswith("linux"):
        return None
    return ctypes.CDLL(None, use_errno=True).prctl
