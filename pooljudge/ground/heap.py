"""Keep the memory of block-by-block work flat and cheap: reuse freed memory, return the rest.

Reading a run in blocks allocates and frees arrays of the same few sizes over and over. With
glibc's default settings each array of more than a few hundred KiB is mapped from the kernel and
unmapped when freed, so every block pays its page faults again (about a fifth of the time of
``pooljudge eval`` on 2M run lines). Inside :func:`reusing_freed_memory` such arrays come from
the heap and are reused; :func:`release_freed_memory` hands what is free back to the kernel
(Arrow's pool and glibc's heaps), e.g. once the qrels are prepared. Both only tune the
allocator; without glibc (macOS, musl) they do nothing but ask Arrow's pool to release.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import threading
from collections.abc import Iterator

import pyarrow as pa

__all__ = ["release_freed_memory", "reusing_freed_memory"]

_M_TRIM_THRESHOLD = -1
_M_MMAP_THRESHOLD = -3
_TUNED = {_M_MMAP_THRESHOLD: 64 << 20, _M_TRIM_THRESHOLD: 128 << 20}  # arrays below 64 MiB from
_DEFAULT = {_M_MMAP_THRESHOLD: 128 << 10, _M_TRIM_THRESHOLD: 128 << 10}  # the heap; glibc's own
_users = 0
_lock = threading.Lock()


@functools.cache
def _libc() -> ctypes.CDLL | None:
    try:
        libc = ctypes.CDLL(None)
    except OSError:
        return None
    return libc if hasattr(libc, "mallopt") and hasattr(libc, "malloc_trim") else None


@contextlib.contextmanager
def reusing_freed_memory() -> Iterator[None]:
    """Within: arrays below 64 MiB come from the heap, and up to 128 MiB freed there is kept
    for reuse. On leaving (the last of concurrent users), glibc's default thresholds are set
    again and the free memory returned. Process-wide (``mallopt``)."""
    global _users
    with _lock:
        _users += 1
        if _users == 1:
            _set(_TUNED)
    try:
        yield
    finally:
        with _lock:
            _users -= 1
            if _users == 0:
                _set(_DEFAULT)
                release_freed_memory()


def release_freed_memory() -> None:
    """Return the memory that is free in Arrow's pool and in glibc's heaps to the kernel."""
    pa.default_memory_pool().release_unused()
    libc = _libc()
    if libc is not None:
        libc.malloc_trim(0)


def _set(thresholds: dict[int, int]) -> None:
    libc = _libc()
    if libc is not None:
        for parameter, value in thresholds.items():
            libc.mallopt(parameter, value)
