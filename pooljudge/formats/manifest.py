"""Run manifests: which run is which stage of which retrieval pipeline (``--manifest``).

A manifest is a tab-separated file whose first line (blank lines and ``#`` lines aside) is a
header. Two columns are required, any number of free configuration columns may follow::

    run                 stage     pipeline  embedding  chunking  reranker
    runs/e5.run         retrieve  e5+bge    e5-large   512       -
    runs/e5-bge.run     rerank    e5+bge    e5-large   512       bge-v2
    runs/e5-bge-ctx.run context   e5+bge    e5-large   512       bge-v2

- ``run``: a run file, relative to the manifest's folder (or absolute); in the Python API it
  may instead name a run handed over in memory (a given name wins over a file of that name).
- ``stage``: ``retrieve``, ``rerank`` or ``context`` (the order of a chain).
- ``pipeline`` (optional): the chain the run belongs to, named explicitly. Without this column
  a chain is the set of runs that agree on **every** other column (all configuration columns,
  empty cells included), and it is named ``column=value`` for each configuration column.

The explicit ``pipeline`` column is the clearer rule whenever configuration columns describe a
single stage (a reranker means nothing on a retrieve row), and it lets one retrieve run feed
several chains. A chain holds at most one run per stage. Cells are literal text (surrounding
blanks removed); a cell may be empty only in a configuration column.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from pooljudge.errors import InputError
from pooljudge.formats.files import PathLike, read_utf8

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["MANIFEST_COLUMNS", "STAGES", "Manifest", "manifest_frame", "read_manifest"]

STAGES = ("retrieve", "rerank", "context")
REQUIRED = ("run", "stage")
PIPELINE = "pipeline"
MANIFEST_COLUMNS = ("pipeline", "stage", "run")  # then the configuration columns


@dataclass(frozen=True)
class Manifest:
    """A checked manifest: ``frame`` holds ``pipeline, stage, run`` and the configuration
    columns, one row per manifest line, in file order; ``paths`` maps each ``run`` that is a
    file to its path (runs given by name are absent); ``lines`` holds each row's line;
    ``source`` names the manifest in messages (its path, or ``manifest``)."""

    frame: pd.DataFrame
    paths: dict[str, Path]
    lines: tuple[int, ...]
    source: str = "manifest"


def read_manifest(path: PathLike, *, names: Collection[str] = ()) -> Manifest:
    """Read and check a manifest file (module docstring).

    ``names``: runs given in memory, which a ``run`` cell may name instead of a file. Raises
    InputError naming ``path:line`` for a header without ``run`` or ``stage``, an empty or
    repeated column name, a line with another number of fields than the header, an empty
    ``run``/``stage``/``pipeline`` cell, an unknown stage, a run that is neither a file nor a
    given name, a chain with two runs of one stage, or a manifest without any run.
    """
    rows = _tab_lines(read_utf8(path))
    if not rows:
        raise InputError("no header line (run, stage, ...)", path=path)
    (header_line, header), body = rows[0], rows[1:]
    folder = Path(path).parent
    return _check(header, header_line, body, where=str(path), known=set(names),
                  locate=lambda run: folder / run)


def manifest_frame(frame: pd.DataFrame, *, names: Collection[str] = (),
                   name: str = "manifest") -> Manifest:
    """Check a manifest given as a DataFrame (columns as in a file; row ``i`` is reported as
    line ``i + 2``, the header being line 1). A ``run`` must be one of ``names`` or a file
    (relative to the working directory)."""
    header = [str(c).strip() for c in frame.columns]
    body = [(i + 2, ["" if _missing(v) else str(v).strip() for v in row])
            for i, row in enumerate(frame.itertuples(index=False, name=None))]
    return _check(header, 1, body, where=name, known=set(names), locate=Path)


def _tab_lines(text: str) -> list[tuple[int, list[str]]]:
    """(line number, tab-separated fields stripped) of every line that is not blank or ``#``."""
    return [(number, [f.strip() for f in line.split("\t")])
            for number, line in enumerate(text.splitlines(), start=1)
            if line.strip() and not line.lstrip().startswith("#")]


def _check(header: Sequence[str], header_line: int, body: list[tuple[int, list[str]]], *,
           where: str, known: set[str], locate: Callable[[str], Path]) -> Manifest:
    """The checked manifest (see :func:`read_manifest` for the errors)."""
    import pandas as pd

    _check_header(header, header_line, where)
    config = [c for c in header if c not in (*REQUIRED, PIPELINE)]
    explicit = PIPELINE in header
    records: list[dict[str, str]] = []
    seen: dict[tuple[str, str], int] = {}
    paths: dict[str, Path] = {}
    for line, fields in body:
        row = _check_row(header, fields, line, where)
        run = row["run"]
        if run not in known:
            paths[run] = _run_file(run, locate(run), given=bool(known), where=where, line=line)
        chain = row[PIPELINE] if explicit else _config_name(row, config)
        first = seen.setdefault((chain, row["stage"]), line)
        if first != line:
            raise InputError(f"pipeline {chain!r} has two {row['stage']} runs (first on line "
                             f"{first})", path=where, line=line)
        records.append({"pipeline": chain, "stage": row["stage"], "run": run,
                        **{c: row[c] for c in config}})
    if not records:
        raise InputError("no run listed under the header", path=where, line=header_line)
    frame = pd.DataFrame.from_records(records, columns=[*MANIFEST_COLUMNS, *config])
    return Manifest(frame=frame.astype(object), paths=paths, lines=tuple(n for n, _ in body),
                    source=where)


def _run_file(run: str, path: Path, *, given: bool, where: str, line: int) -> Path:
    """``path`` when it is a file; InputError otherwise (also for a name no file can have)."""
    try:
        if path.is_file():
            return path
    except (OSError, ValueError):  # a NUL byte, a name too long for the file system
        pass
    shown = "" if str(path) == run else f" (looked for {str(path)!r})"
    alternative = " nor a given run" if given else ""
    raise InputError(f"run {run!r} is not a file{alternative}{shown}", path=where, line=line)


def _check_header(header: Sequence[str], line: int, where: str) -> None:
    for column in header:
        if not column:
            raise InputError("empty column name in the header", path=where, line=line)
    repeated = [c for i, c in enumerate(header) if c in header[:i]]
    if repeated:
        raise InputError(f"column {repeated[0]!r} named twice in the header", path=where,
                         line=line)
    missing = [c for c in REQUIRED if c not in header]
    if missing:
        hint = "; columns are separated by tabs" if any(" " in c for c in header) else ""
        raise InputError(f"the header has no {' and no '.join(missing)} column (found: "
                         f"{', '.join(header)}){hint}", path=where, line=line)


def _check_row(header: Sequence[str], fields: list[str], line: int, where: str) -> dict[str, str]:
    if len(fields) != len(header):
        raise InputError(f"expected {len(header)} tab-separated fields ({', '.join(header)}), "
                         f"found {len(fields)}", path=where, line=line)
    row = dict(zip(header, fields, strict=True))
    for column in (*REQUIRED, PIPELINE):
        if column in row and not row[column]:
            raise InputError(f"empty {column} cell", path=where, line=line)
    if row["stage"] not in STAGES:
        raise InputError(f"unknown stage {row['stage']!r} (stages: {', '.join(STAGES)})",
                         path=where, line=line)
    return row


def _config_name(row: dict[str, str], config: Sequence[str]) -> str:
    """A chain's name without a pipeline column: ``column=value`` of each configuration column,
    ``; ``-separated (``(all runs)`` when there is none)."""
    return "; ".join(f"{c}={row[c]}" for c in config) or "(all runs)"


def _missing(value: object) -> bool:
    return value is None or (isinstance(value, float) and value != value)
