"""What ``pooljudge autojudge audit`` writes: the JSON record and the printed tables."""

from __future__ import annotations

import argparse
import json
import sys

from pooljudge import __version__
from pooljudge.cli.output import emit, print_frame, records

__all__ = ["audit_document", "print_audit"]


def audit_document(args: argparse.Namespace, data: dict, *, config: dict, kinds: list[str],
                   injection: str, relevant: int, probes: list, outcomes: list,
                   families: dict[str, str] | None) -> dict:
    """The audit record: settings, the judge's configuration, flip rates, circularity and
    every probe with its prompt's hash and the judge's answer."""
    from pooljudge.annotate.autojudge.audit_stats import circularity, family_runs, flip_rates
    from pooljudge.annotate.autojudge.client import Verdict
    from pooljudge.annotate.autojudge.prompt import SYSTEM_MESSAGE

    labels = [o.label if isinstance(o, Verdict) else None for o in outcomes]
    rates = flip_rates([p.kind for p in probes], labels, relevant=relevant, order=kinds,
                       confidence=args.confidence)
    document = {
        "pooljudge": __version__, "campaign": data["info"].name,
        "judge": {**config, "system_message": SYSTEM_MESSAGE, "temperature": 0},
        "relevant": relevant, "confidence": args.confidence, "probes_made": kinds,
        "stuffing": "the topic's title appended to the document after a blank line",
        "injection": injection, "flip_rates": records(rates), "circularity": None,
        "probes": [_probe_record(p, o, relevant) for p, o in zip(probes, outcomes,
                                                                strict=True)],
    }
    if families is not None:
        pairs = data["pairs"]
        runs = pairs["runs"].astype(str).str.split(",").explode()
        matching = family_runs([r for r in runs if r], families, args.judge_family)
        table = circularity(pairs, data["decisions"], data["judge"], matching=matching,
                            relevant=relevant, confidence=args.confidence)
        document["circularity"] = {"judge_family": args.judge_family, "runs": matching,
                                   "judge_labels": len(data["judge"]),
                                   "agreement": records(table)}
    return document


def _probe_record(probe, outcome, relevant: int) -> dict:
    from pooljudge.annotate.autojudge.client import Verdict

    record = {"kind": probe.kind, "topic": probe.topic, "doc": probe.doc,
              "prompt_sha256": probe.prompt.sha256,
              "template_sha256": probe.prompt.template_sha256, "attempts": outcome.attempts}
    if isinstance(outcome, Verdict):
        record.update(label=outcome.label, relevant=outcome.label >= relevant,
                      reply=outcome.reply, failure=None)
    else:
        record.update(label=None, relevant=None, reply=outcome.reply, failure=outcome.reason)
    return record


def print_audit(output: str, document: dict) -> None:
    """Write the record to ``output`` and print its tables (to standard error when the record
    goes to standard output)."""
    import pandas as pd

    emit(json.dumps(document, indent=1, ensure_ascii=False, allow_nan=False) + "\n", output)
    stream = sys.stderr if output == "-" else sys.stdout
    print("flip rates (share of probes the judge calls relevant):", file=stream)
    print_frame(pd.DataFrame(document["flip_rates"]), file=stream)
    found = document["circularity"]
    if found is not None:
        runs = ", ".join(found["runs"]) or "(none)"
        print(f"\nruns of the judge's family {found['judge_family']!r}: {runs}", file=stream)
        print("judge–people agreement:", file=stream)
        print_frame(pd.DataFrame(found["agreement"]), file=stream)
