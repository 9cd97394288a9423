"""Assign nuggets by a model: the prompt (nuggetizer's assignment prompt) and the reading of its
reply.

For one answer, the prompt gives the query, the answer's text (its sentences joined) and the
topic's active nuggets numbered in bank order, and asks for each a label ``support``,
``partial_support`` or ``not_support`` — nuggetizer 0.0.5's assignment prompt, with the answer
as JSON. Its identity is :data:`ASSIGN_PROMPT_SHA256`, the SHA-256 of the system message and the
template (before filling).

:func:`parse_assignments` reads a reply: the whole reply (one enclosing Markdown code fence
removed) is JSON, ``{"labels": [...]}`` or the list alone, with exactly one label per nugget in
order, each one of :data:`pooljudge.annotate.records.NUGGET_LABELS` (any case; a space or a
hyphen for the underscore). Anything else is an :class:`InvalidAssignment` naming the first
problem: nothing of that reply is kept.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Sequence

from pooljudge.annotate.records import NUGGET_LABELS

__all__ = ["ASSIGN_PROMPT_SHA256", "ASSIGN_SYSTEM", "ASSIGN_TEMPLATE", "InvalidAssignment",
           "assign_messages", "corrective_assign_message", "parse_assignments"]

MAX_ANSWER_CHARS = 8000  # an answer's text is cut there in the prompt
ASSIGN_SYSTEM = ("You are NuggetizeAssignerLLM, an intelligent assistant that can label a list "
                 "of atomic nuggets based on if they are captured by a given passage.")
ASSIGN_TEMPLATE = """\
Based on the query and passage, label each of the {count} nuggets either as support, \
partial_support, or not_support using the following criteria. A nugget that is fully captured \
in the passage should be labeled as support. A nugget that is partially captured in the \
passage should be labeled as partial_support. If the nugget is not captured at all, label it \
as not_support. Return the list of labels in the same order as the nuggets. Do not provide \
any explanation.

Search Query: {query}
Passage: {passage}
Nugget List:
{nuggets}

Only return a JSON object and nothing else, in the form \
{{"labels": ["support", "not_support", "partial_support", ...]}} with exactly {count} labels.
Labels:"""
ASSIGN_PROMPT_SHA256 = hashlib.sha256(f"{ASSIGN_SYSTEM}\n{ASSIGN_TEMPLATE}".encode()).hexdigest()
_FENCE = re.compile(r"^```[\w-]*\s*\n(.*?)\n?```$", re.DOTALL)


class InvalidAssignment(ValueError):
    """A reply that is not one valid label per nugget; the message says why."""


def assign_messages(*, query: str, answer: str, nuggets: Sequence[str]) -> list[dict]:
    """The chat messages asking for one label per nugget of ``nuggets`` for ``answer``."""
    listed = "\n".join(f"{i}. {text}" for i, text in enumerate(nuggets, start=1))
    prompt = ASSIGN_TEMPLATE.format(count=len(nuggets), query=query,
                                    passage=answer[:MAX_ANSWER_CHARS], nuggets=listed)
    return [{"role": "system", "content": ASSIGN_SYSTEM}, {"role": "user", "content": prompt}]


def corrective_assign_message(problem: str, count: int) -> dict:
    """The follow-up that names what was wrong with the last reply."""
    return {"role": "user", "content": f"That reply could not be used: {problem}. Answer again "
                                       f"with only a JSON object {{\"labels\": [...]}} holding "
                                       f"exactly {count} labels, each support, partial_support "
                                       "or not_support."}


def parse_assignments(reply: str, count: int) -> list[str]:
    """The ``count`` labels of ``reply``, in nugget order (see the module docstring)."""
    text = reply.strip()
    fenced = _FENCE.match(text)
    if fenced:
        text = fenced.group(1).strip()
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InvalidAssignment(f"not JSON ({exc.msg} at character {exc.pos})") from None
    if isinstance(data, dict):
        if set(data) != {"labels"}:
            raise InvalidAssignment('the object must hold one key, "labels"')
        data = data["labels"]
    if not isinstance(data, list):
        raise InvalidAssignment("the labels are not a list")
    if len(data) != count:
        raise InvalidAssignment(f"{len(data)} labels for {count} nuggets")
    labels = []
    for position, value in enumerate(data, start=1):
        label = value.strip().lower().replace(" ", "_").replace("-", "_") \
            if isinstance(value, str) else None
        if label not in NUGGET_LABELS:
            raise InvalidAssignment(f"label {position} is {value!r}, not one of "
                                    f"{', '.join(NUGGET_LABELS)}")
        labels.append(label)
    return labels
