"""A retrieval log's queries (:class:`pooljudge.formats.logs.Logs`): what each query id is, what
it belongs to, and a chosen few of them.

- **Topics** (:func:`log_topics`): ``id, title`` — each query id with its first logged text.
- **Topic groups** (:func:`topic_groups`): ``topic, group`` with groups ``category=billing``,
  ``language=en``, ``tenant=acme`` (a topic logged with two values of a field is in both), the
  frame ``pooljudge.metrics.groups.group_means`` reads.
- **Strata** (:func:`query_strata`): ``query_id, stratum``, each query id in the stratum of its
  first logged value of a field, which ``pooljudge.pooling.query_sample.sample_queries`` samples
  from.
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

from pooljudge.formats.logs import Logs

__all__ = ["GROUP_FIELDS", "log_topics", "query_strata", "select_queries", "topic_groups"]

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
    """``topic, group``: every (query id, ``field=value``) logged, each pair once, in the order
    of ``fields`` then of first appearance (``string[pyarrow]`` columns)."""
    import pyarrow.compute as pc

    topics = (index or LogIndex.of(logs)).topics
    topic_rows, group_parts = [], []
    for name in fields:
        values = Codes.of(arrow_strings(logs.retrievals[name]))
        given = np.flatnonzero(values.codes >= 0)
        key = topics.codes[given].astype(np.int64) * (len(values.values) + 1) + values.codes[
            given]
        rows = given[~pd.Series(key, copy=False).duplicated().to_numpy()]
        topic_rows.append(topics.codes[rows])
        named = pc.binary_join_element_wise(f"{name}=", values.values, "")
        group_parts.append(named.take(pa.array(values.codes[rows])))
    topic = topics.values.take(pa.array(np.concatenate([np.zeros(0, np.int32), *topic_rows])))
    group = pa.chunked_array(group_parts, pa.string())
    return pd.DataFrame({"topic": string_column(topic), "group": string_column(group)}, copy=False)


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
    values = Codes.of(arrow_strings(logs.retrievals[field]))
    given = np.flatnonzero(values.codes >= 0)
    stratum = np.full(len(ids), None, dtype=object)
    codes, first = np.unique(topics.codes[given], return_index=True)
    texts = values.texts()
    stratum[codes] = texts[values.codes[given[first]]]
    first_code = np.full(len(ids), -1, dtype=np.int32)
    first_code[codes] = values.codes[given[first]]
    several = np.unique(topics.codes[given][values.codes[given] != first_code[
        topics.codes[given]]])
    warnings = []
    if len(several):
        warnings.append(f"{len(several)} query id(s) are logged with several values of "
                        f"{field} (e.g. {ids[several[0]]}): each is counted in its first")
    return pd.DataFrame({"query_id": ids, "stratum": stratum}), warnings
