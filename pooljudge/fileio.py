"""Small file helpers: transparent gzip, write-then-rename, progress bars only on terminals."""

from __future__ import annotations

import contextlib
import gzip
import io
import json
import os
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO

from pooljudge.errors import InputError

PathLike = str | os.PathLike[str]


def read_bytes(path: PathLike) -> bytes:
    """The file's bytes, gunzipped when it is gzip (by magic number, not by name).

    Raises InputError for a missing, unreadable, corrupt or empty file.
    """
    try:
        raw = Path(path).read_bytes()
    except FileNotFoundError:
        raise InputError("no such file", path=path) from None
    except IsADirectoryError:
        raise InputError("is a directory, not a file", path=path) from None
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror}", path=path) from None
    if raw[:2] == b"\x1f\x8b":
        try:
            raw = _gunzip(raw)
        except (OSError, EOFError, gzip.BadGzipFile) as exc:
            raise InputError(f"corrupt gzip data: {exc}", path=path) from None
    if not raw or raw.isspace():
        raise InputError("file is empty", path=path)
    return raw


def jsonl_objects(text: str, path: PathLike) -> Iterator[tuple[int, dict]]:
    """(line number, object) for every non-blank line of JSON Lines ``text``.

    Raises InputError naming ``path:line`` for a line that is not JSON or not a JSON object.
    """
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InputError(f"not valid JSON: {exc.msg}", path=path, line=number) from None
        if not isinstance(record, dict):
            raise InputError("expected a JSON object", path=path, line=number)
        yield number, record


def _gunzip(data: bytes) -> bytes:
    """Decompress gzip data with ISA-L (3-5x faster than zlib) when available."""
    try:
        from isal import igzip
    except ImportError:  # pragma: no cover - isal ships wheels for the usual platforms
        return gzip.decompress(data)
    return igzip.decompress(data)


@contextlib.contextmanager
def atomic_writer(path: PathLike, *, mode: str = "w") -> Iterator[IO]:
    """Open a temporary file beside ``path``; rename it onto ``path`` only on success.

    ``path`` of ``-`` writes to standard output. On any exception the temporary file is removed
    and ``path`` is left as it was, so a reader never sees a half-written file.
    """
    if str(path) == "-":
        if "b" in mode:
            yield sys.stdout.buffer
        else:
            yield sys.stdout
        return
    target = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent or ".")
    os.fchmod(fd, _new_file_mode(target))
    try:
        with os.fdopen(fd, mode, **({} if "b" in mode else {"encoding": "utf-8"})) as handle:
            yield handle
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def _new_file_mode(target: Path) -> int:
    """The mode an ordinary ``open(target, "w")`` would give: the old file's, else 0o666 & ~umask.

    ``mkstemp`` creates 0o600 files, which would make a shared report unreadable to others.
    """
    try:
        return target.stat().st_mode & 0o7777
    except OSError:
        umask = os.umask(0o022)
        os.umask(umask)
        return 0o666 & ~umask


def progress(iterable=None, **kwargs):
    """A tqdm progress bar on an interactive stderr; silent otherwise (pipes, CI, tests)."""
    if not _stderr_is_terminal():
        return _Silent(iterable)
    from tqdm.auto import tqdm

    return tqdm(iterable, leave=False, **kwargs)


class _Silent:
    """What :func:`progress` gives off a terminal: iterates, and ignores update() and close()
    (importing tqdm alone costs a tenth of a second)."""

    def __init__(self, iterable=None) -> None:
        self._iterable = iterable

    def __iter__(self):
        return iter(self._iterable if self._iterable is not None else ())

    def update(self, n: int = 1) -> None:
        """Nothing to show."""

    def close(self) -> None:
        """Nothing to close."""

    def set_postfix(self, *args, **kwargs) -> None:
        """Nothing to show."""


def _stderr_is_terminal() -> bool:
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError, io.UnsupportedOperation):
        return False
