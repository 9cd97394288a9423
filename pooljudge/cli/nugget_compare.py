"""``pooljudge nuggets compare``: agreement between two nugget banks of the same topics.

The two banks come from two files (``--banks A B``), from two authors' nuggets in one campaign
(``--campaign C --authors A B``: a person and a model, or two people), or from two campaigns'
banks in one database (``--campaigns C D``, the same topic ids). Only active nuggets count.
The figures are :func:`pooljudge.metrics.nugget_bank_agreement.bank_agreement`'s.
"""

from __future__ import annotations

import argparse

from pooljudge.cli.inputs import open_database
from pooljudge.cli.options import add_db_option, unit_share
from pooljudge.errors import InputError, UsageError

__all__ = ["register_compare"]

BANK_FORMATS = ("nuggetizer", "nuggetbanks")


def register_compare(actions) -> None:
    """Add the ``compare`` action to ``pooljudge nuggets``' actions."""
    comparing = actions.add_parser(
        "compare", help="agreement between two banks: linked nuggets, recall, vital/okay",
        description="Link the nuggets of bank A and bank B that say the same thing (token-set "
                    "Jaccard >= --threshold, one-to-one, largest total similarity), then "
                    "report per topic and overall the banks' sizes, the links, the share of "
                    "each bank linked (the other's recall) and vital/okay agreement (Cohen's "
                    "kappa) on the links.")
    sides = comparing.add_mutually_exclusive_group(required=True)
    sides.add_argument("--banks", nargs=2, metavar=("A", "B"),
                       help="two bank files (no database)")
    sides.add_argument("--authors", nargs=2, metavar=("A", "B"),
                       help="two authors' nuggets in --campaign (a person's or a model's name)")
    sides.add_argument("--campaigns", nargs=2, metavar=("A", "B"),
                       help="two campaigns' banks in the database")
    comparing.add_argument("--campaign", metavar="CAMPAIGN", help="the campaign of --authors")
    comparing.add_argument("--bank-format", choices=BANK_FORMATS, default="nuggetizer",
                           help="--banks: nuggetizer (default; also autojudge-base's "
                                "NuggetizerNuggetBanks) or nuggetbanks (autojudge-base's "
                                "NuggetBanks)")
    comparing.add_argument("--threshold", type=unit_share, default=0.5, metavar="T",
                           help="least similarity of a link, in (0, 1] (default 0.5)")
    comparing.add_argument("--links", metavar="FILE",
                           help="also write the links (TSV: topic, keys, texts, importances, "
                                "similarity)")
    comparing.add_argument("--format", choices=("table", "tsv", "json"), default="table",
                           help="table (default, for reading), tsv or json (with the links; "
                                "NaN: null)")
    comparing.add_argument("-o", "--output", default="-", metavar="FILE", help="default: stdout")
    add_db_option(comparing)
    comparing.set_defaults(handler=_compare)


def _compare(args: argparse.Namespace) -> int:
    import json

    from pooljudge.cli.output import emit, records, render
    from pooljudge.metrics.nugget_bank_agreement import bank_agreement

    if (args.authors is not None) != (args.campaign is not None):
        raise UsageError("nuggets compare: --authors needs --campaign, and --campaign goes "
                         "with --authors")
    pair = args.banks or args.authors or args.campaigns
    if pair[0] == pair[1]:
        raise UsageError(f"nuggets compare: bank A and bank B are both {pair[0]!r}")
    if args.banks:
        a, b, topics = _file_banks(args)
    else:
        a, b, topics = _store_banks(args)
    table, links = bank_agreement(a, b, threshold=args.threshold, topics=topics)
    if args.links:
        emit(render(links, "tsv"), args.links)
    if args.format == "json":
        text = json.dumps({"banks": list(pair), "threshold": args.threshold,
                           "topics": records(table), "links": records(links)},
                          indent=1, ensure_ascii=False) + "\n"
    else:
        text = render(table, args.format)
    emit(text, args.output)
    return 0


def _frame(rows):
    import pandas as pd

    return pd.DataFrame([(r.topic, r.key, r.text, r.importance) for r in rows],
                        columns=["topic", "key", "text", "importance"])


def _file_banks(args: argparse.Namespace):
    """Both files read whole (``path:line`` errors); a nuggetizer nugget's key is
    ``<topic>-<n>``, its place in its topic's bank."""
    from pooljudge.formats.nuggets import read_nugget_banks, read_nuggetizer_nuggets

    read = read_nugget_banks if args.bank_format == "nuggetbanks" else read_nuggetizer_nuggets
    frames, topics = [], []
    for path in args.banks:
        banks = read(path)
        frame = _frame(banks.rows)
        numbers = frame.groupby("topic", sort=False).cumcount() + 1
        frame["key"] = frame["key"].where(frame["key"].notna(),
                                          frame["topic"] + "-" + numbers.astype(str))
        frames.append(frame)
        topics += list(banks.lines)
    return frames[0], frames[1], topics


def _store_banks(args: argparse.Namespace):
    """The active nuggets of the two authors in ``--campaign``, or of the two campaigns;
    InputError for an author without any (a misspelt name reads as an empty bank)."""
    from pooljudge.annotate.store import nuggets_frame, session_scope

    with open_database(args) as engine, session_scope(engine, readonly=True) as session:
        if args.authors:
            bank = nuggets_frame(session, campaign=args.campaign)
            frames = []
            for author in args.authors:
                if not bank["author"].eq(author).any():
                    raise InputError(f"campaign {args.campaign!r} has no active nuggets by "
                                     f"{author!r}")
                frames.append(bank[bank["author"] == author])
        else:
            frames = [nuggets_frame(session, campaign=name) for name in args.campaigns]
    return frames[0], frames[1], ()
