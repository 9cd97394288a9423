"""A retrieval log's queries (:class:`pooljudge.formats.logs.Logs`): what each query id is, what
it belongs to, and a chosen few of them.

- **Topics** (:func:`log_topics`): ``id, title`` — each query id with its first logged text.
- **Topic groups** (:func:`topic_groups`): ``topic, group`` with groups ``category=billing``,
  ``language=en``, ``tenant=acme`` (a topic logged with two values of a field is in the group
  of its first, as in the strata, with a warning: :func:`several_values`), the frame
  ``pooljudge.metrics.groups.group_means`` reads.
- **Strata** (:func:`query_strata`): ``query_id, stratum``, each query id in the stratum of its
  first logged value of a field, which ``pooljudge.pooling.query_sample.sample_queries`` samples
  from.

Groups and strata read a field's values by one rule (:func:`field_values`): tabs and line
breaks become one space and blanks at the ends are removed, so `` billing`` and ``billing`` are
one group in ``logs import`` and one stratum in ``logs sample``, a query id logged with both
has one value, not several, and a blank value is none; :func:`normalised_values` warns how many
query ids it changed.
- **A selection** (:func:`select_queries`): the log restricted to the retrievals of some query
  ids, and the ids it never logs.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
from pooljudge.metrics.log_index import (
    Codes,
    LogIndex,
    arrow_strings,
    chunk_hashes,
    string_column,
    strings_at,
)

from pooljudge.formats.log_files import one_line
from pooljudge.formats.logs import Logs

__all__ = ["GROUP_FIELDS", "field_values", "log_topics", "normalised_values", "query_strata",
           "select_queries", "several_values", "topic_groups"]

GROUP_FIELDS = ("category", "language", "tenant")


def log_topics(logs: Logs, index: LogIndex | None = None) -> tuple[pd.DataFrame, list[str]]:
    """``id, title``: each query id (sorted) with its first non-missing query text (empty when
    none, or when the query text is private); a warning counts ids logged with several texts.
    Both columns are ``string[pyarrow]``."""
    topics = (index or LogIndex.of(logs)).topics
    query = arrow_strings(logs.retrievals["query"])
    valid = query.is_valid().to_numpy(zero_copy_only=False)
    first_of_topic = np.full(len(topics.values), -1, dtype=np.int64)
    warnings = []
    if valid.any():
        rows = np.flatnonzero(valid)
        codes, first = np.unique(topics.codes[rows], return_index=True)
        first_of_topic[codes] = rows[first]
        hashes = chunk_hashes(query)
        differs = rows[hashes[rows] != hashes[first_of_topic[topics.codes[rows]]]]
        if len(differs):
            firsts = first_of_topic[topics.codes[differs]]
            differs = differs[strings_at(query, differs) != strings_at(query, firsts)]
        if len(differs):
            ids = np.unique(topics.codes[differs])
            warnings.append(f"{len(ids)} query id(s) are logged with different query texts "
                            f"(e.g. {topics.values[int(ids[0])].as_py()}): each keeps its first")
    title = query.take(pa.array(first_of_topic, mask=first_of_topic < 0)).fill_null("")
    return pd.DataFrame({"id": string_column(topics.values), "title": string_column(title)},
                        copy=False), warnings


def topic_groups(logs: Logs, fields: tuple[str, ...] = GROUP_FIELDS,
                 index: LogIndex | None = None) -> pd.DataFrame:
    """``topic, group``: per field of ``fields``, each query id with the first value of the
    field logged for it (``field=value``), the rule of :func:`query_strata` (a query id logged
    with two categories is in the group of its first; :func:`several_values` gives the
    warnings), in the order of ``fields`` then of first appearance (``string[pyarrow]``
    columns)."""
    import pyarrow.compute as pc

    topics = (index or LogIndex.of(logs)).topics
    topic_rows, group_parts = [], []
    for name in fields:
        values = field_values(logs, name)
        rows, _ = _first_values(topics, values)
        topic_rows.append(topics.codes[rows])
        named = pc.binary_join_element_wise(f"{name}=", values.values, "")
        group_parts.append(named.take(pa.array(values.codes[rows])))
    topic = topics.values.take(pa.array(np.concatenate([np.zeros(0, np.int32), *topic_rows])))
    group = pa.chunked_array(group_parts, pa.string())
    return pd.DataFrame({"topic": string_column(topic), "group": string_column(group)}, copy=False)


def several_values(logs: Logs, fields: tuple[str, ...] = GROUP_FIELDS,
                   index: LogIndex | None = None) -> list[str]:
    """One warning per field of ``fields`` some query id is logged with several values of:
    ``n query id(s) are logged with several values of FIELD (e.g. ID): each is counted in its
    first`` (the line :func:`query_strata` gives)."""
    topics = (index or LogIndex.of(logs)).topics
    warnings = []
    for name in fields:
        _, several = _first_values(topics, field_values(logs, name))
        if len(several):
            warnings.append(_several_message(len(several), name,
                                             topics.values[int(several[0])].as_py()))
    return warnings


def field_values(logs: Logs, field: str) -> Codes:
    """The codes of a text field's logged values, each value with its tabs and line breaks made
    one space and its blanks at the ends removed (:func:`pooljudge.formats.log_files.one_line`);
    values equal after that share one code, and a value left empty is no value (code -1). Only
    the distinct values are rewritten."""
    return _normalised(Codes.of(arrow_strings(logs.retrievals[field])))[0]


def normalised_values(logs: Logs, fields: tuple[str, ...] = GROUP_FIELDS,
                      index: LogIndex | None = None) -> list[str]:
    """One warning per field of ``fields`` whose first logged value (as logged) some query ids
    have changed by :func:`field_values`: ``n query id(s) have a FIELD value with tabs, line
    breaks or blanks at its ends: read as one line, the ends removed, a blank value as none
    (e.g. ID)``."""
    topics = (index or LogIndex.of(logs)).topics
    warnings = []
    for name in fields:
        raw = Codes.of(arrow_strings(logs.retrievals[name]))
        _, altered = _normalised(raw)
        rows, _ = _first_values(topics, raw)
        changed = altered[raw.codes[rows]]
        if changed.any():
            example = topics.values[int(topics.codes[rows][np.argmax(changed)])].as_py()
            warnings.append(f"{int(changed.sum())} query id(s) have a {name} value with tabs, "
                            "line breaks or blanks at its ends: read as one line, the ends "
                            f"removed, a blank value as none (e.g. {example})")
    return warnings


def _normalised(raw: Codes) -> tuple[Codes, np.ndarray]:
    """``raw`` with its distinct values made one line and trimmed (equal ones merged), and
    which of the distinct values that changed."""
    import pyarrow.compute as pc

    names, changed = one_line(raw.values, strip=True)
    if not changed:
        return raw, np.zeros(len(raw.values), dtype=bool)
    names = names.cast(raw.values.type)
    altered = pc.not_equal(names, raw.values).to_numpy(zero_copy_only=False)
    merged = Codes.of(pa.chunked_array([names]))
    recode = np.where(pc.equal(merged.values, "").to_numpy(zero_copy_only=False), -1,
                      np.arange(len(merged.values)))[merged.codes]
    return Codes(np.where(raw.codes < 0, -1, recode[np.maximum(raw.codes, 0)]),
                 merged.values), altered


def _several_message(count: int, field: str, example: str) -> str:
    return (f"{count} query id(s) are logged with several values of {field} (e.g. {example}): "
            "each is counted in its first")


def _first_values(topics: Codes, values: Codes) -> tuple[np.ndarray, np.ndarray]:
    """The row of each query id's first logged value (rows without a value skipped), in log
    order; and the codes (ascending) of the query ids logged with another value too."""
    given = np.flatnonzero(values.codes >= 0)
    codes, first = np.unique(topics.codes[given], return_index=True)
    first_code = np.full(len(topics.values), -1, dtype=np.int64)
    first_code[codes] = values.codes[given[first]]
    several = np.unique(topics.codes[given][values.codes[given] != first_code[
        topics.codes[given]]])
    return np.sort(given[first]), several


def select_queries(logs: Logs, ids: list[str]) -> tuple[Logs, list[str]]:
    """``logs`` restricted to the retrievals of the query ids ``ids``, and the ids it never
    logs (sorted)."""
    import pyarrow.compute as pc

    query_id = arrow_strings(logs.retrievals["query_id"])
    wanted = pa.array(list(dict.fromkeys(ids)), pa.string())
    keep = pc.is_in(query_id, value_set=wanted).to_numpy(zero_copy_only=False)
    missing = sorted(set(wanted.to_pylist()) - set(
        pc.unique(pc.filter(query_id, keep)).to_pylist()))
    renumber = np.cumsum(keep, dtype=np.int64) - 1
    owner = logs.results["retrieval"].to_numpy()
    rows = keep[owner]
    retrievals = logs.retrievals[keep].reset_index(drop=True)
    results = logs.results[rows].reset_index(drop=True)
    results["retrieval"] = renumber[owner[rows]].astype(np.int32)
    return Logs(logs.path, retrievals, results, logs.privacy), missing


def query_strata(logs: Logs, field: str | None, index: LogIndex | None = None
                 ) -> tuple[pd.DataFrame, list[str]]:
    """``query_id, stratum``: one row per query id (sorted), its stratum the first value of
    ``field`` logged for it (NA when none; ``all`` for every query when ``field`` is None); a
    warning counts query ids logged with several values."""
    topics = (index or LogIndex.of(logs)).topics
    ids = topics.texts()
    if field is None:
        return pd.DataFrame({"query_id": ids, "stratum": "all"}), []
    values = field_values(logs, field)
    rows, several = _first_values(topics, values)
    stratum = np.full(len(ids), None, dtype=object)
    stratum[topics.codes[rows]] = values.texts()[values.codes[rows]]
    warnings = []
    if len(several):
        warnings.append(_several_message(len(several), field, ids[several[0]]))
    return pd.DataFrame({"query_id": ids, "stratum": stratum}), warnings
