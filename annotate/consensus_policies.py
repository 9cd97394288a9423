"""Consensus policies as declared: names, help texts, defaults and :class:`Policy` (light).

This module imports nothing heavy, so command-line help and option checks read it without
loading the implementation, :mod:`pooljudge.annotate.consensus`, whose deciders are keyed by the
same
names. A policy decides one qrels label per judged pair from its votes; ``ties`` settles a
majority tie; ``binarize=T`` then maps a decided label to 1 when it is >= T, else 0.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType

from pooljudge.errors import UsageError

__all__ = [
    "DEFAULT_POLICY",
    "DEFAULT_TIES",
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

    @classmethod
    def parse(cls, text: str, *, ties: str = DEFAULT_TIES,
              binarize: int | None = None) -> Policy:
        """One of POLICIES (``annotator:NAME`` with a name); raises UsageError naming them."""
        if ties not in TIES:
            raise UsageError(f"--ties must be one of {', '.join(TIES)}, not {ties!r}")
        name, _, annotator = text.partition(":")
        if name in _TAKES_ARGUMENT and _TAKES_ARGUMENT[name] == bool(annotator):
            return cls(name, annotator or None, ties, binarize)
        raise UsageError(f"unknown policy {text!r}; choose one of {', '.join(POLICIES)}")

    def __str__(self) -> str:
        return self.name if self.annotator is None else f"{self.name}:{self.annotator}"
