"""Nugget banks as files: nuggetizer's JSON Lines (also autojudge-base's
``NuggetizerNuggetBanks``) and autojudge-base's ``NuggetBanks`` (claims), read with every record
checked (``path:line``) and written whole or not at all (the caller's ``atomic_writer``).

- **nuggetizer**: one topic a line, ``{"qid", "query", "nuggets": [{"text", "importance"}, …]}``
  (other keys, such as ``reasoning``, ignored). It carries no nugget ids, sources or authors:
  read nuggets get the author the caller names; written ones lose them.
- **NuggetBanks** (autojudge-base, "argue"): one ``NuggetBank`` a line, ``{"query_id",
  "title_query", "format_version": "v3", "claim_bank": {text: claim, …}}``; a claim is
  ``{"claim", "claim_id", "query_id", "references": [{"doc_id"}], "importance", "creator":
  [{"is_human", "assessor_id" | "llm_model"}], "metadata": {"prompt_sha256"}}``. pooljudge
  writes its nugget key as ``claim_id``, its sources as references, its author as the creator;
  read back, nothing is lost. Question nuggets (``nugget_bank``) and sub-nuggets are refused:
  pooljudge's nuggets are claims.

A nugget's text is stripped and must be non-empty, at most :data:`MAX_NUGGET_CHARS` characters,
without NUL; ``importance`` is ``vital`` or ``okay`` (nuggetizer's ``failed`` is refused).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import IO, NamedTuple

from pooljudge.errors import InputError
from pooljudge.formats.files import jsonl_objects, read_utf8
from pooljudge.formats.ids import id_problem

__all__ = ["IMPORTANCES", "MAX_NUGGET_CHARS", "Banks", "NuggetRow", "check_nugget_text",
           "check_sources", "id_field", "read_nugget_banks", "read_nuggetizer_nuggets",
           "write_history", "write_nugget_banks", "write_nuggetizer_nuggets"]

IMPORTANCES = ("vital", "okay")
MAX_NUGGET_CHARS = 2000
PathLike = str | os.PathLike[str]


@dataclass(frozen=True)
class NuggetRow:
    """One nugget as a file holds it; ``key`` None when the file gives no id; ``line`` the
    1-based line of its record (0 for a nugget not read from a file)."""

    topic: str
    text: str
    importance: str
    key: str | None = None
    sources: tuple[str, ...] = ()
    author_kind: str = "model"
    author: str = "nuggetizer"
    prompt_sha256: str | None = None
    line: int = 0


class Banks(NamedTuple):
    """A file's banks: the nuggets in file order, each topic's query text, each topic's line."""

    rows: list[NuggetRow]
    queries: dict[str, str]
    lines: dict[str, int]


def check_nugget_text(text: object, path: PathLike | None = None,
                      line: int | None = None) -> str:
    """``text`` stripped; InputError when it is not a string, empty, too long or holds NUL."""
    if not isinstance(text, str):
        raise InputError(f"a nugget's text must be a string, not {type(text).__name__}",
                         path=path, line=line)
    text = text.strip()
    if not text:
        raise InputError("empty nugget text", path=path, line=line)
    if len(text) > MAX_NUGGET_CHARS:
        raise InputError(f"nugget text of {len(text)} characters, at most {MAX_NUGGET_CHARS}",
                         path=path, line=line)
    if "\x00" in text:
        raise InputError("NUL character in a nugget's text", path=path, line=line)
    return text


def check_sources(sources: object, path: PathLike | None = None,
                  line: int | None = None) -> tuple[str, ...]:
    """Passage ids (distinct, in order); InputError for a non-list or a bad id."""
    if not isinstance(sources, list | tuple):
        raise InputError("sources must be a list of passage ids", path=path, line=line)
    for source in sources:
        problem = id_problem(source) if isinstance(source, str) else "a passage id is a string"
        if problem:
            raise InputError(problem, path=path, line=line)
    return tuple(dict.fromkeys(sources))


def _importance(value: object, path: PathLike, line: int) -> str:
    if value not in IMPORTANCES:
        raise InputError(f"importance must be one of {', '.join(IMPORTANCES)}, not {value!r}",
                         path=path, line=line)
    return value


def id_field(record: Mapping, field: str, what: str, path: PathLike, line: int) -> str:
    """``record[field]``, a ``what`` id (topic, run…); InputError at ``path:line`` when it is
    missing, not a string, or not an id (:func:`pooljudge.formats.ids.id_problem`)."""
    value = record.get(field)
    if not isinstance(value, str):
        raise InputError(f"missing {what} id {field!r} (a string)", path=path, line=line)
    problem = id_problem(value, what)
    if problem:
        raise InputError(problem, path=path, line=line)
    return value


def _list(record: Mapping, field: str, path: PathLike, line: int) -> list:
    value = record.get(field)
    if not isinstance(value, list):
        raise InputError(f"{field!r} must be a list", path=path, line=line)
    return value


def read_nuggetizer_nuggets(path: PathLike, *, author_kind: str = "model",
                            author: str = "nuggetizer",
                            prompt_sha256: str | None = None) -> Banks:
    """The nuggets of a nuggetizer JSONL file (banks in file order) and each topic's query text;
    every nugget gets the author given. InputError at ``path:line`` for a bad record or a topic
    given twice."""
    banks = Banks([], {}, {})
    for line, record in jsonl_objects(read_utf8(path), path):
        topic = _new_topic(banks, record, "qid", path, line)
        banks.queries[topic] = str(record.get("query") or "")
        for nugget in _list(record, "nuggets", path, line):
            if not isinstance(nugget, dict):
                raise InputError("a nugget must be a JSON object", path=path, line=line)
            banks.rows.append(NuggetRow(
                topic, check_nugget_text(nugget.get("text"), path, line),
                _importance(nugget.get("importance"), path, line), author_kind=author_kind,
                author=author, prompt_sha256=prompt_sha256, line=line))
    return banks


def read_nugget_banks(path: PathLike) -> Banks:
    """The nuggets (claims) of an autojudge-base ``NuggetBanks`` JSONL file and each topic's
    ``title_query``. InputError at ``path:line`` for a bad record, a question nugget, a
    sub-nugget, a topic given twice, a claim whose ``query_id`` is another topic's."""
    banks = Banks([], {}, {})
    for line, record in jsonl_objects(read_utf8(path), path):
        topic = _new_topic(banks, record, "query_id", path, line)
        banks.queries[topic] = str(record.get("title_query") or "")
        if record.get("nugget_bank"):
            raise InputError("question nuggets (nugget_bank) are not supported: pooljudge's "
                             "nuggets are claims (claim_bank)", path=path, line=line)
        claims = record.get("claim_bank") or {}
        claims = list(claims.values()) if isinstance(claims, dict) else claims
        if not isinstance(claims, list):
            raise InputError("'claim_bank' must be an object or a list", path=path, line=line)
        banks.rows.extend(_claim(claim, topic, path, line) for claim in claims)
    return banks


def _new_topic(banks: Banks, record: Mapping, field: str, path: PathLike, line: int) -> str:
    """The record's topic, noted at ``line``; InputError when a bank of it came before."""
    topic = id_field(record, field, "topic", path, line)
    if topic in banks.lines:
        raise InputError(f"topic {topic!r} has a bank on line {banks.lines[topic]}", path=path,
                         line=line)
    banks.lines[topic] = line
    return topic


def _claim(claim: object, topic: str, path: PathLike, line: int) -> NuggetRow:
    if not isinstance(claim, dict):
        raise InputError("a claim must be a JSON object", path=path, line=line)
    if claim.get("query_id", topic) != topic:
        raise InputError(f"claim of topic {claim.get('query_id')!r} in the bank of {topic!r}",
                         path=path, line=line)
    if claim.get("sub_nuggets"):
        raise InputError("sub-nuggets are not supported", path=path, line=line)
    references = [r.get("doc_id") if isinstance(r, dict) else r
                  for r in claim.get("references") or []]
    creators = claim.get("creator") or [{"is_human": False, "llm_model": "unknown"}]
    creator = creators[0] if isinstance(creators, list) and creators else {}
    if not isinstance(creator, dict):
        raise InputError("a creator must be a JSON object", path=path, line=line)
    human = creator.get("is_human") is True
    author = creator.get("assessor_id" if human else "llm_model") or "unknown"
    metadata = claim.get("metadata") or {}
    prompt = None if human or not isinstance(metadata, dict) else metadata.get("prompt_sha256")
    key = claim.get("claim_id")
    if key is not None and (problem := id_problem(str(key), "nugget")):
        raise InputError(problem, path=path, line=line)
    return NuggetRow(topic, check_nugget_text(claim.get("claim"), path, line),
                     _importance(claim.get("importance"), path, line),
                     key=None if key is None else str(key),
                     sources=check_sources(references, path, line),
                     author_kind="person" if human else "model", author=str(author),
                     prompt_sha256=None if prompt is None else str(prompt), line=line)


def _by_topic(rows: Iterable[NuggetRow], queries: Mapping[str, str]) -> dict[str, list]:
    banks: dict[str, list[NuggetRow]] = {topic: [] for topic in queries}
    for row in rows:
        banks.setdefault(row.topic, []).append(row)
    return banks


def write_nuggetizer_nuggets(handle: IO[str], rows: Sequence[NuggetRow],
                             queries: Mapping[str, str]) -> None:
    """One nuggetizer line per topic of ``queries`` (then any other topic of ``rows``), its
    nuggets in the order given: ``{"qid", "query", "nuggets": [{"text", "importance"}]}``."""
    for topic, nuggets in _by_topic(rows, queries).items():
        handle.write(json.dumps({"qid": topic, "query": queries.get(topic, ""), "nuggets": [
            {"text": n.text, "importance": n.importance} for n in nuggets]},
            ensure_ascii=False) + "\n")


def write_nugget_banks(handle: IO[str], rows: Sequence[NuggetRow],
                       queries: Mapping[str, str]) -> None:
    """One autojudge-base ``NuggetBank`` line per topic (see the module docstring); a nugget's
    key is its ``claim_id`` (a row without one gets ``<topic>-<n>``)."""
    for topic, nuggets in _by_topic(rows, queries).items():
        claims = {}
        for number, n in enumerate(nuggets, start=1):
            creator = ({"is_human": True, "assessor_id": n.author} if n.author_kind == "person"
                       else {"is_human": False, "llm_model": n.author})
            claim = {"claim": n.text, "claim_id": n.key or f"{topic}-{number}", "query_id": topic,
                     "references": [{"doc_id": s} for s in n.sources],
                     "importance": n.importance, "creator": [creator]}
            if n.prompt_sha256 is not None:
                claim["metadata"] = {"prompt_sha256": n.prompt_sha256}
            claims[n.text] = claim
        handle.write(json.dumps({"query_id": topic, "title_query": queries.get(topic, ""),
                                 "format_version": "v3", "claim_bank": claims},
                                ensure_ascii=False) + "\n")


def write_history(handle: IO[str], events: Iterable[Mapping[str, object]]) -> None:
    """One JSON object a line per change of a bank (``key, topic, author_kind, action, actor,
    at, before, after``); ``at`` (a datetime, naive UTC) in ISO 8601 with ``Z``."""
    for event in events:
        at = event["at"]
        stamp = at.isoformat() + "Z" if hasattr(at, "isoformat") else str(at)
        handle.write(json.dumps({**event, "at": stamp}, ensure_ascii=False) + "\n")
