"""Plain records returned by the store: frozen dataclasses, never table rows."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from pooljudge.errors import InputError

__all__ = [
    "ANNOTATOR_ROLES",
    "ASSIGN_MODES",
    "DEFAULT_MIN_DWELL_MS",
    "GRANTED_ROLES",
    "GUARANTEE_RULES",
    "JUDGMENT_KINDS",
    "JUDGMENT_SOURCES",
    "JUDGMENT_STATUSES",
    "MAX_LABELS",
    "MAX_MIN_DWELL_MS",
    "NUGGET_ACTIONS",
    "NUGGET_AUTHOR_KINDS",
    "NUGGET_IMPORTANCES",
    "NUGGET_LABELS",
    "NUGGET_STATES",
    "QUANT_RULES",
    "REVIEW_PHASES",
    "SAMPLE_FIRST_RULES",
    "STOP_RULES",
    "AnnotatorInfo",
    "CampaignInfo",
    "JudgmentRecord",
    "Label",
    "LabelScale",
    "NuggetRecord",
    "PairView",
    "PassageContext",
]

# The value sets, written once: the store's CHECK constraints are built from them
# (pooljudge.annotate.store.models.one_of), so a new value needs a migration too.
ANNOTATOR_ROLES = ("annotator", "adjudicator", "admin")
GRANTED_ROLES = ("adjudicator", "admin")  # held in a campaign not one's own (campaign_role)
ASSIGN_MODES = ("pair", "topic")
JUDGMENT_KINDS = ("judgment", "adjudication")
JUDGMENT_STATUSES = ("label", "withdrawn", "cannot_judge")
JUDGMENT_SOURCES = ("human", "import", "automatic")
# A review campaign's stopping rules, and its topics' phases (rank: the queue is the active
# learner's ranking; sample: a uniform random sample; certified: stopped, queue closed).
STOP_RULES = ("hypergeometric", "target", "qbcb", "knee", "quant", "quantci")
GUARANTEE_RULES = frozenset({"hypergeometric", "target", "qbcb"})  # the others: heuristics
SAMPLE_FIRST_RULES = frozenset({"target", "qbcb"})  # they draw their random sample first
QUANT_RULES = frozenset({"quant", "quantci"})  # they read the model's probabilities
REVIEW_PHASES = ("rank", "sample", "certified")
# Nuggets (revision 0013): a nugget's importance, state and author kind, what its history
# records, and the three-level assignment scale of an answer against a nugget (nuggetizer's
# names, lowest first: the position is the ordinal code agreement uses).
NUGGET_IMPORTANCES = ("vital", "okay")
NUGGET_STATES = ("active", "merged", "deleted")
NUGGET_AUTHOR_KINDS = ("person", "model")
NUGGET_ACTIONS = ("created", "edited", "merged", "deleted")
NUGGET_LABELS = ("not_support", "partial_support", "support")
# A scale has at most this many labels: an annotator picks one by a key press or a button.
MAX_LABELS = 100


# Names of the common graded scales; any other range gets "Grade g".
_GRADE_NAMES = {
    (0, 1): ("Not relevant", "Relevant"),
    (0, 2): ("Not relevant", "Relevant", "Highly relevant"),
    (0, 3): ("Not relevant", "Related", "Highly relevant", "Perfectly relevant"),
}


@dataclass(frozen=True)
class Label:
    """One label of a scale: its integer value (the qrels label), a name and a description."""

    value: int
    name: str
    description: str = ""


@dataclass(frozen=True)
class LabelScale:
    """An ordered set of 1 to :data:`MAX_LABELS` labels with distinct integer values
    (ascending); InputError for no label, too many, or a value given twice."""

    labels: tuple[Label, ...]

    def __post_init__(self) -> None:
        values = [label.value for label in self.labels]
        _check_values(values)
        if values != sorted(values):
            object.__setattr__(self, "labels", tuple(sorted(self.labels, key=lambda x: x.value)))

    @property
    def values(self) -> tuple[int, ...]:
        """The label values, ascending."""
        return tuple(label.value for label in self.labels)

    @classmethod
    def binary(cls) -> LabelScale:
        """0 = not relevant, 1 = relevant."""
        return cls.range(0, 1)

    @classmethod
    def range(cls, lo: int, hi: int) -> LabelScale:
        """Grades ``lo..hi`` inclusive; common TREC scales get their usual names. Raises
        InputError for ``hi <= lo`` or more than :data:`MAX_LABELS` grades (before building)."""
        if hi <= lo:
            raise InputError(f"a graded scale needs lo < hi, got {lo}-{hi}")
        _check_size(hi - lo + 1)
        names = _GRADE_NAMES.get((lo, hi)) or tuple(f"Grade {g}" for g in range(lo, hi + 1))
        return cls(tuple(Label(v, n) for v, n in zip(range(lo, hi + 1), names, strict=True)))

    @classmethod
    def from_json(cls, path: str | Path) -> LabelScale:
        """Read ``[{"value": 0, "name": "...", "description": "..."}, ...]`` (or that list
        under a ``"labels"`` key). Raises InputError naming the file, also for a key given
        twice in one object."""
        from pooljudge.formats.files import read_json

        return cls.from_data(read_json(path, "label scale"), source=str(path))

    @classmethod
    def from_data(cls, data: object, *, source: str = "scale") -> LabelScale:
        """Build a scale from decoded JSON (see :meth:`from_json`). Each label is an object
        with an integer ``value`` and optional text ``name`` and ``description``; any other
        key, or another type, is refused rather than ignored or converted."""
        if isinstance(data, dict) and set(data) != {"labels"}:
            raise InputError(f"expected only the key 'labels', got {sorted(data)}", path=source)
        items = data.get("labels") if isinstance(data, dict) else data
        if not isinstance(items, list) or not items:
            raise InputError("expected a non-empty list of labels", path=source)
        _check_size(len(items), source)
        labels = tuple(_label(item, source) for item in items)
        _check_values([label.value for label in labels], source)
        return cls(labels)

    def to_json(self) -> str:
        """The scale as the JSON list :meth:`from_data` reads."""
        return json.dumps([{"value": x.value, "name": x.name, "description": x.description}
                           for x in self.labels], ensure_ascii=False)


def _label(item: object, source: str) -> Label:
    """One label of a JSON scale (see :meth:`LabelScale.from_data`)."""
    if not isinstance(item, dict) or not isinstance(item.get("value"), int) \
            or isinstance(item.get("value"), bool):
        raise InputError(f"each label needs an integer 'value': {item!r}", path=source)
    unknown = sorted(set(item) - {"value", "name", "description"})
    if unknown:
        raise InputError(f"label {item['value']}: unknown key(s) {', '.join(unknown)}",
                         path=source)
    texts = {"name": item.get("name", str(item["value"])),
             "description": item.get("description", "")}
    wrong = [key for key, text in texts.items() if not isinstance(text, str)]
    if wrong:
        raise InputError(f"label {item['value']}: {wrong[0]} must be text", path=source)
    return Label(item["value"], texts["name"], texts["description"])


def _check_values(values: list[int], source: str | None = None) -> None:
    """InputError (naming ``source``) for no value, more than :data:`MAX_LABELS`, or a repeat."""
    if not values:
        raise InputError("a label scale needs at least one label", path=source)
    _check_size(len(values), source)
    if len(set(values)) != len(values):
        raise InputError(f"label values repeat: {values}", path=source)


def _check_size(count: int, source: str | None = None) -> None:
    if count > MAX_LABELS:
        raise InputError(f"a scale has at most {MAX_LABELS} labels, got {count}", path=source)


@dataclass(frozen=True)
class CampaignInfo:
    """A campaign's settings. ``cannot_judge``: annotators may answer "I can't judge this"
    (with a reason); ``rationale_labels``: the labels whose choice needs a rationale;
    ``highlight_narrative``: the narrative's words are highlighted too; ``min_dwell_ms``: a
    label key pressed sooner after a pair appeared is ignored (a quiet hint says so)."""

    id: int
    name: str
    scale: LabelScale
    overlap: int
    order: str
    assign_mode: str
    guidelines: str
    show_others_labels: bool
    cannot_judge: bool = False
    rationale_labels: tuple[int, ...] = ()
    highlight_narrative: bool = False
    min_dwell_ms: int = 300  # DEFAULT_MIN_DWELL_MS


# The judging pane's dwell: a label key pressed sooner after its pair appeared does nothing.
DEFAULT_MIN_DWELL_MS = 300
MAX_MIN_DWELL_MS = 10_000


@dataclass(frozen=True)
class AnnotatorInfo:
    """An annotator of one campaign; ``role`` is one of :data:`ANNOTATOR_ROLES`."""

    id: int
    campaign_id: int
    campaign_name: str
    name: str
    role: str


@dataclass(frozen=True)
class PairView:
    """What an annotator sees: the topic and the document, never runs, ranks or others' labels.

    ``position`` is the rank of this pair in the annotator's own sequence (1 = first shown).
    """

    pair_id: int
    topic_id: str
    topic_title: str
    topic_description: str
    topic_narrative: str
    doc_id: str
    doc_title: str
    doc_text: str
    position: int | None
    passage: PassageContext | None = None


@dataclass(frozen=True)
class PassageContext:
    """The document a judged passage comes from (a campaign of passages, ``init --units``).

    The pair's ``doc_id`` is the passage's (chunk's) id and its ``doc_text`` the passage's own
    text, ``text[start:end]`` of its document ``doc_id`` here (offsets in characters, that is
    code points, ``0 <= start <= end <= len(text)``): the annotator reads the whole ``text``
    with the passage marked, and judges the passage.
    """

    doc_id: str
    title: str
    text: str
    start: int
    end: int


@dataclass(frozen=True)
class JudgmentRecord:
    """One stored judgment row (append-only; ``version`` counts from 1).

    ``status`` is ``label``, ``withdrawn`` (an undo) or ``cannot_judge``; ``label`` is None
    exactly when the status is not ``label``. ``rationale`` is a can't-judge answer's reason or
    the rationale given with a label."""

    id: int
    pair_id: int
    annotator_id: int
    version: int
    label: int | None
    kind: str
    source: str
    created_at: datetime
    seconds: float | None
    position: int | None
    comment: str | None
    status: str = "label"
    rationale: str | None = None


@dataclass(frozen=True)
class NuggetRecord:
    """One nugget of a topic's bank (revision 0013).

    ``key`` is unique in the campaign; ``importance`` one of :data:`NUGGET_IMPORTANCES`;
    ``sources`` the ids of the passages it was taken from; ``author_kind`` ``person`` (``author``
    is their name) or ``model`` (``author`` is the model, ``prompt_sha256`` the SHA-256 of its
    prompt, or None when unknown); ``state`` ``active``, ``merged`` (into ``merged_into``, a
    key) or ``deleted``."""

    key: str
    topic: str
    text: str
    importance: str
    sources: tuple[str, ...]
    author_kind: str
    author: str
    prompt_sha256: str | None
    state: str
    merged_into: str | None
    position: int
