"""Draft nugget banks by a model: the prompt (nuggetizer's, in one request) and the reading of
its reply.

The prompt asks, for one topic, for at most ``max_nuggets`` atomic nuggets of 1–12 words drawn
from the topic's relevant passages, in decreasing order of importance, each labelled vital or
okay — nuggetizer's creation prompt and its importance prompt (0.0.5) asked together, with the
answer as JSON. Its identity is :data:`PROMPT_SHA256`, the SHA-256 of the system message and
the template (before filling), stored with every drafted nugget beside the model's name.

A reply is read by :func:`parse_drafts`: the whole reply (one enclosing Markdown code fence
removed) is JSON, ``{"nuggets": [{"text", "importance"}, …]}`` or the list alone; every text is
a valid nugget text (non-empty after stripping, at most
:data:`pooljudge.formats.nuggets.MAX_NUGGET_CHARS` characters, no NUL) and every importance
``vital`` or ``okay`` (any case); there is at least one nugget, at most ``max_nuggets``, and no
text twice. Anything else is an :class:`InvalidDraft` naming the first problem: nothing of that
reply is kept. The 1–12 word length is asked, not enforced (the creation pane keeps longer
nuggets with a note too).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Sequence

from pooljudge.errors import InputError
from pooljudge.formats.nuggets import check_nugget_text

__all__ = ["DRAFT_SYSTEM", "DRAFT_TEMPLATE", "MAX_PASSAGE_CHARS", "PROMPT_SHA256",
           "InvalidDraft", "corrective_draft_message", "draft_messages", "parse_drafts"]

MAX_PASSAGE_CHARS = 4000  # a passage's text is cut there in the prompt
DRAFT_SYSTEM = ("You are NuggetizeLLM, an intelligent assistant that can create a list of atomic "
                "nuggets to best provide all the information required for the query, and label "
                "each nugget vital or okay.")
DRAFT_TEMPLATE = """\
Create the list of atomic nuggets of information (1-12 words), so they best provide the \
information required for the query. Leverage only the provided context. Make sure there is no \
redundant information. Ensure the nugget list has at most {max_nuggets} nuggets (can be less), \
keeping only the most vital ones. Order them in decreasing order of importance. Prefer nuggets \
that provide more interesting information. Label each nugget either vital or okay: vital \
nuggets represent concepts that must be present in a "good" answer; on the other hand, okay \
nuggets contribute worthwhile information about the target but are not essential.

Search Query: {query}
Description: {description}
Narrative: {narrative}
Context:
{context}
Search Query: {query}

Do not explain. Always answer in short nuggets (not questions). Answer with a JSON object and \
nothing else, in the form {{"nuggets": [{{"text": "...", "importance": "vital"}}, \
{{"text": "...", "importance": "okay"}}]}}.
Nugget List:"""
PROMPT_SHA256 = hashlib.sha256(f"{DRAFT_SYSTEM}\n{DRAFT_TEMPLATE}".encode()).hexdigest()
_FENCE = re.compile(r"^```[\w-]*\s*\n(.*?)\n?```$", re.DOTALL)


class InvalidDraft(ValueError):
    """A reply that is not a valid list of nuggets; the message says why."""


def draft_messages(*, title: str, description: str, narrative: str,
                   passages: Sequence[tuple[str, str, str]], max_nuggets: int) -> list[dict]:
    """The conversation asking for one topic's drafts; ``passages`` are (id, title, text), each
    given as ``[n] title — text`` with the text cut at :data:`MAX_PASSAGE_CHARS`."""
    context = "\n".join(
        f"[{n}] " + (f"{doc_title} — " if doc_title else "") + " ".join(text.split())[
            :MAX_PASSAGE_CHARS] for n, (_, doc_title, text) in enumerate(passages, start=1))
    prompt = DRAFT_TEMPLATE.format(max_nuggets=max_nuggets, query=title,
                                   description=description or "(none)",
                                   narrative=narrative or "(none)", context=context)
    return [{"role": "system", "content": DRAFT_SYSTEM}, {"role": "user", "content": prompt}]


def corrective_draft_message(problem: str, max_nuggets: int) -> dict:
    """The re-ask sent once after an invalid reply."""
    return {"role": "user", "content": (
        f"Your reply was not a valid nugget list ({problem}). Reply with 1 to {max_nuggets} "
        'distinct nuggets as {"nuggets": [{"text": "...", "importance": "vital" or "okay"}]}, '
        "and nothing else.")}


def parse_drafts(reply: str | None, max_nuggets: int) -> list[tuple[str, str]]:
    """The (text, importance) pairs of ``reply``, in its order (see the module docstring);
    InvalidDraft for anything else."""
    text = (reply or "").strip()
    fenced = _FENCE.match(text)
    if fenced:
        text = fenced.group(1).strip()
    try:
        data = json.loads(text)
    except (json.JSONDecodeError, RecursionError):
        raise InvalidDraft(f"not JSON: {text[:60]!r}") from None
    items = data.get("nuggets") if isinstance(data, dict) else data
    if not isinstance(items, list):
        raise InvalidDraft("no list of nuggets")
    if not items:
        raise InvalidDraft("no nuggets")
    if len(items) > max_nuggets:
        raise InvalidDraft(f"{len(items)} nuggets, at most {max_nuggets} were asked for")
    drafts: list[tuple[str, str]] = []
    for number, item in enumerate(items, start=1):
        drafts.append(_nugget(item, number))
    seen: set[str] = set()
    for number, (nugget, _) in enumerate(drafts, start=1):
        if nugget in seen:
            raise InvalidDraft(f"nugget {number} repeats {nugget!r}")
        seen.add(nugget)
    return drafts


def _nugget(item: object, number: int) -> tuple[str, str]:
    if not isinstance(item, dict):
        raise InvalidDraft(f"nugget {number} is not an object with text and importance")
    try:
        text = check_nugget_text(item.get("text"))
    except InputError as exc:
        raise InvalidDraft(f"nugget {number}: {exc.message}") from None
    importance = item.get("importance")
    importance = importance.strip().lower() if isinstance(importance, str) else importance
    if importance not in ("vital", "okay"):
        raise InvalidDraft(f"nugget {number}: importance must be vital or okay, not "
                           f"{json.dumps(item.get('importance'), ensure_ascii=False)[:40]}")
    return text, importance
