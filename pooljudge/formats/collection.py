"""Readers for a campaign's topics and documents, with ``path:line`` errors.

Topics (columns ``id, title, description, narrative``) come from TREC topic files
(``<top> <num> Number: 301 <title> … <desc> Description: … <narr> Narrative: … </top>``),
TSV with a header, or JSONL. Documents (columns ``id, title, text``) come from JSONL, TSV with a
header, or TREC ``<DOC> <DOCNO>…</DOCNO> … <TEXT>…</TEXT> </DOC>`` files (the title from
``<HEADLINE>`` or ``<TITLE>``; without ``<TEXT>``, the body with its tags removed). The format is
recognised from the content, not the file name. Ids are strings; an id listed twice, a blank id
or a missing id column is an error naming the line. :func:`check_pool_members` is the one check
that a pool names only topics and documents that were given (the store's and every caller's).
"""

from __future__ import annotations

import html
import json
import os
import re
from collections.abc import Callable, Iterable
from pathlib import Path

import numpy as np
import pandas as pd

from pooljudge.errors import InputError
from pooljudge.formats.files import PathLike, atomic_writer, jsonl_objects, read_bytes
from pooljudge.formats.ids import check_id, refuse_nul

__all__ = ["DOCUMENT_COLUMNS", "TOPIC_COLUMNS", "check_pool_members", "pool_line_numbers",
           "read_documents", "read_topics", "write_collection"]

TOPIC_COLUMNS = ("id", "title", "description", "narrative")
DOCUMENT_COLUMNS = ("id", "title", "text")

_TOP = re.compile(r"<top>(.*?)</top>", re.S | re.I)
_TOPIC_FIELD = re.compile(r"<(num|title|desc|narr)>", re.I)
_FIELD_PREFIX = {"num": r"number:", "desc": r"description:", "narr": r"narrative:", "title": ""}
_DOC = re.compile(r"<DOC>(.*?)</DOC>", re.S | re.I)
_DOCNO = re.compile(r"<DOCNO>\s*(.*?)\s*</DOCNO>", re.S | re.I)
_TEXT = re.compile(r"<TEXT>(.*?)</TEXT>", re.S | re.I)
_HEADLINE = re.compile(r"<(HEADLINE|TITLE|HEAD)>(.*?)</\1>", re.S | re.I)
_TAG = re.compile(r"<[^>]+>")
_SPACE = re.compile(r"[ \t\r\f\v]+")
_Rows = tuple[pd.DataFrame, list[int]]  # a file's rows and the line each starts on


def read_topics(path: PathLike) -> pd.DataFrame:
    """Topics from a TREC topic file, a JSONL file or a TSV file with a header."""
    return _read_file(path, "<top>", _trec_topics, TOPIC_COLUMNS, "topic")[0]


def read_documents(paths: PathLike | Iterable[PathLike]) -> pd.DataFrame:
    """Documents from one or more JSONL, TSV (with header) or TREC ``<DOC>`` files."""
    given = [paths] if isinstance(paths, str | bytes | os.PathLike) else paths
    frames: list[pd.DataFrame] = []
    seen: dict[str, str] = {}
    for path in given:
        frame, lines = _read_file(path, "<doc>", _trec_documents, DOCUMENT_COLUMNS, "document")
        for doc, line in zip(frame["id"], lines, strict=True):
            if doc in seen:
                raise InputError(f"document {doc} also appears in {seen[doc]}", path=path,
                                 line=int(line))
        seen.update(dict.fromkeys(frame["id"], str(path)))
        frames.append(frame)
    return pd.concat(frames, ignore_index=True)


def pool_line_numbers(path: PathLike) -> np.ndarray:
    """Line numbers of the data rows of a pool TSV, aligned with :func:`trec.read_pool`'s rows."""
    lines = read_bytes(path).decode("utf-8", errors="replace").splitlines()
    return np.array([n for n, line in enumerate(lines, start=1) if n > 1 and line != ""])


def check_pool_members(pool: pd.DataFrame, topics: pd.DataFrame, documents: pd.DataFrame,
                       path: PathLike | None = None, *, from_runs: bool = False) -> None:
    """InputError for the first pool row whose topic is not in ``topics["id"]`` or whose
    document is not in ``documents["id"]`` (ids compared as text; a row lacking both names its
    topic).

    The message says where the row came from: the pool file ``path`` (``path:line: unknown
    document D``), runs (``from_runs``: ``run(s) A,B retrieve topic T, document D, but the
    documents have no D``, from the row's ``runs``), else the frame (``pool row N names an
    unknown document: D``, N counted from 1).
    """
    unknown_topic = ~pool["topic"].astype(str).isin(set(topics["id"].astype(str))).to_numpy()
    unknown_doc = ~pool["doc"].astype(str).isin(set(documents["id"].astype(str))).to_numpy()
    bad = unknown_topic | unknown_doc
    if not bad.any():
        return
    i = int(np.argmax(bad))
    column, what = ("topic", "topic") if unknown_topic[i] else ("doc", "document")
    value = pool[column].iat[i]
    if path is not None:
        raise InputError(f"unknown {what} {value}", path=path,
                         line=int(pool_line_numbers(path)[i]))
    if from_runs:
        raise InputError(f"run(s) {pool['runs'].iat[i]} retrieve topic {pool['topic'].iat[i]}, "
                         f"document {pool['doc'].iat[i]}, but the {what}s have no {value}")
    raise InputError(f"pool row {i + 1} names an unknown {what}: {value}")


def _read_file(path: PathLike, marker: str, read_trec: Callable[[str, PathLike], _Rows],
               columns: tuple[str, ...], what: str) -> _Rows:
    """One file's rows, checked, and their lines: TREC markup (``read_trec``) when it holds
    ``marker``, JSONL when it starts with ``{``, else TSV with a header."""
    text, kind = _decode(path)
    if kind == "trec" and marker in text.lower():
        frame, lines = read_trec(text, path)
    elif kind == "jsonl":
        frame, lines = _jsonl(text, path, columns)
    else:
        frame, lines = _tsv(text, path, columns)
    return _finish(frame, lines, path, columns, what), lines


def _decode(path: PathLike) -> tuple[str, str]:
    raw = read_bytes(path)
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError("not valid UTF-8", path=path,
                         line=raw[: exc.start].count(b"\n") + 1) from None
    first = text.lstrip()[:1]
    return text, {"<": "trec", "{": "jsonl"}.get(first, "tsv")


def _trec_topics(text: str, path: PathLike) -> tuple[pd.DataFrame, list[int]]:
    rows, lines = [], []
    for match in _TOP.finditer(text):
        line = text.count("\n", 0, match.start()) + 1
        parts = _TOPIC_FIELD.split(match.group(1))
        fields = {}
        for tag, value in zip(parts[1::2], parts[2::2], strict=True):
            value = re.sub(rf"^\s*{_FIELD_PREFIX[tag.lower()]}", "", value.strip(), flags=re.I)
            fields[tag.lower()] = " ".join(value.split())
        if not fields.get("num"):
            raise InputError("topic without <num>", path=path, line=line)
        rows.append({"id": fields["num"], "title": fields.get("title", ""),
                     "description": fields.get("desc", ""), "narrative": fields.get("narr", "")})
        lines.append(line)
    return pd.DataFrame(rows, columns=list(TOPIC_COLUMNS)), lines


def _trec_documents(text: str, path: PathLike) -> tuple[pd.DataFrame, list[int]]:
    starts = [m.start() for m in _DOC.finditer(text)]
    line_of = np.searchsorted(np.array([m.start() for m in re.finditer("\n", text)]),
                              np.array(starts, dtype=np.int64)) + 1
    rows = []
    for match, line in zip(_DOC.finditer(text), line_of, strict=True):
        body = match.group(1)
        docno = _DOCNO.search(body)
        if docno is None:
            raise InputError("<DOC> without <DOCNO>", path=path, line=int(line))
        head = _HEADLINE.search(body)
        texts = _TEXT.findall(body)
        content = "\n\n".join(texts) if texts else _DOCNO.sub("", body)
        rows.append({"id": docno.group(1), "title": _clean(head.group(2)) if head else "",
                     "text": _clean(content)})
    return pd.DataFrame(rows, columns=list(DOCUMENT_COLUMNS)), [int(x) for x in line_of]


def _clean(markup: str) -> str:
    """Text without tags or entities; blank runs squeezed, paragraph breaks kept."""
    text = html.unescape(_TAG.sub(" ", markup))
    paragraphs = (_SPACE.sub(" ", p).strip() for p in re.split(r"\n\s*\n", text))
    return "\n\n".join(" ".join(p.split()) for p in paragraphs if p)


def _jsonl(text: str, path: PathLike, columns: tuple[str, ...]) -> tuple[pd.DataFrame, list[int]]:
    rows, lines = [], []
    for number, record in jsonl_objects(text, path):
        if "id" not in record:
            raise InputError("expected a JSON object with an \"id\"", path=path, line=number)
        rows.append({c: _as_text(record.get(c)) for c in columns})
        lines.append(number)
    return pd.DataFrame(rows, columns=list(columns)), lines


def _tsv(text: str, path: PathLike, columns: tuple[str, ...]) -> tuple[pd.DataFrame, list[int]]:
    all_lines = text.splitlines()
    header = all_lines[0].split("\t")
    if "id" not in header:
        raise InputError(f"header lacks an 'id' column (expected {', '.join(columns)}, "
                         "tab-separated)", path=path, line=1)
    twice = sorted({c for c in header if header.count(c) > 1})
    if twice:
        raise InputError(f"header repeats column(s) {', '.join(twice)}", path=path, line=1)
    rows, lines = [], []
    for number, line in enumerate(all_lines[1:], start=2):
        if not line.strip():
            continue
        fields = line.split("\t")
        if len(fields) != len(header):
            raise InputError(f"expected {len(header)} tab-separated fields, found {len(fields)}",
                             path=path, line=number)
        record = dict(zip(header, fields, strict=True))
        rows.append({c: record.get(c, "") for c in columns})
        lines.append(number)
    return pd.DataFrame(rows, columns=list(columns)), lines


def _as_text(value: object) -> str:
    if value is None:
        return ""
    return value if isinstance(value, str) else json.dumps(value) if isinstance(
        value, dict | list) else str(value)


def _finish(frame: pd.DataFrame, lines: list[int], path: PathLike, columns: tuple[str, ...],
            what: str) -> pd.DataFrame:
    if frame.empty:
        raise InputError(f"no {what}s found", path=path)
    frame = frame.astype(dict.fromkeys(columns, object))
    frame["id"] = frame["id"].map(lambda s: s.strip())
    blank = (frame["id"] == "").to_numpy()
    if blank.any():
        raise InputError(f"blank {what} id", path=path, line=lines[int(np.argmax(blank))])
    for value, line in zip(frame["id"].tolist(), lines, strict=True):
        check_id(value, "topic" if what == "topic" else "document", path, line)
    for column in columns:
        refuse_nul(frame[column].tolist(), lines, path)
    dup = frame["id"].duplicated().to_numpy()
    if dup.any():
        i = int(np.argmax(dup))
        raise InputError(f"{what} {frame['id'].iat[i]} listed twice", path=path, line=lines[i])
    return frame


def write_collection(documents: pd.DataFrame, topics: pd.DataFrame, folder: PathLike
                     ) -> tuple[Path, Path]:
    """Write ``docs.jsonl`` (id, title, text) and ``topics.jsonl`` (id, title, description,
    narrative) into ``folder`` (created if missing), each atomically; their paths. The files
    read back with :func:`read_documents` and :func:`read_topics`."""
    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    paths = out / "docs.jsonl", out / "topics.jsonl"
    for path, frame, columns in ((paths[0], documents, DOCUMENT_COLUMNS),
                                 (paths[1], topics, TOPIC_COLUMNS)):
        rows = frame[list(columns)].to_dict("records")
        with atomic_writer(path) as handle:
            handle.writelines(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)
    return paths
