"""``pooljudge judgments import FILE`` (all or nothing) and ``pooljudge judgments export``."""

from __future__ import annotations

import argparse
import csv
import io
import json
from typing import TYPE_CHECKING

from pooljudge.cli import Subcommands
from pooljudge.cli.inputs import open_database
from pooljudge.cli.options import add_db_option
from pooljudge.errors import InputError, UsageError
from pooljudge.formats.files import atomic_writer, jsonl_objects, read_bytes

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd

__all__ = ["EXPORT_COLUMNS", "read_judgments", "register"]

REQUIRED = ("annotator", "topic", "doc", "label")
EXPORT_COLUMNS = ("annotator", "topic", "doc", "label", "version", "time", "seconds", "source",
                  "comment", "kind", "status", "rationale")

_QRELS_HINT = " (for TREC qrels, use --as NAME)"


def register(subparsers: Subcommands) -> None:
    parser = subparsers.add_parser("judgments", help="import or export judgment rows",
                                   description="Import or export a campaign's judgment rows.")
    actions = parser.add_subparsers(title="actions", metavar="ACTION", parser_class=type(parser))
    actions.required = True
    imp = actions.add_parser(
        "import", help="import judgments (TSV/CSV/JSONL, or TREC qrels with --as NAME)",
        description="Import judgments, all or nothing. Columns: annotator topic doc label, "
                    "optional time seconds comment source kind version status rationale "
                    "(status: label, withdrawn or cannot_judge; only a label row has a "
                    "label, a cannot_judge row needs a rationale).")
    imp.add_argument("file", metavar="FILE", help="the judgments file")
    imp.add_argument("--as", dest="as_name", metavar="NAME",
                     help="read FILE as TREC qrels, labelled by the non-human annotator NAME")
    imp.add_argument("--new-annotator", action="append", default=[], metavar="NAME",
                     help="create NAME as a non-human label source (e.g. llm); repeatable")
    imp.add_argument("--source", choices=("import", "automatic", "human"), default=None,
                     help="source of rows without one (default: import; automatic with --as)")
    exp = actions.add_parser("export", help="every judgment row as TSV")
    exp.add_argument("-o", "--output", default="-", metavar="FILE", help="default: stdout")
    for sub, handler in ((imp, _import), (exp, _export)):
        sub.add_argument("--campaign", required=True, metavar="CAMPAIGN",
                         help="the campaign's name")
        add_db_option(sub)
        sub.set_defaults(handler=handler)


def read_judgments(path: str, *, as_name: str | None = None) -> tuple[pd.DataFrame, np.ndarray]:
    """The rows of a judgments file (all values as text) and each row's line number.

    TSV or CSV with a header, JSONL, or (with ``as_name``) TREC qrels ``topic 0 doc label``.
    Blank lines are skipped. Refused with ``path:line``: a header (or a JSON object) with a
    column twice, an unknown column or a required one missing (see
    :func:`pooljudge.annotate.store.check_columns`); a row with more or fewer fields than the
    header; a JSON value that is not a string, a number or null.
    """
    if as_name is not None:
        from pooljudge.formats.trec import read_qrels

        qrels = read_qrels(path)
        lines = _data_line_numbers(read_bytes(path))
        frame = qrels.assign(annotator=as_name, label=qrels["label"].astype(str))
        return frame[list(REQUIRED)], lines
    from pooljudge.formats.ids import refuse_nul  # numpy: not at the program's start

    text = _decode(read_bytes(path), path)
    frame, lines = _read_jsonl(text, path) if text.lstrip().startswith("{") else _read_table(
        text, path)
    for column in frame.columns:
        refuse_nul(frame[column].astype(str).tolist(), lines.tolist(), path)
    return frame, lines


def _read_table(text: str, path: str) -> tuple[pd.DataFrame, np.ndarray]:
    """A TSV (a tab in the header line) or CSV file with a header; csv quoting rules."""
    import numpy as np
    import pandas as pd

    from pooljudge.annotate.store import check_columns

    sep = "\t" if "\t" in text.splitlines()[0] else ","
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=sep, strict=True)
    rows, lines = [], []
    try:
        header = next(reader)
        check_columns(header, path=path, line=1, hint=_QRELS_HINT)
        end = reader.line_num
        for fields in reader:
            start, end = end + 1, reader.line_num
            if not any(field.strip() for field in fields):
                continue
            if len(fields) != len(header):
                raise InputError(f"{len(fields)} fields, the header has {len(header)}",
                                 path=path, line=start)
            rows.append(fields)
            lines.append(start)
    except csv.Error as exc:
        raise InputError(f"cannot parse: {exc}", path=path, line=reader.line_num) from None
    return pd.DataFrame(rows, columns=header, dtype=object), np.array(lines, dtype=np.int64)


def _decode(raw: bytes, path: str) -> str:
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError("not valid UTF-8", path=path,
                         line=raw[: exc.start].count(b"\n") + 1) from None


def _read_jsonl(text: str, path: str) -> tuple[pd.DataFrame, np.ndarray]:
    import numpy as np
    import pandas as pd

    from pooljudge.annotate.store import check_columns

    rows, lines = [], []
    for number, record in jsonl_objects(text, path):
        check_columns(list(record), path=path, line=number, hint=_QRELS_HINT)
        rows.append({key: _json_text(key, value, path, number) for key, value in record.items()})
        lines.append(number)
    return pd.DataFrame(rows).fillna(""), np.array(lines, dtype=np.int64)


def _json_text(key: str, value: object, path: str, line: int) -> str:
    """A JSON scalar as the text it was written as (``1`` -> "1", ``1.5`` -> "1.5", null ->
    ""); true/false, lists and objects are refused."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, int | float) and not isinstance(value, bool):
        return json.dumps(value)
    raise InputError(f"{key} must be a string, a number or null, not {json.dumps(value)}",
                     path=path, line=line)


def _data_line_numbers(raw: bytes) -> np.ndarray:
    """Line numbers of qrels data lines (not blank, not ``#`` comments), as read_qrels reads."""
    import numpy as np
    return np.array([n for n, line in enumerate(raw.split(b"\n"), start=1)
                     if line.strip() and not line.strip().startswith(b"#")])


def _import(args: argparse.Namespace) -> int:
    from pooljudge.annotate.store import import_judgments, session_scope

    frame, lines = read_judgments(args.file, as_name=args.as_name)
    sources = [*args.new_annotator, *([args.as_name] if args.as_name else [])]
    default = args.source or ("automatic" if args.as_name else "import")
    with open_database(args) as engine, session_scope(engine) as session:
        count = import_judgments(session, campaign=args.campaign, frame=frame, path=args.file,
                                 lines=lines, label_sources=sources, source=default)
    print(f"imported {count} judgments into {args.campaign}")
    return 0


def _export(args: argparse.Namespace) -> int:
    import pandas as pd

    from pooljudge.annotate.store import judgments_frame, session_scope

    if args.output != "-" and not args.output.strip():
        raise UsageError("-o needs a file name")
    with open_database(args) as engine, session_scope(engine, readonly=True) as session:
        frame = judgments_frame(session, campaign=args.campaign, latest_only=False)
    frame = frame.rename(columns={"created_at": "time"})
    frame["time"] = pd.to_datetime(frame["time"]).dt.strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    with atomic_writer(args.output) as handle:
        frame[list(EXPORT_COLUMNS)].to_csv(handle, sep="\t", index=False, lineterminator="\n")
    return 0
