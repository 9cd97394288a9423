"""Nugget assignments in nuggetizer's JSON Lines, and nugget→document qrels.

**Assignments** (nuggetizer's ``assign_nuggets.py`` output): one answer a line, ``{"qid",
"run_id", "nuggets": [{"text", "importance", "assignment"}, …]}``, ``assignment`` one of
``support``, ``partial_support``, ``not_support``. pooljudge also writes, and reads when
present, ``answer_id`` (which answer; without it the run's one answer to the topic) and
``assessor`` (who assigned; without it the name the caller gives). A nugget is named by its text
(nuggetizer has no nugget ids). ``path:line`` for a label outside the scale, an importance
outside vital/okay, a missing field.

**Qrels** from nuggets: which documents support a nugget (its sources), written
``nugget 0 doc grade`` (``--by nugget``: each nugget a query) or ``topic 0 doc grade``
(``--by topic``: a document's best grade over the topic's nuggets); grade 2 for a vital nugget,
1 for an okay one.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import IO, NamedTuple

from pooljudge.errors import InputError
from pooljudge.formats.files import jsonl_objects, read_utf8
from pooljudge.formats.nuggets import IMPORTANCES, NuggetRow, check_nugget_text, id_field

__all__ = ["LABELS", "AnswerRef", "AssignmentRow", "Assignments", "read_nuggetizer_assignments",
           "write_nugget_qrels", "write_nuggetizer_assignments"]

LABELS = ("not_support", "partial_support", "support")
GRADES = {"vital": 2, "okay": 1}
PathLike = str | os.PathLike[str]


@dataclass(frozen=True)
class AssignmentRow:
    """One assigned cell as a file holds it: the answer (by id, or None: the run's answer to the
    topic), the nugget's text, the label, the assessor (None: the caller's), its line."""

    topic: str
    run: str
    answer: str | None
    nugget_text: str
    label: str
    assessor: str | None
    line: int = 0


@dataclass(frozen=True)
class AnswerRef:
    """The answer one record names (``answer`` None: the run's answer to the topic)."""

    topic: str
    run: str
    answer: str | None
    line: int = 0


class Assignments(NamedTuple):
    """A file's cells in file order, and every record's answer (also of records without
    cells), so that each can be checked against the campaign."""

    rows: list[AssignmentRow]
    answers: list[AnswerRef]


def read_nuggetizer_assignments(path: PathLike) -> Assignments:
    """Every (answer, nugget) cell of a nuggetizer assignments file, in file order."""
    rows: list[AssignmentRow] = []
    answers: list[AnswerRef] = []
    for line, record in jsonl_objects(read_utf8(path), path):
        topic = id_field(record, "qid", "topic", path, line)
        run = id_field(record, "run_id", "run", path, line)
        answer, assessor = record.get("answer_id"), record.get("assessor")
        for name, value in (("answer_id", answer), ("assessor", assessor)):
            if value is not None and (not isinstance(value, str) or not value.strip()):
                raise InputError(f"{name!r} must be a non-empty string", path=path, line=line)
        answers.append(AnswerRef(topic, run, answer, line))
        nuggets = record.get("nuggets")
        if not isinstance(nuggets, list):
            raise InputError("'nuggets' must be a list", path=path, line=line)
        for nugget in nuggets:
            if not isinstance(nugget, dict):
                raise InputError("a nugget must be a JSON object", path=path, line=line)
            label = nugget.get("assignment")
            if label not in LABELS:
                raise InputError(f"assignment must be one of {', '.join(LABELS)}, not "
                                 f"{label!r}", path=path, line=line)
            importance = nugget.get("importance", "vital")
            if importance not in IMPORTANCES:
                raise InputError(f"importance must be one of {', '.join(IMPORTANCES)}, not "
                                 f"{importance!r}", path=path, line=line)
            rows.append(AssignmentRow(topic, run, answer,
                                      check_nugget_text(nugget.get("text"), path, line), label,
                                      assessor, line))
    return Assignments(rows, answers)


def write_nuggetizer_assignments(handle: IO[str], records: Iterable[dict]) -> None:
    """One line per answer and assessor. Each of ``records`` is ``{"qid", "query",
    "answer_id", "run_id", "assessor", "answer_text", "nuggets": [{"text", "importance",
    "assignment"}]}`` (nuggetizer's fields and pooljudge's two)."""
    for record in records:
        handle.write(json.dumps(record, ensure_ascii=False) + "\n")


def write_nugget_qrels(handle: IO[str], nuggets: Sequence[NuggetRow], *, by: str) -> int:
    """Qrels from the nuggets' sources (see the module docstring); the number of lines.
    ``by`` is ``nugget`` or ``topic``; lines sorted by query, then document."""
    best: dict[tuple[str, str], int] = {}
    for n in nuggets:
        query = n.key if by == "nugget" else n.topic
        if query is None:
            raise ValueError("a nugget without a key cannot be a qrels query")
        for doc in n.sources:
            best[query, doc] = max(best.get((query, doc), 0), GRADES[n.importance])
    for (query, doc), grade in sorted(best.items()):
        handle.write(f"{query} 0 {doc} {grade}\n")
    return len(best)
