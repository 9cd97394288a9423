"""Reading a label from a model's reply.

Rules, in order (the reply is first stripped of surrounding white space and of one enclosing
Markdown code fence, e.g. ```` ```json … ``` ````):

1. The whole reply is JSON: an object with a ``"label"`` key (an integer, or a string holding
   one, e.g. ``"2"``) and an optional ``"reason"`` (text); or a bare JSON integer.
   Any other JSON (a list, a float such as ``2.5``, ``true``, an object without ``label``) is
   no label.
2. Otherwise the first non-blank line starts with the label, optionally after ``label:`` or
   ``label =`` (any case), and the integer is not the start of a decimal number (``2.5``) or
   of a word (``2nd``). The rest of the reply (after that integer) is the reason.
3. The label must be one of the scale's values; anything else (``7`` on a 0–2 scale) is no
   label. Nothing else is guessed: a label in the middle of a sentence is not read.

A reason is kept only as text, stripped, at most :data:`MAX_REASON` characters.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from pooljudge.annotate.records import LabelScale

__all__ = ["MAX_REASON", "InvalidReply", "ParsedLabel", "parse_label"]

MAX_REASON = 2000
_FENCE = re.compile(r"^```[\w-]*\s*\n(.*?)\n?```$", re.DOTALL)
_FIRST_LINE = re.compile(r"^\s*(?:label\s*[:=]\s*)?([+-]?\d{1,9})(?![\d.,]\d|\w)(.*)$",
                         re.IGNORECASE | re.DOTALL)
_INTEGER_TEXT = re.compile(r"^\s*[+-]?\d{1,9}\s*$")


class InvalidReply(ValueError):
    """The reply holds no label of the scale; the message says why."""


@dataclass(frozen=True)
class ParsedLabel:
    """A label of the scale, and the model's reason when it gave one."""

    label: int
    reason: str | None = None


def parse_label(reply: str | None, scale: LabelScale) -> ParsedLabel:
    """The label in ``reply`` (see the module docstring); InvalidReply when there is none."""
    text = (reply or "").strip()
    fenced = _FENCE.match(text)
    if fenced:
        text = fenced.group(1).strip()
    if not text:
        raise InvalidReply("empty reply")
    reason: object  # the JSON's "reason" may be any value; _reason makes it text or None
    try:
        data = json.loads(text)
    except (json.JSONDecodeError, RecursionError):
        label, reason = _first_line(text)
    else:
        label, reason = _from_json(data)
    if label not in scale.values:
        values = ", ".join(str(v) for v in scale.values)
        raise InvalidReply(f"label {label} is not on the scale ({values})")
    return ParsedLabel(label, _reason(reason))


def _from_json(data: object) -> tuple[int, object]:
    if isinstance(data, dict):
        if "label" not in data:
            raise InvalidReply("JSON object without a 'label'")
        return _integer(data["label"]), data.get("reason")
    return _integer(data), None


def _integer(value: object) -> int:
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str) and _INTEGER_TEXT.match(value):
        return int(value)
    raise InvalidReply(f"the label is not an integer: {json.dumps(value)[:80]}")


def _first_line(text: str) -> tuple[int, str]:
    match = _FIRST_LINE.match(text)
    if match is None:
        first = text.splitlines()[0][:80]
        raise InvalidReply(f"no label at the start of the reply: {first!r}")
    return int(match.group(1)), match.group(2)


def _reason(value: object) -> str | None:
    if not isinstance(value, str):
        return None
    text = value.strip().lstrip("-–—:.,; ").strip()
    return text[:MAX_REASON] or None
