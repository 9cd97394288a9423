"""``pooljudge nuggets import`` and ``export``: files read whole and checked first, then stored
in one transaction; exports written through ``atomic_writer`` (a whole file or none)."""

from __future__ import annotations

import argparse

from sqlalchemy import Engine

from pooljudge.formats.files import atomic_writer

__all__ = ["export_file", "import_files"]


def import_files(engine: Engine, args: argparse.Namespace) -> dict[str, int]:
    """Read every file given, then store all in one transaction; counts stored by kind."""
    from pooljudge.annotate.store import (
        import_nugget_assignments,
        import_nuggets,
        import_rag_answers,
        session_scope,
    )
    from pooljudge.formats.nugget_assignments import read_nuggetizer_assignments
    from pooljudge.formats.nuggets import read_nugget_banks, read_nuggetizer_nuggets
    from pooljudge.formats.rag_answers import read_rag_answers

    banks = answers = assignments = None
    if args.banks:
        banks = (read_nugget_banks(args.banks) if args.bank_format == "nuggetbanks" else
                 read_nuggetizer_nuggets(args.banks, author_kind=args.author_kind,
                                         author=args.author or "nuggetizer",
                                         prompt_sha256=args.prompt_sha256))
    if args.answers:
        answers = read_rag_answers(args.answers)
    if args.assignments:
        assignments = read_nuggetizer_assignments(args.assignments)
    counts: dict[str, int] = {}
    with session_scope(engine) as session:
        if banks is not None:
            counts["nuggets"] = import_nuggets(session, campaign=args.campaign,
                                               rows=banks.rows, topics=banks.lines,
                                               path=args.banks)
        if answers is not None:
            counts["answers"] = import_rag_answers(session, campaign=args.campaign,
                                                   answers=answers, path=args.answers)
        if assignments is not None:
            sources = ({row.assessor or args.assessor for row in assignments.rows} - {None}
                       if args.new_source else set())
            counts["assignments"] = import_nugget_assignments(
                session, campaign=args.campaign, rows=assignments.rows, path=args.assignments,
                assessor=args.assessor, label_sources=sources, answers=assignments.answers)
    return counts


def export_file(engine: Engine, args: argparse.Namespace) -> None:
    """Read what ``args.what`` names from the campaign, then write it atomically."""
    from pooljudge.annotate.store import (
        answer_texts,
        nugget_bank,
        nugget_cells,
        nugget_history,
        session_scope,
        topic_titles,
    )
    from pooljudge.formats.nuggets import NuggetRow

    with session_scope(engine, readonly=True) as session:
        queries = topic_titles(session, campaign=args.campaign)
        records = nugget_bank(session, campaign=args.campaign)
        answers = answer_texts(session, campaign=args.campaign) if args.what in (
            "answers", "assignments") else []
        cells = nugget_cells(session, campaign=args.campaign) if args.what == "assignments" \
            else None
        history = nugget_history(session, campaign=args.campaign) if args.what == "history" \
            else None
    rows = [NuggetRow(r.topic, r.text, r.importance, key=r.key, sources=r.sources,
                      author_kind=r.author_kind, author=r.author, prompt_sha256=r.prompt_sha256)
            for r in records]
    with atomic_writer(args.output) as handle:
        _write(handle, args, rows, queries, answers, cells, history)


def _write(handle, args: argparse.Namespace, rows, queries, answers, cells, history) -> None:
    from pooljudge.formats.nugget_assignments import (
        write_nugget_qrels,
        write_nuggetizer_assignments,
    )
    from pooljudge.formats.nuggets import (
        write_history,
        write_nugget_banks,
        write_nuggetizer_nuggets,
    )
    from pooljudge.formats.rag_answers import write_rag_answers, write_reports

    if args.what == "banks":
        writer = (write_nugget_banks if args.bank_format == "nuggetbanks"
                  else write_nuggetizer_nuggets)
        writer(handle, rows, queries)
    elif args.what == "answers" and args.answer_format == "report":
        write_reports(handle, answers, team=args.team)
    elif args.what == "answers":
        write_rag_answers(handle, answers)
    elif args.what == "qrels":
        write_nugget_qrels(handle, rows, by=args.by)
    elif args.what == "assignments":
        write_nuggetizer_assignments(handle, assignment_records(rows, queries, answers, cells))
    else:
        write_history(handle, history.to_dict("records"))


def assignment_records(rows, queries, answers, cells) -> list[dict]:
    """One nuggetizer assignment record per (answer, assessor) with labels, its nuggets in bank
    order (a nugget the assessor did not label is left out)."""
    by_key = {a.key: a for a in answers}
    importance = {r.key: (r.text, r.importance) for r in rows}
    records: dict[tuple[str, str], dict] = {}
    for answer, nugget, assessor, label in cells[["answer", "nugget", "assessor",
                                                  "label"]].itertuples(index=False):
        found = by_key[answer]
        record = records.setdefault((answer, assessor), {
            "qid": found.topic, "query": queries.get(found.topic, ""), "answer_id": answer,
            "run_id": found.run, "assessor": assessor,
            "answer_text": " ".join(s.text for s in found.sentences), "nuggets": []})
        text, level = importance[nugget]
        record["nuggets"].append({"text": text, "importance": level, "assignment": label})
    return list(records.values())
