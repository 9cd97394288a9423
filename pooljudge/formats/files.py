"""Small file helpers: transparent gzip, UTF-8 text with `path:line` errors, write-then-rename."""

from __future__ import annotations

import contextlib
import json
import os
import stat
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO

from pooljudge.errors import InputError
from pooljudge.formats.limits import open_input

PathLike = str | os.PathLike[str]
_BOM = b"\xef\xbb\xbf"


@contextlib.contextmanager
def input_errors(path: PathLike) -> Iterator[None]:
    """Turn an OSError while opening or reading ``path`` into one InputError naming it: no
    such file, a directory, or the system's reason."""
    try:
        yield
    except FileNotFoundError:
        raise InputError("no such file", path=path) from None
    except IsADirectoryError:
        raise InputError("is a directory, not a file", path=path) from None
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror}", path=path) from None


def read_bytes(path: PathLike) -> bytes:
    """The file's bytes, gunzipped when it is gzip (by magic number, not by name).

    A leading UTF-8 byte-order mark is dropped, so every text reader accepts one. Raises
    InputError for a missing, unreadable, corrupt or empty (or blank) file.
    """
    raw = _read_capped(path)
    if raw.startswith(_BOM):
        raw = raw[len(_BOM):]
    if not raw or raw.isspace():
        raise InputError("file is empty", path=path)
    return raw


def _read_capped(path: PathLike, *, gunzip: bool = True) -> bytes:
    """The whole file through :func:`~pooljudge.formats.limits.open_input`: gunzipped as it is
    read, a line longer than the cap refused as soon as it passes it, a FIFO or device refused
    before it is opened."""
    with input_errors(path):
        stream = open_input(path, gunzip=gunzip)
    with stream:
        try:
            return stream.read()
        except InputError:
            raise
        except Exception as exc:  # zlib, gzip and ISA-L each raise their own types; I/O
            if stream.gzipped:
                raise InputError(f"corrupt gzip data: {exc}", path=path) from None
            raise InputError(f"cannot read: {getattr(exc, 'strerror', None) or exc}",
                             path=path) from None


def read_utf8(path: PathLike) -> str:
    """:func:`read_bytes` decoded as UTF-8; InputError naming ``path:line`` of the first byte
    that is not UTF-8."""
    raw = read_bytes(path)
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError("not valid UTF-8", path=path,
                         line=raw[: exc.start].count(b"\n") + 1) from None


def read_text(path: PathLike, what: str) -> str:
    """A small UTF-8 text file (a leading byte-order mark dropped), for one-off inputs such as
    a key map or a prompt template; InputError naming the file, ``what`` it was to be."""
    raw = _read_capped(path, gunzip=False)
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(f"cannot read the {what}: {exc}", path=path) from None
    if "\x00" in text:
        raise InputError("NUL character in text", path=path,
                         line=text.count("\n", 0, text.index("\x00")) + 1)
    return text


def read_json(path: PathLike, what: str) -> object:
    """A JSON file (a leading byte-order mark dropped) decoded; InputError naming the file (and
    the line of a syntax error): "no such file", or "not a JSON {what}: …", also for an object
    that names a key twice (``json`` would keep the last value without a word)."""
    raw = _read_capped(path, gunzip=False)
    try:
        return json.loads(raw.decode("utf-8-sig"), object_pairs_hook=_unique_keys)
    except _DuplicateKey as exc:
        raise InputError(f"not a JSON {what}: key {exc.args[0]!r} appears twice",
                         path=path) from None
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise InputError(f"not a JSON {what}: {exc}", path=path,
                         line=getattr(exc, "lineno", None)) from None


@contextlib.contextmanager
def temporary_files(contents: Iterable[tuple[str, bytes]]) -> Iterator[list[Path]]:
    """Each (file name, bytes) of ``contents`` written to a private temporary folder, for
    readers that take paths (uploads, standard input); the paths in order, all removed after.
    Only the last part of a name is used, so a name cannot leave the folder; a name given twice
    is one file holding the last bytes."""
    import tempfile  # here: it imports shutil, 15-25 ms a command without output files pays

    with tempfile.TemporaryDirectory(prefix="pooljudge-") as folder:
        paths = []
        for name, data in contents:
            path = Path(folder) / Path(name).name
            path.write_bytes(data)
            paths.append(path)
        yield paths


def jsonl_objects(text: str, path: PathLike) -> Iterator[tuple[int, dict]]:
    """(line number, object) for every non-blank line of JSON Lines ``text``.

    Raises InputError naming ``path:line`` for a line that is not JSON, not a JSON object, or
    has a key twice (``json`` would keep the last value without a word). Lines end at line
    feeds only: U+2028 and the other characters ``str.splitlines`` breaks at are valid inside
    a JSON string.
    """
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line, object_pairs_hook=_unique_keys)
        except json.JSONDecodeError as exc:
            raise InputError(f"not valid JSON: {exc.msg}", path=path, line=number) from None
        except _DuplicateKey as exc:
            raise InputError(f"key {exc.args[0]!r} appears twice", path=path,
                             line=number) from None
        if not isinstance(record, dict):
            raise InputError("expected a JSON object", path=path, line=number)
        yield number, record


class _DuplicateKey(ValueError):
    """A JSON object names the same key twice (``args[0]``: the key)."""


def _unique_keys(pairs: list[tuple[str, object]]) -> dict:
    record = dict(pairs)
    if len(record) < len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _DuplicateKey(key)
            seen.add(key)
    return record


STDOUT_NAME = "<stdout>"


@contextlib.contextmanager
def atomic_writer(path: PathLike, *, mode: str = "w") -> Iterator[IO]:
    """Write ``path`` so that a reader never sees a half-written file.

    A regular file (or a new one) is written to a temporary file beside it and renamed onto it
    only on success; a symlink is followed and its resolved target replaced, so the link
    survives. Devices, FIFOs and ``-`` (standard output) cannot be replaced and are written in
    place. On any exception the temporary file is removed and ``path`` left as it was. Every
    failure to write (a directory or a missing folder as the path, a read-only or full file
    system, ``/dev/full``) raises InputError naming the path (``<stdout>`` for ``-``).
    """
    if str(path) == "-":  # a reader closing the pipe early is no error: see cli.main
        with _output_errors(STDOUT_NAME, passing=BrokenPipeError):
            stream = sys.stdout.buffer if "b" in mode else sys.stdout
            yield stream
            stream.flush()
        return
    target = Path(os.path.realpath(path))
    with _output_errors(path):
        kind = _existing_kind(target)
        if kind == "directory":
            raise InputError("is a directory, not a file", path=path)
        if kind == "special":
            with open(target, mode, encoding=_encoding(mode)) as handle:
                yield handle
            return
        yield from _replace(target, mode, shown=path)


def _replace(target: Path, mode: str, *, shown: PathLike) -> Iterator[IO]:
    """Write a temporary file in ``target``'s folder and rename it onto ``target``."""
    if not target.parent.is_dir():
        raise InputError(f"cannot write: folder {target.parent} does not exist", path=shown)
    import tempfile

    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, mode, encoding=_encoding(mode)) as handle:
            os.fchmod(handle.fileno(), _new_file_mode(target))
            yield handle
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


@contextlib.contextmanager
def _output_errors(path: PathLike, *, passing: type[BaseException] = InputError
                   ) -> Iterator[None]:
    """Turn an OSError while writing into InputError naming ``path`` (``passing`` and
    InputError pass unchanged)."""
    try:
        yield
    except (InputError, passing):
        raise
    except OSError as exc:
        raise InputError(f"cannot write: {exc.strerror or exc}", path=path) from None


def _existing_kind(target: Path) -> str:
    """``missing``, ``directory``, ``regular`` or ``special`` (device, FIFO, socket)."""
    try:
        mode = target.stat().st_mode
    except FileNotFoundError:
        return "missing"
    if stat.S_ISDIR(mode):
        return "directory"
    return "regular" if stat.S_ISREG(mode) else "special"


def _encoding(mode: str) -> str | None:
    return None if "b" in mode else "utf-8"


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
