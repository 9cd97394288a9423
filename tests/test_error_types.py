"""Every public function that refuses bad input raises the project's error type: InputError for
bad data, UsageError for a bad argument value, never a bare ValueError that callers would have
to translate one by one. (Pooling's own table: tests/pooling/test_input_errors.py.)"""

from __future__ import annotations

from collections.abc import Callable

import pandas as pd
import pytest
from pooljudge.annotate.autojudge.retry import RetryPolicy
from pooljudge.annotate.calibration import stratified_sample
from pooljudge.annotate.judgment_codes import code_judgments, label_positions, scale_values
from pooljudge.annotate.keymap import canonical_key
from pooljudge.annotate.ppi import classical_mean, ppi_mean
from pooljudge.annotate.records import MAX_LABELS, Label, LabelScale
from pooljudge.annotate.standing import annotator_statistics
from pooljudge.annotate.store.frames import read_judgments
from pooljudge.metrics.bias import group_by_prefix, leave_out
from pooljudge.metrics.compare import compare
from pooljudge.metrics.correlate import tau_ap

from pooljudge.errors import InputError, PoolJudgeError, UsageError

PER_TOPIC = pd.DataFrame({"run": ["a", "a"], "topic": ["1", "2"], "measure": ["AP", "AP"],
                          "value": [0.5, 0.25]})
QRELS = pd.DataFrame({"topic": ["1"], "doc": ["d"], "label": [1]})
RUNS = {name: pd.DataFrame({"topic": ["1"], "doc": ["d"], "score": [1.0]}) for name in "xy"}
JUDGMENTS = pd.DataFrame({"annotator": ["ann", "ann"], "topic": ["1", "1"], "doc": ["d", "d"],
                          "label": [0, 1]})
CANDIDATES = pd.DataFrame({"pair_id": [1, 2], "label": [0, 1]})
# No query is issued before the argument is checked: no database is needed.
NO_SESSION = None

CASES: dict[str, tuple[Callable[[], object], type[PoolJudgeError], str]] = {
    "compare baseline": (lambda: compare(PER_TOPIC, baseline="b"), UsageError,
                         "baseline 'b' is not among the runs: a"),
    "compare one run": (lambda: compare(PER_TOPIC), UsageError,
                        "comparing needs at least two runs"),
    "group_by_prefix": (lambda: group_by_prefix(["a"], 0), UsageError,
                        "prefix length must be at least 1, got 0"),
    "leave_out groups": (lambda: leave_out(QRELS, RUNS, 3, groups={"x": "g"}), InputError,
                         "no group for run(s) y"),
    "tau_ap": (lambda: tau_ap(["a", "b"], ["a", "c"]), InputError,
               "tau_AP needs two orderings of the same distinct items"),
    "LabelScale empty": (lambda: LabelScale(()), InputError,
                         "a label scale needs at least one label"),
    "LabelScale repeat": (lambda: LabelScale((Label(1, "a"), Label(1, "b"))), InputError,
                          "label values repeat: [1, 1]"),
    "LabelScale.range order": (lambda: LabelScale.range(3, 1), InputError,
                               "a graded scale needs lo < hi, got 3-1"),
    "LabelScale.range size": (lambda: LabelScale.range(0, MAX_LABELS), InputError,
                              f"a scale has at most {MAX_LABELS} labels"),
    "canonical_key fixed": (lambda: canonical_key("Escape"), InputError,
                            "has a fixed meaning on the page"),
    "canonical_key modifier": (lambda: canonical_key("Ctrl+x"), InputError,
                               "'Ctrl+x': combinations with modifiers cannot be bound"),
    "canonical_key unknown": (lambda: canonical_key("nokey"), InputError,
                              "'nokey' is not a key"),
    "scale_values": (lambda: scale_values([0, 0]), InputError,
                     "a label scale needs distinct labels, got [0, 0]"),
    "label_positions": (lambda: label_positions(JUDGMENTS, scale_values([0])), InputError,
                        "label 1 of ann on topic 1 doc d is not in the scale [0]"),
    "code_judgments column": (lambda: code_judgments(JUDGMENTS.drop(columns="doc"), [0, 1]),
                              InputError, "judgments lack column(s) doc"),
    "code_judgments twice": (lambda: code_judgments(JUDGMENTS, [0, 1]), InputError,
                             "ann judged topic 1 doc d more than once"),
    "classical_mean": (lambda: classical_mean([1.0], confidence=1.0), UsageError,
                       "confidence must lie strictly between 0 and 1, got 1.0"),
    "ppi_mean": (lambda: ppi_mean([1.0], [1.0, 0.0], [0.5]), InputError,
                 "y and f_labelled must have one value per labelled unit each"),
    "stratified_sample": (lambda: stratified_sample(CANDIDATES, -1), UsageError,
                          "n must be >= 0, got -1"),
    "RetryPolicy attempts": (lambda: RetryPolicy(max_attempts=0), UsageError,
                             "max_attempts must be at least 1, got 0"),
    "RetryPolicy waits": (lambda: RetryPolicy(base=-1.0), UsageError, "waits must be >= 0"),
    "read_judgments": (lambda: read_judgments(NO_SESSION, campaign_id=1, columns=["nope"]),
                       UsageError, "unknown judgment column(s) nope"),
    "annotator_statistics": (lambda: annotator_statistics(NO_SESSION, campaign="c", block=0),
                             UsageError, "block must be >= 1, got 0"),
}


@pytest.mark.parametrize(("call", "kind", "message"), CASES.values(), ids=CASES)
def test_bad_input_raises_the_project_error_type(call, kind, message):
    with pytest.raises(kind) as raised:
        call()
    assert message in str(raised.value)
    assert not isinstance(raised.value, ValueError)
