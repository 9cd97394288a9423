"""``pooljudge export --undecided``: the pairs a majority tie left to the tie rule, and the
summary of which rule settled how many pairs (both formats, TREC and Hugging Face).

``tie-rule`` (the default) settles them by ``--ties``; ``skip`` leaves them out of the qrels
(as ``--ties skip``); ``refuse`` writes nothing and exits 2 when there is one. The counts come
from :func:`pooljudge.annotate.consensus.settle`, as on the app's Export page."""

from __future__ import annotations

import argparse
from dataclasses import replace
from typing import TYPE_CHECKING

from pooljudge.errors import InputError, printable

if TYPE_CHECKING:
    from pooljudge.annotate.consensus_policies import Policy
    from pooljudge.annotate.settling import Settlement

__all__ = ["UNDECIDED_CHOICES", "add_undecided_option", "check_undecided", "settled_lines",
           "with_undecided"]

UNDECIDED_CHOICES = ("tie-rule", "skip", "refuse")
SHOWN = 20  # undecided pairs listed on standard error; the provenance has them all


def add_undecided_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--undecided", choices=UNDECIDED_CHOICES, default="tie-rule",
        help="pairs whose most frequent labels tie (with --policy adjudicated: and that no "
             "adjudicator decided): tie-rule (default) settles them by --ties; skip leaves them "
             "out of the qrels; refuse writes nothing and exits with status 2 if there is one. "
             "The counts of pairs per rule are printed on standard error in every case")


def with_undecided(policy: Policy, undecided: str) -> Policy:
    """``policy`` with ``--undecided skip`` applied (its ties left out)."""
    return replace(policy, ties="skip") if undecided == "skip" else policy


def check_undecided(settlement: Settlement, undecided: str, campaign: str) -> None:
    """InputError for ``--undecided refuse`` when a tie rule settled a pair."""
    count = len(settlement.undecided)
    if undecided == "refuse" and count:
        raise InputError(f"campaign {campaign}: {count} undecided pairs (their most frequent "
                         "labels tie): adjudicate them (pooljudge adjudication list), or "
                         "choose --undecided tie-rule or skip")


def settled_lines(settlement: Settlement) -> list[str]:
    """The summary's lines after the first: the pairs per rule, then the undecided pairs
    (topic, document, votes; the first :data:`SHOWN`), control characters escaped."""
    from pooljudge.annotate.settling import summary_text

    lines = [f"settled by rule: {summary_text(settlement.rules)}"]
    undecided = settlement.undecided
    if len(undecided):
        lines.append(f"{len(undecided)} undecided pairs (their most frequent labels tie; "
                     "settled as the majority tie above):")
        shown = undecided.head(SHOWN)
        lines += [printable(f"  topic {t}  document {d}  votes {v}") for t, d, v
                  in zip(shown["topic"], shown["doc"], shown["votes"], strict=True)]
        if len(undecided) > SHOWN:
            lines.append(f"  … and {len(undecided) - SHOWN} more (the provenance's rule column "
                         "names them)")
    return lines
