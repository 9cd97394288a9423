"""Plain values of review campaigns: settings, a topic's review state, a certificate (the
value sets, rules and phases, are :mod:`pooljudge.annotate.records`').

Exchanged by the store (:mod:`pooljudge.annotate.store.review`), the review service
(:mod:`pooljudge.annotate.review`), the app and the command line. Light: no numpy, no pandas.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

__all__ = ["ReviewCertificate", "ReviewSettings", "ReviewTopicState"]


@dataclass(frozen=True)
class ReviewSettings:
    """A review campaign's stopping rule, target recall, alpha (confidence 1 − alpha), seed."""

    campaign_id: int
    rule: str
    target: float
    alpha: float
    seed: int


@dataclass(frozen=True)
class ReviewTopicState:
    """One topic's review: its phase, the labelled count its stored ranking was trained on
    (``ranked_count``), the count at which the next retrain is due (``due_count``), BMI's next
    batch size and the documents of the collection (``n_docs``)."""

    topic_id: int
    topic: str
    phase: str
    ranked_count: int
    due_count: int
    batch: int
    n_docs: int


@dataclass(frozen=True)
class ReviewCertificate:
    """Why a topic's review stopped.

    ``reviewed``: documents with a label; ``relevant_found``: those judged relevant;
    ``sample_size``/``sample_relevant``: the uniform random sample judged (None: the rule drew
    none); ``remaining`` with ``remaining_low``–``remaining_high``: the estimate of relevant
    documents not found, with its 1 − alpha interval (None for a heuristic); ``p_value`` of the
    hypergeometric test (None for the other rules); ``recall_estimate``: Quant's estimate of
    recall (QuantCI's lower bound) at the stop (None for the other rules); ``exhausted``:
    every document was judged;
    ``judgments``: the ids of the latest labels it rests on; ``stale`` (when read back): one
    of them was since withdrawn or replaced.
    """

    topic: str
    rule: str
    guarantee: bool
    target: float
    alpha: float
    reviewed: int
    relevant_found: int
    n_docs: int
    sample_size: int | None = None
    sample_relevant: int | None = None
    remaining: float | None = None
    remaining_low: int | None = None
    remaining_high: int | None = None
    p_value: float | None = None
    exhausted: bool = False
    judgments: tuple[int, ...] = ()
    recall_estimate: float | None = None
    stale: bool = False

    @property
    def confidence(self) -> float:
        """1 − alpha."""
        return 1.0 - self.alpha

    def as_dict(self) -> dict:
        """JSON-ready: every field, ``confidence``, and ``judgment_count``."""
        data = asdict(self)
        data["judgments"] = list(self.judgments)
        data["judgment_count"] = len(self.judgments)
        data["confidence"] = self.confidence
        return data
