"""``pooljudge nuggets import|export|scores|agree|compare|edits|draft|assign``: nugget
evaluation of RAG answers.

``import`` stores nugget banks (nuggetizer's JSONL or autojudge-base's NuggetBanks), RAG
answers (TREC RAG JSONL) and nugget assignments (nuggetizer's JSONL) in a campaign, all given
files in one transaction (a bad record anywhere stores nothing). ``export`` writes the banks,
the answers, the assignments, nugget→document qrels or the banks' history. ``scores`` gives
nuggetizer's four scores per answer or per run (mean over topics with a t interval);
``agree`` the agreement between assessors on the cells two of them labelled; ``compare`` the
agreement between two banks of the same topics (linked nuggets, recall of each against the
other, vital/okay agreement); ``edits`` how much of a model's banks people kept, edited, merged
or deleted, and what they added; ``draft`` asks a model for draft banks and ``assign`` for the
labels of answers' nuggets.
"""

from __future__ import annotations

import argparse

from pooljudge.cli import Subcommands
from pooljudge.cli.inputs import open_database
from pooljudge.cli.options import (
    MAX_RESAMPLES,
    add_db_option,
    nonnegative_int,
    open_unit,
    positive_int,
    seed,
    summary,
)
from pooljudge.errors import UsageError

HELP = "nugget evaluation of RAG answers: import, export, scores, agreement"
BANK_FORMATS = ("nuggetizer", "nuggetbanks")
_HEX = frozenset("0123456789abcdef")


def sha256_hex(text: str) -> str:
    """A SHA-256 digest written as 64 hexadecimal digits (stored in lower case)."""
    digest = text.lower()
    if len(digest) != 64 or not set(digest) <= _HEX:
        raise argparse.ArgumentTypeError(f"not a SHA-256 in hexadecimal (64 digits): {text!r}")
    return digest
EXPORTS = ("banks", "answers", "assignments", "qrels", "history")


def register(subparsers: Subcommands) -> None:
    parser = subparsers.add_parser("nuggets", help=HELP, description=summary(__doc__))
    actions = parser.add_subparsers(title="actions", metavar="ACTION", parser_class=type(parser))
    actions.required = True
    importing = actions.add_parser(
        "import", help="store nugget banks, RAG answers and assignments (one transaction)",
        description="Store the files given in a campaign, banks first, then answers, then "
                    "assignments, in one transaction: a bad record stores nothing.")
    importing.add_argument("--banks", metavar="FILE", help="nugget banks (JSONL)")
    importing.add_argument("--bank-format", choices=BANK_FORMATS, default="nuggetizer",
                           help="nuggetizer (default; also autojudge-base's "
                                "NuggetizerNuggetBanks) or nuggetbanks (autojudge-base's "
                                "NuggetBanks, claims)")
    importing.add_argument("--author", metavar="NAME",
                           help="who made a nuggetizer bank's nuggets (default nuggetizer; a "
                                "NuggetBanks file names its own)")
    importing.add_argument("--author-kind", choices=("model", "person"), default="model",
                           help="the author is a model (default) or a person")
    importing.add_argument("--prompt-sha256", metavar="HEX", type=sha256_hex,
                           help="SHA-256 of the model's prompt (a model author only)")
    importing.add_argument("--answers", metavar="FILE",
                           help="RAG answers (TREC RAG JSONL or AutoJudge Reports)")
    importing.add_argument("--assignments", metavar="FILE",
                           help="nugget assignments (nuggetizer JSONL)")
    importing.add_argument("--assessor", metavar="NAME",
                           help="who assigned, for records that do not say")
    importing.add_argument("--new-source", action="store_true",
                           help="create assessors unknown to the campaign as label sources "
                                "(a model, another tool); without it they are an error")
    importing.set_defaults(handler=_import)
    exporting = actions.add_parser("export", help="write banks, answers, assignments, qrels "
                                                  "or history")
    exporting.add_argument("what", choices=EXPORTS, help="what to write")
    exporting.add_argument("--bank-format", choices=BANK_FORMATS, default="nuggetbanks",
                           help="banks: nuggetbanks (default, keeps ids, sources and authors) "
                                "or nuggetizer")
    exporting.add_argument("--answer-format", choices=("rag", "report"), default="rag",
                           help="answers: rag (default, TREC RAG JSONL) or report (AutoJudge "
                                "Reports, citations as document ids)")
    exporting.add_argument("--team", default="unknown", metavar="NAME",
                           help="answers as reports: their team_id (default unknown)")
    exporting.add_argument("--by", choices=("nugget", "topic"), default="nugget",
                           help="qrels: one query per nugget (default) or per topic")
    exporting.add_argument("-o", "--output", default="-", metavar="FILE",
                           help="default: stdout")
    exporting.set_defaults(handler=_export)
    scoring = actions.add_parser("scores", help="nuggetizer's four scores per answer or run")
    scoring.add_argument("--per", choices=("run", "answer"), default="run",
                         help="run (default: mean over topics, t interval) or answer")
    scoring.add_argument("--confidence", type=open_unit, default=0.95, metavar="P",
                         help="confidence level of the run intervals (default 0.95)")
    scoring.add_argument("--ppi", metavar="MODEL",
                         help="per run, the PPI++ mean of people's scores using the assessor "
                              "MODEL's on every answer (people's answers must be a random "
                              "sample), beside people's mean alone")
    scoring.add_argument("--format", choices=("table", "tsv", "json"), default="table",
                         help="table (default, for reading), tsv or json (NaN: null)")
    scoring.add_argument("-o", "--output", default="-", metavar="FILE", help="default: stdout")
    scoring.set_defaults(handler=_scores)
    agreeing = actions.add_parser("agree", help="agreement between assessors on assignments")
    agreeing.add_argument("--per-topic", action="store_true", help="also report every topic")
    agreeing.add_argument("--resamples", type=nonnegative_int(MAX_RESAMPLES), default=1000,
                          metavar="N", help="bootstrap resamples of topics for the CIs of kappa "
                                            "and of the run-ranking taus (default 1000, 0: "
                                            "none)")
    agreeing.add_argument("--confidence", type=open_unit, default=0.95, metavar="P",
                          help="confidence level of the CIs (default 0.95)")
    agreeing.add_argument("--seed", type=seed, default=0, help="bootstrap seed (default 0)")
    agreeing.add_argument("--format", choices=("table", "json"), default="table",
                          help="table (default, for reading) or json (undefined values: null)")
    agreeing.add_argument("-o", "--output", default="-", metavar="FILE", help="default: stdout")
    agreeing.set_defaults(handler=_agree)
    editing = actions.add_parser("edits", help="how much of a model's banks people kept, "
                                               "edited, merged, deleted, and added")
    editing.add_argument("--format", choices=("table", "tsv", "json"), default="table",
                         help="table (default, for reading), tsv or json")
    editing.add_argument("-o", "--output", default="-", metavar="FILE", help="default: stdout")
    editing.set_defaults(handler=_edits)
    overlapping = actions.add_parser(
        "overlap", help="how many people assign each answer: show it, or set it",
        description="Without a value, print the campaign's assignment overlap. With K, at most "
                    "K people assign each answer (the app's assignment pane hands an answer to "
                    "no more; label sources such as models do not count); with 'all', every "
                    "person assigns every answer (the default).")
    overlapping.add_argument("value", nargs="?", type=_overlap_value, metavar="K|all",
                             help="the overlap to set: a number (1 to 1000) or all")
    overlapping.set_defaults(handler=_overlap)
    for sub in (importing, exporting, scoring, agreeing, editing, overlapping):
        sub.add_argument("--campaign", required=True, metavar="CAMPAIGN",
                         help="the campaign's name")
        add_db_option(sub)
    from pooljudge.cli.nugget_assign import register_assign
    from pooljudge.cli.nugget_compare import register_compare
    from pooljudge.cli.nugget_draft import register_draft

    register_compare(actions)
    register_draft(actions)
    register_assign(actions)


def _import(args: argparse.Namespace) -> int:
    from pooljudge.cli.nugget_files import import_files

    if not (args.banks or args.answers or args.assignments):
        raise UsageError("nuggets import: give --banks, --answers and/or --assignments")
    if args.prompt_sha256 and args.author_kind != "model":
        raise UsageError("--prompt-sha256: only a model author has a prompt")
    if args.bank_format == "nuggetbanks" and (args.author or args.prompt_sha256):
        raise UsageError("--author, --prompt-sha256: a NuggetBanks file names its own authors")
    with open_database(args) as engine:
        counts = import_files(engine, args)
    print(", ".join(f"{count} {what}" for what, count in counts.items()) + " stored")
    return 0


def _export(args: argparse.Namespace) -> int:
    from pooljudge.cli.nugget_files import export_file

    with open_database(args) as engine:
        export_file(engine, args)
    return 0


def _scores(args: argparse.Namespace) -> int:
    if args.ppi is not None and args.per == "answer":
        raise UsageError("--ppi: estimates are per run (not with --per answer)")
    from pooljudge.annotate.store import (
        nugget_cells,
        nuggets_frame,
        rag_answers_frame,
        session_scope,
    )
    from pooljudge.cli.output import emit, render, warn
    from pooljudge.metrics.nugget_scores import answer_scores, run_scores

    with open_database(args) as engine, session_scope(engine, readonly=True) as session:
        nuggets = nuggets_frame(session, campaign=args.campaign)
        answers = rag_answers_frame(session, campaign=args.campaign)
        cells = nugget_cells(session, campaign=args.campaign)
    scores = answer_scores(nuggets, answers, cells)
    if (incomplete := int((scores["missing"] > 0).sum())):
        warn("nuggets", f"{incomplete} answers lack labels for some of their topic's nuggets: "
                        "their scores are left out (missing > 0)")
    if args.ppi is not None:
        from pooljudge.annotate.nugget_ppi import ppi_run_scores

        table = ppi_run_scores(scores, model=args.ppi, confidence=args.confidence)
    else:
        table = scores if args.per == "answer" else run_scores(scores, args.confidence)
    emit(render(table, args.format), args.output)
    return 0


def _agree(args: argparse.Namespace) -> int:
    import json

    from pooljudge.annotate.agreement import BootstrapSpec
    from pooljudge.annotate.nugget_agreement import anchoring, assignment_agreement
    from pooljudge.annotate.store import (
        list_annotators,
        nugget_cells,
        nuggets_frame,
        rag_answers_frame,
        session_scope,
        suggest_from,
    )
    from pooljudge.cli.agree_cmd import render_table
    from pooljudge.cli.output import emit, records, render
    from pooljudge.metrics.nugget_scores import answer_scores, run_rankings

    spec = (BootstrapSpec(confidence=args.confidence, n_resamples=args.resamples, seed=args.seed)
            if args.resamples else None)
    with open_database(args) as engine, session_scope(engine, readonly=True) as session:
        cells = nugget_cells(session, campaign=args.campaign, with_suggested=True)
        scores = answer_scores(nuggets_frame(session, campaign=args.campaign),
                               rag_answers_frame(session, campaign=args.campaign),
                               cells.drop(columns="suggested"))
        judge = suggest_from(session, campaign=args.campaign)
        people = list_annotators(session, campaign=args.campaign, include_removed=True)
    rankings = run_rankings(scores, replicates=args.resamples, seed=args.seed,
                            confidence=args.confidence)
    report = assignment_agreement(cells.drop(columns="suggested"), per_topic=args.per_topic,
                                  spec=spec)
    anchored = (None if judge is None else
                anchoring(cells, judge=judge, people=set(people.loc[people["human"], "name"])))
    if args.format == "json":
        text = json.dumps(report.to_json() | {"run_rankings": records(rankings)} | {
            "anchoring": None if anchored is None else {"judge": judge,
                                                        "subsets": records(anchored)}},
            indent=2, allow_nan=False) + "\n"
    else:
        text = render_table(report) + "\nRun rankings\n" + render(rankings, "table")
        if anchored is not None:
            text += (f"\nModel pre-assignment: people against {judge}, with and without its "
                     "suggestion shown\n" + render(anchored, "table"))
    emit(text, args.output)
    return 0


def _overlap_value(text: str) -> int:
    """``all`` (0: every person assigns every answer) or a number 1..1000."""
    if text == "all":
        return 0
    try:
        return positive_int(1000)(text)
    except argparse.ArgumentTypeError as exc:
        raise argparse.ArgumentTypeError(f"{exc} (or all)") from None


def _overlap(args: argparse.Namespace) -> int:
    from pooljudge.annotate.store import nugget_overlap, session_scope, set_nugget_overlap

    given = args.value is not None
    with open_database(args) as engine, session_scope(engine, readonly=not given) as session:
        if given:
            set_nugget_overlap(session, campaign=args.campaign, overlap=args.value or None)
        overlap = nugget_overlap(session, campaign=args.campaign)
    print(f"campaign {args.campaign}: " + ("every person assigns every answer"
                                           if overlap is None else
                                           f"at most {overlap} "
                                           f"{'people assign' if overlap > 1 else 'person assigns'}"
                                           " each answer"))
    return 0


def _edits(args: argparse.Namespace) -> int:
    from pooljudge.annotate.post_editing import post_editing
    from pooljudge.annotate.store import nugget_history, session_scope
    from pooljudge.cli.output import emit, render

    with open_database(args) as engine, session_scope(engine, readonly=True) as session:
        history = nugget_history(session, campaign=args.campaign)
    emit(render(post_editing(history), args.format), args.output)
    return 0
