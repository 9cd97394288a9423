"""The rules of a log line (:mod:`pooljudge.formats.logs` has the schema), one record at a
time: the line-by-line pass that names the first bad line when the columnar reader refuses a
file, or finds that its records may not be one per line (blank lines, two objects on a line).

:func:`record_problem` says what is wrong with one decoded record, in the words the user sees;
the columnar reader checks the same rules on whole blocks (a test holds the two together).
"""

from __future__ import annotations

import codecs
import json
import math
import re
from typing import TypeGuard

import numpy as np

from pooljudge.errors import InputError
from pooljudge.formats.files import PathLike
from pooljudge.formats.log_source import raw_lines

__all__ = ["BLANKS", "MAX_RANK", "NAME_FIELDS", "RECOUNT", "TEXT_FIELDS", "locate",
           "record_problem"]

TEXT_FIELDS = ("query", "config", "index_version", "category", "language", "tenant")
NAME_FIELDS = ("config", "index_version")
MAX_RANK = 2**31 - 1
RECOUNT = "fewer records than lines"
# Python's str.isspace characters, as one class for Python's re and for RE2 (pyarrow).
BLANKS = ("\t-\r", "\x1c-\x20", "\x85", "\xa0", "\u1680", "\u2000-\u200a", "\u2028", "\u2029",
           "\u202f", "\u205f", "\u3000")
_PY_BLANK = re.compile("[" + "".join(BLANKS) + "]")
_PY_NAME_BAD = re.compile("[" + "".join(BLANKS) + "/\\\\]")
_KNOWN_KEYS = frozenset(("query_id", *TEXT_FIELDS, "latency_ms", "results", "id", "rank",
                         "score"))


def locate(path: PathLike, reason: str) -> np.ndarray:
    """The line numbers of the records; InputError at the first line that breaks a rule (or,
    if none does, naming the fast reader's ``reason``)."""
    numbers = []
    decoder = codecs.getincrementaldecoder("utf-8")
    for number, raw in raw_lines(path):
        if not raw.strip():
            continue
        try:
            text = decoder().decode(raw, final=True)
        except UnicodeDecodeError:
            raise InputError("not valid UTF-8", path=path, line=number) from None
        try:
            record = json.loads(text, object_pairs_hook=_known_keys_once)
        except _Twice as exc:
            raise InputError(f"field {exc.args[0]!r} appears twice", path=path,
                             line=number) from None
        except ValueError as exc:
            message = getattr(exc, "msg", str(exc))
            raise InputError(f"not valid JSON: {message}", path=path, line=number) from None
        problem = record_problem(record)
        if problem:
            raise InputError(problem, path=path, line=number)
        numbers.append(number)
    if not numbers:
        raise InputError("no retrievals (the file holds no JSON object)", path=path)
    if reason == RECOUNT:
        return np.array(numbers, dtype=np.int64)
    raise InputError(f"cannot read the logs: {reason}", path=path)


class _Twice(ValueError):
    """A field of the schema named twice in one object."""


def _known_keys_once(pairs: list[tuple[str, object]]) -> dict:
    record = dict(pairs)
    if len(record) < len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen and key in _KNOWN_KEYS:
                raise _Twice(key)
            seen.add(key)
    return record


def record_problem(record: object) -> str | None:
    """What is wrong with one decoded line, by the schema's rules; None when nothing is."""
    if not isinstance(record, dict):
        return "expected a JSON object"
    problem = _id_problem(record.get("query_id"), "query_id")
    for name in TEXT_FIELDS:
        value = record.get(name)
        if problem is None and value is not None and not isinstance(value, str):
            problem = f"{name} must be a string, not {_kind(value)}"
        if problem is None and name in NAME_FIELDS and value is not None and (
                not value or _PY_NAME_BAD.search(value)):
            problem = f"{name} {value!r} must be non-empty, without blanks, '/' or '\\'"
    if problem is None:
        problem = _latency_problem(record.get("latency_ms"))
    return problem or _results_problem(record.get("results"))


def _id_problem(value: object, name: str) -> str | None:
    if value is None:
        return f"no {name}" if name == "query_id" else "a result without id"
    if not isinstance(value, str):
        return f"{name} must be a JSON string, not {_kind(value)}"
    if not value or _PY_BLANK.search(value):
        return f"{name} {value!r} must be non-empty and without blanks"
    if name == "query_id" and value.startswith("#"):
        return f"query_id {value!r} starts with '#', which run files read as a comment"
    return None


def _latency_problem(value: object) -> str | None:
    if value is None:
        return None
    if not _is_number(value) or not math.isfinite(value) or value < 0:
        return f"latency_ms must be a finite number >= 0, not {value!r}"
    return None


def _results_problem(results: object) -> str | None:
    if results is None:
        return "no results list"
    if not isinstance(results, list):
        return f"results must be a list, not {_kind(results)}"
    for i, item in enumerate(results, start=1):
        if not isinstance(item, dict):
            return f"result {i} must be an object, not {_kind(item)}"
        problem = _id_problem(item.get("id"), "id")
        if problem:
            return f"result {i}: {problem}"
        rank, score = item.get("rank"), item.get("score")
        if rank is not None and (not isinstance(rank, int) or isinstance(rank, bool)
                                 or not 1 <= rank <= MAX_RANK):
            return f"result {i}: rank must be an integer from 1 to {MAX_RANK}, not {rank!r}"
        if score is not None and (not _is_number(score) or not math.isfinite(score)):
            return f"result {i}: score must be a finite number, not {score!r}"
    for name in ("rank", "score"):
        given = sum(item.get(name) is not None for item in results)
        if 0 < given < len(results):
            return f"{name} given for {given} of the {len(results)} results (all or none)"
    ranks = [item.get("rank") for item in results if item.get("rank") is not None]
    if len(set(ranks)) < len(ranks):
        return f"rank {next(r for r in ranks if ranks.count(r) > 1)} appears twice"
    return None


def _is_number(value: object) -> TypeGuard[int | float]:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _kind(value: object) -> str:
    return {dict: "an object", list: "a list", bool: "a boolean", int: "a number",
            float: "a number", str: "a string"}.get(type(value), type(value).__name__)

