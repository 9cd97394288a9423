"""Plain records returned by the store: frozen dataclasses, never table rows."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from pooling.strategies import StrategySpec, is_adaptive, parse_strategy
from pooljudge.errors import InputError

__all__ = [
    "ADAPTIVE_ORDERS",
    "ANNOTATOR_ROLES",
    "ASSIGN_MODES",
    "JUDGING_ORDERS",
    "JUDGMENT_KINDS",
    "JUDGMENT_SOURCES",
    "AnnotatorInfo",
    "CampaignInfo",
    "JudgmentRecord",
    "Label",
    "LabelScale",
    "PairView",
    "adaptive_spec",
    "canonical_order",
]

ANNOTATOR_ROLES = ("annotator", "adjudicator", "admin")
ASSIGN_MODES = ("pair", "topic")
JUDGMENT_KINDS = ("judgment", "adjudication")
JUDGMENT_SOURCES = ("human", "import", "automatic")
JUDGING_ORDERS = {
    "pool": "the pool file's order within each topic; topics interleaved so each advances in "
            "proportion to its size (pair i of a topic of n pairs at (i / n, topic))",
    "topic": "topic by topic, the pool file's order within each topic",
    "random": "a seeded random permutation of all pairs",
}
# Adaptive orders: a policy of :mod:`pooling` asked at claim time (see annotate.adaptive_queue);
# they need each run's ranking of the pool. Parameters follow pooling's strategy grammar, e.g.
# ``maxmean(alpha=2,beta=1)``; the seed is the campaign's.
ADAPTIVE_ORDERS = {
    "mtf": "Move-To-Front: stay on a run while it finds relevant documents (Cormack et al. 1998)",
    "maxmean": "bandit: the run of highest posterior mean of relevance (Losada et al. 2016)",
    "thompson": "bandit: Thompson sampling over the runs, Beta(1, 1) prior (Losada et al. 2017)",
}



def adaptive_spec(order: str) -> StrategySpec | None:
    """The pooling strategy of an adaptive order (``mtf``, ``maxmean(alpha=2)``...), None for a
    static order or any other text."""
    if order in JUDGING_ORDERS:
        return None
    try:
        spec = parse_strategy(order)
    except ValueError:
        return None
    return spec if is_adaptive(spec) else None


def canonical_order(order: str) -> str:
    """``order`` as stored: a static order's name, or an adaptive strategy in pooling's canonical
    form (aliases resolved, parameters sorted). Raises InputError naming the choices."""
    if order in JUDGING_ORDERS:
        return order
    try:
        spec = parse_strategy(order)
    except ValueError as exc:
        spec = None
        reason = "" if str(exc).startswith("unknown strategy") else f" ({exc})"
    else:
        reason = "" if is_adaptive(spec) else " (a pooling order: pool with it, then use 'pool')"
    if spec is None or not is_adaptive(spec):
        choices = ", ".join([*JUDGING_ORDERS, *ADAPTIVE_ORDERS])
        raise InputError(f"unknown judging order {order!r}{reason}; choose from {choices}")
    return str(spec)


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
    """An ordered set of labels with distinct integer values (ascending)."""

    labels: tuple[Label, ...]

    def __post_init__(self) -> None:
        values = [label.value for label in self.labels]
        if not values:
            raise ValueError("a label scale needs at least one label")
        if len(set(values)) != len(values):
            raise ValueError(f"label values repeat: {values}")
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
        """Grades ``lo..hi`` inclusive; common TREC scales get their usual names."""
        if hi <= lo:
            raise ValueError(f"a graded scale needs lo < hi, got {lo}-{hi}")
        names = _GRADE_NAMES.get((lo, hi)) or tuple(f"Grade {g}" for g in range(lo, hi + 1))
        return cls(tuple(Label(v, n) for v, n in zip(range(lo, hi + 1), names, strict=True)))

    @classmethod
    def from_json(cls, path: str | Path) -> LabelScale:
        """Read ``[{"value": 0, "name": "...", "description": "..."}, ...]`` (or that list
        under a ``"labels"`` key). Raises InputError naming the file."""
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise InputError("no such file", path=path) from None
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            line = getattr(exc, "lineno", None)
            raise InputError(f"not a JSON label scale: {exc}", path=path, line=line) from None
        return cls.from_data(data, source=str(path))

    @classmethod
    def from_data(cls, data: object, *, source: str = "scale") -> LabelScale:
        """Build a scale from decoded JSON (see :meth:`from_json`)."""
        items = data.get("labels") if isinstance(data, dict) else data
        if not isinstance(items, list) or not items:
            raise InputError("expected a non-empty list of labels", path=source)
        labels = []
        for item in items:
            if not isinstance(item, dict) or not isinstance(item.get("value"), int) \
                    or isinstance(item.get("value"), bool):
                raise InputError(f"each label needs an integer 'value': {item!r}", path=source)
            name = str(item.get("name", item["value"]))
            labels.append(Label(item["value"], name, str(item.get("description", ""))))
        try:
            return cls(tuple(labels))
        except ValueError as exc:
            raise InputError(str(exc), path=source) from None

    def to_json(self) -> str:
        """The scale as the JSON list :meth:`from_data` reads."""
        return json.dumps([{"value": x.value, "name": x.name, "description": x.description}
                           for x in self.labels], ensure_ascii=False)


@dataclass(frozen=True)
class CampaignInfo:
    """A campaign's settings."""

    id: int
    name: str
    scale: LabelScale
    overlap: int
    order: str
    assign_mode: str
    guidelines: str
    show_others_labels: bool


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


@dataclass(frozen=True)
class JudgmentRecord:
    """One stored judgment row (append-only; ``version`` counts from 1)."""

    id: int
    pair_id: int
    annotator_id: int
    version: int
    label: int
    kind: str
    source: str
    created_at: datetime
    seconds: float | None
    position: int | None
    comment: str | None
