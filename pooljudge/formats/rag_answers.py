"""RAG answers in the TREC 2024 RAG track's JSON Lines (what nuggetizer and Ragnarök read).

One answer a line: ``{"run_id", "topic_id", "references": [doc id, …], "answer": [{"text",
"citations": [i, …]}, …]}`` — each sentence's citations are 0-based indices into
``references`` (a citation may also be a document id of ``references``). Optional
``answer_id`` names the answer; without it the answer is ``<run_id>/<topic_id>``. Other keys
(``topic``, ``response_length``) are ignored. Every record is checked: ``path:line`` for a
missing or bad field, a citation outside the references, an answer id given twice.
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

__all__ = ["AnswerRow", "Sentence", "read_rag_answers", "write_rag_answers"]

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


def _sentence(item: object, references: tuple[str, ...], path: PathLike,
              line: int) -> Sentence:
    if not isinstance(item, dict) or not isinstance(item.get("text"), str):
        raise InputError("a sentence must be an object with a 'text' string", path=path,
                         line=line)
    if "\x00" in item["text"]:
        raise InputError("NUL character in an answer's text", path=path, line=line)
    cited = item.get("citations") or []
    if not isinstance(cited, list):
        raise InputError("'citations' must be a list", path=path, line=line)
    indices = []
    for citation in cited:
        if isinstance(citation, str) and citation in references:
            citation = references.index(citation)
        if isinstance(citation, bool) or not isinstance(citation, int) or not (
                0 <= citation < len(references)):
            raise InputError(f"citation {citation!r} is not one of the {len(references)} "
                             "references", path=path, line=line)
        indices.append(citation)
    return Sentence(item["text"], tuple(indices))


def read_rag_answers(path: PathLike) -> list[AnswerRow]:
    """The answers of a TREC RAG answers JSONL file, in file order (see the module docstring)."""
    answers: list[AnswerRow] = []
    seen: dict[str, int] = {}
    for line, record in jsonl_objects(read_utf8(path), path):
        run = id_field(record, "run_id", "run", path, line)
        topic = id_field(record, "topic_id", "topic", path, line)
        refs = record.get("references") or []
        if not isinstance(refs, list) or any(id_problem(r) if isinstance(r, str) else True
                                             for r in refs):
            raise InputError("'references' must be a list of document ids", path=path,
                             line=line)
        references = tuple(refs)
        sentences = record.get("answer")
        if not isinstance(sentences, list):
            raise InputError("'answer' must be a list of sentences", path=path, line=line)
        key = record.get("answer_id", f"{run}/{topic}")
        if not isinstance(key, str) or not key or "\x00" in key:
            raise InputError(f"bad answer id {key!r}", path=path, line=line)
        if key in seen:
            raise InputError(f"answer {key!r} is already on line {seen[key]}", path=path,
                             line=line)
        seen[key] = line
        answers.append(AnswerRow(key, topic, run, references, tuple(
            _sentence(s, references, path, line) for s in sentences), line))
    return answers


def write_rag_answers(handle: IO[str], answers: Sequence[AnswerRow]) -> None:
    """One line per answer, as :func:`read_rag_answers` reads it (with its ``answer_id``)."""
    for a in answers:
        handle.write(json.dumps({
            "run_id": a.run, "topic_id": a.topic, "answer_id": a.key,
            "references": list(a.references),
            "answer": [{"text": s.text, "citations": list(s.citations)} for s in a.sentences]},
            ensure_ascii=False) + "\n")
