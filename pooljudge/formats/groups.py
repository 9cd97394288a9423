"""Reader for two-column grouping files: topic groups (``--topic-groups``) and run groups.

A line is ``KEY GROUP``: the key (a topic id or a run name) is the first whitespace-separated
field and the group is the rest of the line with surrounding blanks removed, so group names may
contain spaces (``news en-US``). Blank lines and lines starting with ``#`` are ignored. A file may
start with a header line ``topic group`` (or ``run group``), which is skipped.

A topic may belong to several groups (a category and a language, say); the same (topic, group)
pair listed twice is an error. A run belongs to exactly one group.
"""

from __future__ import annotations

import pandas as pd

from pooljudge.errors import InputError
from pooljudge.formats.files import PathLike, read_utf8

__all__ = ["read_run_groups", "read_topic_groups"]


ALL_TOPICS = "all"  # the name of every table's row of all topics


def read_topic_groups(path: PathLike) -> pd.DataFrame:
    """Read ``topic group`` lines into a DataFrame with string columns ``topic`` and ``group``.

    Raises InputError naming ``path:line`` for a line with no group, a (topic, group) pair listed
    twice, the group name ``all`` (reserved: every table's row of all topics), undecodable
    bytes, or a file without any pair.
    """
    rows = _read_pairs(path, "topic")
    seen: dict[tuple[str, str], int] = {}
    for number, topic, group in rows:
        if group == ALL_TOPICS:
            raise InputError(f"group name {ALL_TOPICS!r} is reserved for the row of every "
                             "topic; rename the group", path=path, line=number)
        first = seen.setdefault((topic, group), number)
        if first != number:
            raise InputError(f"topic {topic} listed twice in group {group!r} (first on line "
                             f"{first})", path=path, line=number)
    return pd.DataFrame({"topic": [r[1] for r in rows], "group": [r[2] for r in rows]},
                        dtype=object)


def read_run_groups(path: PathLike) -> dict[str, str]:
    """Read ``run group`` lines into a mapping from run name to group name.

    Raises InputError naming ``path:line`` for a line with no group, a run listed twice,
    undecodable bytes, or a file without any pair.
    """
    mapping: dict[str, str] = {}
    lines: dict[str, int] = {}
    for number, run, group in _read_pairs(path, "run"):
        if run in mapping:
            raise InputError(f"run {run} listed twice (first on line {lines[run]})", path=path,
                             line=number)
        mapping[run] = group
        lines[run] = number
    return mapping


def _read_pairs(path: PathLike, key: str) -> list[tuple[int, str, str]]:
    """(line number, key, group) for every data line; the optional ``KEY group`` header skipped."""
    text = read_utf8(path)
    rows: list[tuple[int, str, str]] = []
    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        fields = stripped.split(maxsplit=1)
        if len(fields) < 2:
            raise InputError(f"expected '{key} group', found only {stripped!r}", path=path,
                             line=number)
        if not rows and fields[0].lower() == key and fields[1].lower() == "group":
            continue
        rows.append((number, fields[0], fields[1].strip()))
    if not rows:
        raise InputError(f"no '{key} group' lines", path=path)
    return rows
