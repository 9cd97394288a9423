"""Prompts of an automatic judge: a template with named fields, filled per pair, and hashed.

A template is Python ``str.format`` text with named fields only (``{title}``; ``{{`` and ``}}``
stand for literal braces). The fields (:data:`FIELDS`):

- ``topic_id``, ``title``, ``description``, ``narrative``: the topic;
- ``doc_id``, ``doc_title``, ``document``: the document (its text);
- ``guidelines``: the campaign's guidelines; ``scale``: the labels listed one per line as
  ``value: name — description``; ``values``: the label values, comma-separated.

An unknown field, a positional field (``{}``, ``{0}``), an attribute or index (``{title.x}``),
a conversion or format spec, or unbalanced braces is an InputError naming the template file,
raised before any request is sent. The hashes stored with each label are the SHA-256 hex digests
of the template text and of the filled prompt.
"""

from __future__ import annotations

import hashlib
import string
from dataclasses import dataclass
from pathlib import Path

from pooljudge.annotate.records import LabelScale, PairView

from pooljudge.errors import InputError
from pooljudge.formats.files import read_text

__all__ = ["DEFAULT_TEMPLATE", "FIELDS", "Prompt", "PromptTemplate", "corrective_message",
           "describe_scale"]

FIELDS = ("topic_id", "title", "description", "narrative", "doc_id", "doc_title", "document",
          "guidelines", "scale", "values")

DEFAULT_TEMPLATE = """\
You are a relevance assessor for an information retrieval test collection. Judge how relevant \
the document is to the topic, following the topic's description and narrative and the \
guidelines.

## Topic {topic_id}: {title}
Description: {description}
Narrative: {narrative}

## Guidelines
{guidelines}

## Labels
{scale}

## Document {doc_id}: {doc_title}
{document}

## Your answer
Answer with exactly one label value ({values}) as a JSON object, for example \
{{"label": <value>, "reason": "<one short sentence>"}}, and nothing else.
"""

SYSTEM_MESSAGE = "You judge the relevance of documents to topics. You answer with one label."


def describe_scale(scale: LabelScale) -> str:
    """The labels one per line: ``value: name — description`` (no dash without description)."""
    return "\n".join(f"{x.value}: {x.name}" + (f" — {x.description}" if x.description else "")
                     for x in scale.labels)


def corrective_message(scale: LabelScale) -> str:
    """The re-ask sent once after a reply without a valid label."""
    values = ", ".join(str(v) for v in scale.values)
    return (f"Your reply did not contain a valid label. Reply with exactly one of these label "
            f"values: {values}, as {{\"label\": <value>}}, and nothing else.")


@dataclass(frozen=True)
class Prompt:
    """A filled prompt and its hashes."""

    text: str
    template_sha256: str
    sha256: str


@dataclass(frozen=True)
class PromptTemplate:
    """A checked template (see the module docstring for the rules)."""

    text: str
    sha256: str

    @classmethod
    def default(cls) -> PromptTemplate:
        """pooljudge's own template (:data:`DEFAULT_TEMPLATE`)."""
        return cls.parse(DEFAULT_TEMPLATE, source="default template")

    @classmethod
    def from_file(cls, path: str | Path) -> PromptTemplate:
        """Read and check a UTF-8 template file; InputError naming the file."""
        text = read_text(path, "prompt template")
        return cls.parse(text, source=str(path))

    @classmethod
    def parse(cls, text: str, *, source: str = "template") -> PromptTemplate:
        """Check ``text``; InputError ``source: …`` for a field it may not hold."""
        if not text.strip():
            raise InputError("the prompt template is empty", path=source)
        try:
            parts = list(string.Formatter().parse(text))
        except ValueError as exc:
            raise InputError(f"bad prompt template: {exc}", path=source) from None
        for _, field, spec, conversion in parts:
            if field is None:
                continue
            if field not in FIELDS:
                shown = f"{{{field}}}" if field else "{}"
                raise InputError(f"unknown field {shown} in the prompt template; fields: "
                                 f"{', '.join(FIELDS)}", path=source)
            if spec or conversion:
                raise InputError(f"field {{{field}}} may not have a conversion or format spec",
                                 path=source)
        return cls(text, hashlib.sha256(text.encode("utf-8")).hexdigest())

    def fill(self, view: PairView, *, scale: LabelScale, guidelines: str) -> Prompt:
        """The prompt of one pair."""
        text = self.text.format(
            topic_id=view.topic_id, title=view.topic_title, description=view.topic_description,
            narrative=view.topic_narrative, doc_id=view.doc_id, doc_title=view.doc_title,
            document=view.doc_text, guidelines=guidelines.strip() or "(none)",
            scale=describe_scale(scale), values=", ".join(str(v) for v in scale.values))
        return Prompt(text, self.sha256, hashlib.sha256(text.encode("utf-8")).hexdigest())
