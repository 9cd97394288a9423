"""Consensus policies as declared: names, help texts, defaults and :class:`Policy` (light).

This module imports nothing heavy, so command-line help and option checks read it without
loading the implementation, :mod:`pooljudge.annotate.consensus`, whose deciders are keyed by the
same
names. A policy decides one qrels label per judged pair from its votes; ``ties`` settles a
majority tie; ``binarize=T`` then maps a decided label to 1 when it is >= T, else 0. The model
policies (``ds``, ``ds1``, ``glad``, ``mace``) may be seeded with ``gold``: ``adjudicated`` (the
latest adjudications) or ``annotator:NAME`` (that annotator's labels, not counted as votes).
"""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType

from pooljudge.errors import UsageError

__all__ = [
    "DEFAULT_POLICY",
    "DEFAULT_TIES",
    "GOLD_HELP",
    "MODEL_POLICIES",
    "PLAIN_POLICIES",
    "POLICIES",
    "POLICY_HELP",
    "POLICY_NAMES",
    "TIES",
    "TIES_HELP",
    "Policy",
]

# Policy as written on the command line -> help; ``annotator:NAME`` takes an annotator's name.
POLICY_HELP = MappingProxyType({
    "majority": "the most frequent label (a tie is settled by --ties)",
    "adjudicated": "the latest adjudication, else the majority",
    "mean": "the mean grade rounded half up, floor(mean + 1/2)",
    "max": "the highest label given",
    "min": "the lowest label given",
    "annotator:NAME": "that annotator's label (pairs they did not judge are left out)",
    "human-else-automatic:NAME": "people's majority where a person judged the pair (ties by "
                                 "--ties), else automatic judge NAME's label; the provenance's "
                                 "source column says which",
    "ds": "Dawid-Skene (a confusion matrix per annotator, automatic judges included): the label "
          "of highest posterior, a tie to the lower label",
    "ds1": "one-coin Dawid-Skene (one accuracy per annotator): as ds",
    "glad": "GLAD (annotator ability and pair difficulty): as ds",
    "mace": "MACE (each annotator knows or guesses): as ds",
})
# The policies decided by a consensus model (pooljudge.annotate.crowd), which --gold may seed.
MODEL_POLICIES: tuple[str, ...] = ("ds", "ds1", "glad", "mace")
GOLD_HELP = MappingProxyType({
    "adjudicated": "the latest adjudication of each adjudicated pair",
    "annotator:NAME": "that annotator's labels (their labels are then not votes)",
})
# Majority ties -> help.
TIES_HELP = MappingProxyType({
    "lower": "take the lower of the tied labels",
    "higher": "take the higher of the tied labels",
    "skip": "leave the pair out of the qrels (the provenance says so)",
})
DEFAULT_POLICY = "majority"
DEFAULT_TIES = "lower"
# Views of the tables above: the written policies, the tie rules, and Policy.name -> whether
# the policy takes an argument after a colon.
POLICIES: tuple[str, ...] = tuple(POLICY_HELP)
TIES: tuple[str, ...] = tuple(TIES_HELP)
_TAKES_ARGUMENT = {name: bool(arg) for name, _, arg in (p.partition(":") for p in POLICIES)}
POLICY_NAMES: tuple[str, ...] = tuple(_TAKES_ARGUMENT)
# The policies that need no argument (what a page can offer in a plain list).
PLAIN_POLICIES: tuple[str, ...] = tuple(p for p in POLICIES if ":" not in p)


@dataclass(frozen=True)
class Policy:
    """How one qrels label is decided from a pair's votes (see
    :mod:`pooljudge.annotate.consensus`)."""

    name: str = DEFAULT_POLICY
    annotator: str | None = None
    ties: str = DEFAULT_TIES
    binarize: int | None = None
    gold: str | None = None  # a model policy's seed: "adjudicated" or "annotator:NAME"

    @classmethod
    def parse(cls, text: str, *, ties: str = DEFAULT_TIES,
              binarize: int | None = None, gold: str | None = None) -> Policy:
        """One of POLICIES (``annotator:NAME`` with a name); raises UsageError naming them, or
        for ``gold`` other than GOLD_HELP's forms or beside a policy that is not a model's."""
        if ties not in TIES:
            raise UsageError(f"--ties must be one of {', '.join(TIES)}, not {ties!r}")
        if gold is not None:
            kind, _, who = gold.partition(":")
            if not (gold == "adjudicated" or (kind == "annotator" and who)):
                raise UsageError(f"--gold must be adjudicated or annotator:NAME, not {gold!r}")
            if text not in MODEL_POLICIES:
                raise UsageError(f"--gold seeds a model policy ({', '.join(MODEL_POLICIES)}), "
                                 f"not {text!r}")
        name, _, annotator = text.partition(":")
        if name in _TAKES_ARGUMENT and _TAKES_ARGUMENT[name] == bool(annotator):
            return cls(name, annotator or None, ties, binarize, gold)
        raise UsageError(f"unknown policy {text!r}; choose one of {', '.join(POLICIES)}")

    def __str__(self) -> str:
        text = self.name if self.annotator is None else f"{self.name}:{self.annotator}"
        return text if self.gold is None else f"{text} (gold: {self.gold})"
