"""RAG answers as JSON Lines: the TREC 2024 RAG track's records (what nuggetizer and Ragnarök
read) and AutoJudge Reports (autojudge-base's ``Report``), told apart line by line.

- **TREC RAG**: ``{"run_id", "topic_id", "references": [doc id, …], "answer": [{"text",
  "citations": [i, …]}, …]}``: each sentence's citations are 0-based indices into
  ``references`` (or document ids listed there). Other keys (``topic``, ``response_length``)
  are ignored.
- **AutoJudge Report**: ``{"metadata": {"run_id", "topic_id" | "narrative_id", …},
  "responses" | "answer": [{"text", "citations"}], "references"}`` in any of its three
  citation forms: document ids (NeuCLIR), ``{doc id: confidence}`` (RAGTIME; kept in order of
  confidence, highest first) or indices into ``references`` (RAG 2024). Cited ids not in
  ``references`` are added to them.

Optional ``answer_id`` names the answer; without it the answer is ``<run_id>/<topic_id>``.
Every record is checked: ``path:line`` for a missing or bad field, a citation outside the
references, an answer id given twice.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import IO

from pooljudge.errors import InputError
from pooljudge.formats.files import jsonl_objects, read_utf8
from pooljudge.formats.ids import id_problem
from pooljudge.formats.nuggets import id_field

__all__ = ["AnswerRow", "Sentence", "read_rag_answers", "write_rag_answers", "write_reports"]

PathLike = str | os.PathLike[str]


@dataclass(frozen=True)
class Sentence:
    """A sentence of an answer and its citations, indices into the answer's references."""

    text: str
    citations: tuple[int, ...] = ()


@dataclass(frozen=True)
class AnswerRow:
    """One RAG answer: its id, topic, run, references and sentences (``line``: its line)."""

    key: str
    topic: str
    run: str
    references: tuple[str, ...]
    sentences: tuple[Sentence, ...]
    line: int = 0


def _citations(cited: object, references: list[str], open_list: bool, path: PathLike,
               line: int) -> tuple[int, ...]:
    """A sentence's citations as indices into ``references``: a list of indices or of
    document ids (new ids appended to ``references`` when ``open_list``, else they must be
    there already), or a ``{doc id: confidence}`` object, ordered by confidence (highest
    first, ties in the written order)."""
    if isinstance(cited, dict):
        if any(isinstance(c, bool) or not isinstance(c, int | float) for c in cited.values()):
            raise InputError("a citation's confidence must be a number", path=path, line=line)
        confidence: dict = cited
        cited = sorted(confidence, key=lambda doc: -confidence[doc])
        open_list = True
    if not isinstance(cited, list):
        raise InputError("'citations' must be a list or an object", path=path, line=line)
    indices = []
    for citation in cited:
        if isinstance(citation, str) and citation not in references and open_list:
            if (problem := id_problem(citation)):
                raise InputError(problem, path=path, line=line)
            references.append(citation)
        if isinstance(citation, str) and citation in references:
            citation = references.index(citation)
        if isinstance(citation, bool) or not isinstance(citation, int) or not (
                0 <= citation < len(references)):
            raise InputError(f"citation {citation!r} is not one of the {len(references)} "
                             "references", path=path, line=line)
        indices.append(citation)
    return tuple(indices)


def _sentences(items: object, references: list[str], open_list: bool, path: PathLike,
               line: int) -> tuple[Sentence, ...]:
    if not isinstance(items, list):
        raise InputError("'answer' must be a list of sentences", path=path, line=line)
    sentences = []
    for item in items:
        if not isinstance(item, dict) or not isinstance(item.get("text"), str):
            raise InputError("a sentence must be an object with a 'text' string", path=path,
                             line=line)
        if "\x00" in item["text"]:
            raise InputError("NUL character in an answer's text", path=path, line=line)
        sentences.append(Sentence(item["text"], _citations(item.get("citations") or [],
                                                            references, open_list, path, line)))
    return tuple(sentences)


def _fields(record: dict, path: PathLike, line: int) -> tuple[str, str]:
    """Run and topic: a TREC RAG record's, or an AutoJudge Report's ``metadata``'s
    (``run_id``, ``topic_id`` or else ``narrative_id``)."""
    if "metadata" not in record:
        return (id_field(record, "run_id", "run", path, line),
                id_field(record, "topic_id", "topic", path, line))
    meta = record["metadata"]
    if not isinstance(meta, dict):
        raise InputError("'metadata' must be an object", path=path, line=line)
    topic = meta.get("topic_id", meta.get("narrative_id"))
    if isinstance(topic, int) and not isinstance(topic, bool):
        topic = str(topic)
    return (id_field(meta, "run_id", "run", path, line),
            id_field({"topic_id": topic}, "topic_id", "topic", path, line))


def read_rag_answers(path: PathLike) -> list[AnswerRow]:
    """The answers of a JSONL file of TREC RAG answers or AutoJudge Reports, in file order
    (see the module docstring)."""
    answers: list[AnswerRow] = []
    seen: dict[str, int] = {}
    for line, record in jsonl_objects(read_utf8(path), path):
        run, topic = _fields(record, path, line)
        refs = record.get("references") or []
        if not isinstance(refs, list) or any(id_problem(r) if isinstance(r, str) else True
                                             for r in refs):
            raise InputError("'references' must be a list of document ids", path=path,
                             line=line)
        report = "metadata" in record
        items = record.get("responses", record.get("answer")) if report else record.get("answer")
        references = list(refs)
        sentences = _sentences(items, references, report, path, line)
        key = record.get("answer_id", f"{run}/{topic}")
        if not isinstance(key, str) or not key or "\x00" in key:
            raise InputError(f"bad answer id {key!r}", path=path, line=line)
        if key in seen:
            raise InputError(f"answer {key!r} is already on line {seen[key]}", path=path,
                             line=line)
        seen[key] = line
        answers.append(AnswerRow(key, topic, run, tuple(references), sentences, line))
    return answers


def write_rag_answers(handle: IO[str], answers: Sequence[AnswerRow]) -> None:
    """One line per answer, as :func:`read_rag_answers` reads it (with its ``answer_id``)."""
    for a in answers:
        handle.write(json.dumps({
            "run_id": a.run, "topic_id": a.topic, "answer_id": a.key,
            "references": list(a.references),
            "answer": [{"text": s.text, "citations": list(s.citations)} for s in a.sentences]},
            ensure_ascii=False) + "\n")


def write_reports(handle: IO[str], answers: Sequence[AnswerRow], *, team: str) -> None:
    """One AutoJudge Report per answer: ``metadata`` (``team_id``, ``run_id``, ``topic_id``),
    ``responses`` with citations as document ids (the NeuCLIR form), ``references``, and
    pooljudge's ``answer_id``."""
    for a in answers:
        handle.write(json.dumps({
            "metadata": {"team_id": team, "run_id": a.run, "topic_id": a.topic},
            "answer_id": a.key, "references": list(a.references),
            "responses": [{"text": s.text, "citations": [a.references[i] for i in s.citations]}
                          for s in a.sentences]}, ensure_ascii=False) + "\n")
