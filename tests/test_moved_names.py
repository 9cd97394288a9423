"""Names moved out of a module into a new one stay importable where they were: the same objects,
re-exported, so callers of either place agree (join → qrels_lookup, evaluate → eval_inputs,
logs → log_index and log_queries, formats._columns → formats._fields)."""

from __future__ import annotations

import importlib

import pytest

MOVED = [
    ("pooljudge.metrics.join", "pooljudge.metrics.qrels_lookup",
     ["UNJUDGED", "Qrels", "prepare_qrels"]),
    ("pooljudge.metrics.evaluate", "pooljudge.metrics.eval_inputs",
     ["QrelsInput", "RunsInput", "PrelsInput", "load_qrels", "load_runs", "parse_all"]),
    ("pooljudge.metrics.logs", "pooljudge.metrics.log_index", ["Codes", "LogIndex", "run_names"]),
    ("pooljudge.metrics.logs", "pooljudge.metrics.log_queries",
     ["GROUP_FIELDS", "log_topics", "query_strata", "select_queries", "topic_groups"]),
    ("pooljudge.formats._columns", "pooljudge.formats._fields", ["clip", "parse", "parse_bytes"]),
]

# Each old module's ``__all__`` before the move: every name is still exported.
EXPORTED = {
    "pooljudge.metrics.join": ["UNJUDGED", "Labelled", "Qrels", "Ranking", "join", "label", "merge",
                     "prepare_qrels", "rank"],
    "pooljudge.metrics.evaluate": ["DEFAULT_MEASURES", "RunResult", "evaluate", "load_qrels",
                                   "load_runs",
                         "score", "score_all", "tidy"],
    "pooljudge.metrics.logs": ["GROUP_FIELDS", "RUN_COLUMNS", "Codes", "LogIndex", "LogRuns",
                               "log_runs",
                     "log_topics", "query_strata", "run_names", "select_queries",
                     "topic_groups"],
    "pooljudge.formats._columns": [
        "QRELS_FIELDS", "RUN_FIELDS", "QrelsColumns", "RunColumns", "clip", "encode",
        "encode_grouped", "encode_run", "encode_run_table", "first_duplicate", "int_array",
        "numpy_of", "parse", "parse_bytes", "parse_run", "parse_run_bytes", "read_qrels_columns",
        "read_run_columns",
    ],
}


@pytest.mark.parametrize(("old", "new", "names"), MOVED, ids=[f"{o}->{n}" for o, n, _ in MOVED])
def test_a_moved_name_is_the_same_object_in_both_places(old, new, names):
    before, after = importlib.import_module(old), importlib.import_module(new)
    for name in names:
        assert getattr(before, name) is getattr(after, name), name
        assert name in after.__all__, name


@pytest.mark.parametrize("module", sorted(EXPORTED))
def test_every_name_a_module_exported_is_still_exported(module):
    loaded = importlib.import_module(module)
    assert set(EXPORTED[module]) <= set(loaded.__all__)
    for name in EXPORTED[module]:
        assert hasattr(loaded, name), name


def test_the_moved_functions_live_in_their_new_modules():
    """Defined once, in the new module (not copied into the old one)."""
    for _old, new, names in MOVED:
        module = importlib.import_module(new)
        for name in names:
            value = getattr(module, name)
            if callable(value) and hasattr(value, "__module__"):
                assert value.__module__ == new, name
