"""Production retrieval logs: JSON Lines, one retrieval per line, read as columns.

The schema (``null`` is the same as an absent field; any other field, such as ``settings`` or
``timestamp``, may be present and is not read)::

    {"query_id": "q1", "query": "refund policy", "config": "bm25+rerank", "index_version": "v7",
     "latency_ms": 41.2, "category": "billing", "language": "en", "tenant": "acme",
     "results": [{"id": "d3", "rank": 1, "score": 12.5}, {"id": "d9", "rank": 2, "score": 9.1}]}

- ``query_id`` (required): a non-empty JSON string without blanks, not starting with ``#`` (it
  becomes a TREC topic id, first on a run line, where ``#`` starts a comment).
- ``results`` (required): a list, possibly empty (nothing retrieved), of objects with
  - ``id`` (required): a non-empty string without blanks;
  - ``rank`` (optional): an integer from 1 to 2^31 - 1, given for all results of the line or
    for none, distinct within the line; without ranks the list order is the rank (1, 2, ...);
  - ``score`` (optional): a finite number, given for all results of the line or for none
    (``pooljudge.metrics.logs`` gives unscored results synthetic descending scores).
- ``config``, ``index_version`` (optional): non-empty strings without blanks, ``/`` or ``\\``;
  the run ``config@index_version`` (``default`` without a config, no ``@`` part without an
  index version) is one run file.
- ``latency_ms`` (optional): a finite number >= 0.
- ``query``, ``category``, ``language``, ``tenant`` (optional): strings.

Ids must be JSON strings (``"17"``, not ``17``). Blanks are the characters Python's
``str.isspace`` accepts. The file may be gzip (by magic number) and start with a byte-order mark.

Reading is columnar: pyarrow's JSON reader parses the file block by block (1 MiB, on its own
threads) against the schema above, every rule is checked on whole blocks with Arrow kernels and
numpy, and the newlines are counted as the bytes go by. When anything is wrong (a rule broken,
JSON pyarrow refuses, or records that may not be one per line: a blank line, two objects on a
line, an object over two lines), a second, line-by-line pass with :mod:`json` finds the first
bad line and raises ``InputError("path:line: ...")``; blank lines are allowed, and only cost
that pass.

Privacy (:class:`Privacy`): a private field is dropped at reading; a hashed field's values are
replaced by ``HMAC-SHA256(key, value)`` (UTF-8, the first 32 hex digits: stable for one key,
not reversible without it).
"""

from __future__ import annotations

import hashlib
import hmac
import os
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
import pyarrow as pa

from pooljudge.errors import InputError
from pooljudge.formats.files import PathLike
from pooljudge.formats.log_rules import (
    BLANKS,
    MAX_RANK,
    NAME_FIELDS,
    RECOUNT,
    TEXT_FIELDS,
    locate,
    record_problem,
)
from pooljudge.formats.log_source import LogSource, byte_ranges
from pooljudge.ground.heap import release_freed_memory, reusing_freed_memory

__all__ = [
    "HASHABLE_FIELDS",
    "PRIVATE_FIELDS",
    "RE2_BLANK",
    "RETRIEVAL_COLUMNS",
    "Logs",
    "Privacy",
    "keyed_hash",
    "read_logs",
    "record_problem",
]

PRIVATE_FIELDS = ("query", "category", "language", "tenant")
HASHABLE_FIELDS = ("query_id", *PRIVATE_FIELDS)
RETRIEVAL_COLUMNS = ("line", "query_id", *TEXT_FIELDS, "latency_ms", "results")
RE2_BLANK = "[" + "".join(
    "-".join(f"\\x{{{ord(c):x}}}" for c in part.split("-")) if len(part) == 3 else
    f"\\x{{{ord(part):x}}}" for part in BLANKS) + "]"
_RE2_NAME_BAD = RE2_BLANK[:-1] + "/\\\\]"
_ASCII_BLANK = np.zeros(256, dtype=bool)
_ASCII_BLANK[[*range(0x09, 0x0E), *range(0x1C, 0x21)]] = True
_ASCII_NAME_BAD = _ASCII_BLANK.copy()
_ASCII_NAME_BAD[[ord("/"), ord("\\")]] = True
_RESULT = pa.struct([("id", pa.string()), ("rank", pa.int64()), ("score", pa.float64())])
SCHEMA = pa.schema([("query_id", pa.string()), *((f, pa.string()) for f in TEXT_FIELDS),
                    ("latency_ms", pa.float64()), ("results", pa.list_(_RESULT))])
_BLOCK = 1 << 20


@dataclass(frozen=True)
class Privacy:
    """Fields dropped (``private``) or replaced by a keyed hash (``hashed``, with ``key``)."""

    private: frozenset[str] = frozenset()
    hashed: frozenset[str] = frozenset()
    key: bytes = b""

    def __post_init__(self) -> None:
        unknown = (set(self.private) - set(PRIVATE_FIELDS)) | (
            set(self.hashed) - set(HASHABLE_FIELDS))
        if unknown:
            raise ValueError(f"not a private or hashable field: {', '.join(sorted(unknown))}")
        if self.hashed and not self.key:
            raise ValueError("hashed fields need a key")


@dataclass(frozen=True)
class Logs:
    """A log file as two tidy frames.

    ``retrievals``: one row per log line in file order — ``line`` (its line number),
    ``query_id``, the text fields (missing: NA), ``latency_ms`` (NaN: not logged) and
    ``results`` (how many results it lists). ``results``: one row per listed result —
    ``retrieval`` (int32, the row of ``retrievals``), ``doc``, ``rank`` (int32, given or list
    order) and ``score`` (NaN: not logged), in file order. Text columns are
    ``string[pyarrow]``, kept in Arrow without a copy.
    """

    path: str
    retrievals: pd.DataFrame
    results: pd.DataFrame
    privacy: Privacy = field(default_factory=Privacy)


def read_logs(path: PathLike, privacy: Privacy | None = None) -> Logs:
    """Read a log file (plain or gzip); InputError ``path:line: ...`` at the first bad line."""
    privacy = privacy or Privacy()
    sources = [LogSource(path, start, end) for start, end in byte_ranges(path, _workers())]
    try:
        with reusing_freed_memory():  # blocks of the same sizes: no page faults for each
            if len(sources) == 1:
                parts = _parts(sources[0])
            else:  # a plain file: its ranges parsed on threads (pyarrow releases the GIL)
                with ThreadPoolExecutor(len(sources)) as pool:
                    parts = [p for ranged in pool.map(_parts, sources) for p in ranged]
    except _Bad as exc:
        locate(path, exc.reason)  # raises: InputError at the first bad line
        raise AssertionError("unreachable") from None
    finally:
        for source in sources:
            source.close()
    rows = sum(len(p["query_id"]) for p in parts)
    if not rows:
        raise InputError("no retrievals (the file holds no JSON object)", path=path)
    lines = sum(source.lines for source in sources)
    exact = rows == lines and not any(source.maybe_blank for source in sources)
    numbers = np.arange(1, rows + 1) if exact else locate(path, RECOUNT)
    if len(numbers) != rows:
        raise InputError(f"cannot read the logs: {rows} records on {len(numbers)} lines",
                         path=path)
    logs = _frames(str(path), parts, numbers, privacy)
    del parts
    release_freed_memory()  # the blocks' memory, back to the kernel for what comes next
    return logs


class _Bad(Exception):
    """The fast path met something it does not accept (``reason``, without a line number)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def _workers() -> int:
    """How many ranges of a plain file are parsed at once: the usable cores, at most 4."""
    try:
        return max(1, min(4, len(os.sched_getaffinity(0))))
    except AttributeError:  # pragma: no cover - not on Linux
        return max(1, min(4, os.cpu_count() or 1))


def _parts(source: LogSource) -> list[dict]:
    """The checked columns of every block of ``source``."""
    return [_checked(batch) for batch in _batches(source)]


def _batches(source: LogSource) -> Iterator[pa.RecordBatch]:
    """The record batches of ``source``, read here a block of whole lines at a time and parsed
    by pyarrow (its threads, the GIL released). The bytes are handed over in memory, never as a
    Python file: pyarrow's streaming reader read such a file on its own thread, which could
    still hold it when the process exited (``terminate called``, an abort at exit)."""
    import pyarrow.json as pj

    options = pj.ParseOptions(explicit_schema=SCHEMA, unexpected_field_behavior="ignore")
    read_options = pj.ReadOptions(block_size=_BLOCK)
    for block in _line_blocks(source):
        try:
            # glibc's allocator, not Arrow's default pool: what the parser frees between blocks
            # goes back to the kernel (release_freed_memory), ~250 MB less at 1M lines
            table = pj.read_json(pa.py_buffer(block), read_options=read_options,
                                 parse_options=options, memory_pool=pa.system_memory_pool())
        except pa.ArrowException as exc:
            raise _Bad(str(exc)) from None
        yield from table.to_batches()
    if source.not_object:
        raise _Bad("a line that is not a JSON object")


def _line_blocks(source: LogSource) -> Iterator[bytes]:
    """``source``'s bytes in blocks of about ``_BLOCK`` bytes, each ending at a line end (the
    last one at the end of the stream), blocks of blanks only left out."""
    rest = b""
    while data := source.read(_BLOCK):
        cut = data.rfind(b"\n") + 1
        if not cut:
            rest += data
            continue
        block, rest = rest + data[:cut], data[cut:]
        if not block.isspace():
            yield block
    if rest and not rest.isspace():
        yield rest


def _checked(batch: pa.RecordBatch) -> dict[str, pa.Array | np.ndarray]:
    """The columns of one block, every rule checked (``_Bad`` on the first broken one)."""
    try:
        batch.validate(full=True)  # UTF-8 of the strings read
    except pa.ArrowInvalid as exc:
        raise _Bad(f"not valid UTF-8 ({exc})") from None
    query_id = batch.column("query_id")
    if query_id.null_count or _bad_strings(query_id, _ASCII_BLANK, RE2_BLANK, hash_first=True):
        raise _Bad("bad query_id")
    for name in NAME_FIELDS:
        if _bad_strings(batch.column(name), _ASCII_NAME_BAD, _RE2_NAME_BAD):
            raise _Bad(f"bad {name}")
    latency = batch.column("latency_ms")
    valid = latency.drop_null().to_numpy()
    if not np.isfinite(valid).all() or (valid < 0).any():
        raise _Bad("bad latency")
    listed = batch.column("results")
    if listed.null_count:
        raise _Bad("no results")
    offsets = listed.offsets.to_numpy()
    lengths = np.diff(offsets)
    items = listed.values.slice(offsets[0], offsets[-1] - offsets[0])
    doc, rank, score = items.flatten()  # a null result: every field null
    if doc.null_count or _bad_strings(doc, _ASCII_BLANK, RE2_BLANK):
        raise _Bad("bad result id")
    owner = np.repeat(np.arange(len(lengths), dtype=np.int32), lengths)
    ranks = _ranks(rank, owner, lengths)
    scores = _scores(score, owner, lengths)
    return {"query_id": query_id, **{f: batch.column(f) for f in TEXT_FIELDS},
            "latency_ms": latency, "lengths": lengths, "doc": doc, "rank": ranks,
            "score": scores}


def _bad_strings(values: pa.Array, ascii_bad: np.ndarray, re2: str, *,
                 hash_first: bool = False) -> bool:
    """Whether a non-null string is empty, holds a forbidden character (a byte table over
    Arrow's data buffer for ASCII text, the RE2 class ``re2`` otherwise) or, with
    ``hash_first``, starts with ``#``."""
    if values.null_count == len(values):
        return False
    offsets = np.frombuffer(values.buffers()[1], np.int32)[
        values.offset: values.offset + len(values) + 1]
    lengths = np.diff(offsets)
    if ((lengths == 0) & values.is_valid().to_numpy(zero_copy_only=False)).any():
        return True
    data = values.buffers()[2]
    if data is None:
        return False
    first = offsets[0]
    data = np.frombuffer(data, np.uint8)[first:offsets[-1]]
    starts = (offsets[:-1] - first)[lengths > 0]
    if hash_first and len(starts) and (data[starts] == ord("#")).any():
        return True
    if not len(data) or data.max() < 0x80:
        return bool(ascii_bad[data].any())
    import pyarrow.compute as pc

    return bool(pc.any(pc.match_substring_regex(values, re2)).as_py())


def _all_or_none(values: pa.Array, owner: np.ndarray, lengths: np.ndarray, name: str
                 ) -> np.ndarray:
    """Per line, whether the field is given; ``_Bad`` when some results have it and some not."""
    if values.null_count in (0, len(values)):
        return np.full(len(lengths), values.null_count == 0)
    given = np.bincount(owner, weights=values.is_valid().to_numpy(zero_copy_only=False),
                        minlength=len(lengths))
    if ((given != 0) & (given != lengths)).any():
        raise _Bad(f"{name} given for some results and not others")
    return given > 0


def _ranks(rank: pa.Array, owner: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """The ranks (list position where a line gives none); ``_Bad`` below 1 or repeated.

    Ranks increasing along each line are distinct; only the other lines are sorted to check.
    """
    given = _all_or_none(rank, owner, lengths, "rank")
    position = (np.arange(len(owner), dtype=np.int64)
                - np.repeat(np.cumsum(lengths) - lengths, lengths) + 1)
    if not given.any():
        return position.astype(np.int32)
    ranks = rank.fill_null(0).to_numpy()
    if not given.all():
        ranks = np.where(given[owner], ranks, position)
    if len(ranks) and (ranks.min() < 1 or ranks.max() > MAX_RANK):
        raise _Bad("rank out of range")
    same_line = owner[1:] == owner[:-1]
    unsorted = same_line & (ranks[1:] <= ranks[:-1])
    if unsorted.any():
        lines = np.isin(owner, owner[1:][unsorted])
        line, value = owner[lines], ranks[lines]
        order = np.lexsort((value, line))
        line, value = line[order], value[order]
        if ((line[1:] == line[:-1]) & (value[1:] == value[:-1])).any():
            raise _Bad("rank repeated")
    return ranks.astype(np.int32)


def _scores(score: pa.Array, owner: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """The scores (NaN where a line gives none); ``_Bad`` for a non-finite one."""
    _all_or_none(score, owner, lengths, "score")
    values = score.to_numpy(zero_copy_only=False)
    if score.null_count == 0:
        finite = np.isfinite(values).all()
    else:
        finite = np.isfinite(score.drop_null().to_numpy()).all()
    if not finite:
        raise _Bad("score not finite")
    return values.astype(np.float64, copy=False)


def _frames(path: str, parts: list[dict], lines: np.ndarray, privacy: Privacy) -> Logs:
    """The two frames of :class:`Logs`, privacy applied (string columns stay in Arrow)."""
    def chunked(name: str) -> pa.ChunkedArray:
        return pa.chunked_array([p[name] for p in parts], pa.string())

    lengths = np.concatenate([p["lengths"] for p in parts])
    text = {name: _private(chunked(name), name, privacy) for name in ("query_id", *TEXT_FIELDS)}
    retrievals = pd.DataFrame({
        "line": lines.astype(np.int64),
        **{name: _column(values) for name, values in text.items()},
        "latency_ms": np.concatenate([p["latency_ms"].to_numpy(zero_copy_only=False)
                                      for p in parts]),
        "results": lengths.astype(np.int64)}, copy=False)
    results = pd.DataFrame({
        "retrieval": np.repeat(np.arange(len(lengths), dtype=np.int32), lengths),
        "doc": _column(chunked("doc")),
        "rank": np.concatenate([p["rank"] for p in parts]).astype(np.int32, copy=False),
        "score": np.concatenate([p["score"] for p in parts])}, copy=False)
    return Logs(path, retrievals, results, privacy)


def _column(values: pa.ChunkedArray) -> pd.Series:
    """A string column kept in Arrow, chunks and all (``to_pandas`` would copy them whole)."""
    return pd.Series(pd.arrays.ArrowExtensionArray(values), copy=False)


def _private(values: pa.ChunkedArray, name: str, privacy: Privacy) -> pa.ChunkedArray:
    """``values`` dropped (all null), hashed, or as they are."""
    if name in privacy.private:
        return pa.chunked_array([pa.nulls(len(values), pa.string())])
    if name not in privacy.hashed:
        return values
    encoded = values.combine_chunks().dictionary_encode()
    digests = pa.array([None if v is None else keyed_hash(privacy.key, v)
                        for v in encoded.dictionary.to_pylist()], pa.string())
    return pa.chunked_array([digests.take(encoded.indices)])


def keyed_hash(key: bytes, value: str) -> str:
    """``HMAC-SHA256(key, value)`` of the UTF-8 value: its first 32 hexadecimal digits."""
    return hmac.new(key, value.encode("utf-8"), hashlib.sha256).hexdigest()[:32]
