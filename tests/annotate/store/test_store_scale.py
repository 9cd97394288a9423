"""Label scales: at most MAX_LABELS labels (counted before any is built), and JSON scale files
read exactly (no key ignored, none given twice, no value converted)."""

from __future__ import annotations

import json
import time

import pytest
from pooljudge.annotate.records import MAX_LABELS, LabelScale

from pooljudge.errors import InputError


@pytest.mark.parametrize(("lo", "hi"), [(0, MAX_LABELS - 1), (-50, 49)])
def test_a_range_of_max_labels_is_a_scale(lo, hi):
    assert LabelScale.range(lo, hi).values == tuple(range(lo, hi + 1))


@pytest.mark.parametrize("hi", [MAX_LABELS, 10**12])
def test_a_larger_range_is_refused_before_building_it(hi):
    started = time.perf_counter()
    with pytest.raises(InputError, match=f"at most {MAX_LABELS} labels, got {hi + 1}"):
        LabelScale.range(0, hi)
    assert time.perf_counter() - started < 1.0


@pytest.mark.parametrize(("data", "message"), [
    ([{"value": v} for v in range(MAX_LABELS + 1)], f"at most {MAX_LABELS} labels, got 101"),
    ({"labels": [{"value": 0}], "extra": 1}, "expected only the key 'labels'"),
    ([{"value": 0, "descripton": "typo"}], "label 0: unknown key(s) descripton"),
    ([{"value": 0, "name": 1}], "label 0: name must be text"),
    ([{"value": 0, "description": ["a"]}], "label 0: description must be text"),
    ([{"value": 1.0}], "each label needs an integer 'value'"),
    ([{"value": True}], "each label needs an integer 'value'"),
    ([{"value": 0}, {"value": 0}], "label values repeat"),
    ([], "expected a non-empty list of labels"),
], ids=["too-many", "top-key", "label-key", "name", "description", "float", "bool", "repeat",
        "empty"])
def test_a_scale_that_cannot_be_read_exactly_is_refused(data, message):
    with pytest.raises(InputError, match=message.replace("(", r"\(").replace(")", r"\)")):
        LabelScale.from_data(data, source="s.json")


def test_a_key_given_twice_in_a_scale_file_is_refused(tmp_path):
    path = tmp_path / "s.json"
    path.write_text('[{"value": 0, "name": "no", "name": "yes"}, {"value": 1}]',
                    encoding="utf-8")
    with pytest.raises(InputError, match="key 'name' appears twice"):
        LabelScale.from_json(path)


def test_a_stored_scale_reads_back_unchanged():
    scale = LabelScale.from_data([{"value": 2, "name": "high", "description": "d"},
                                  {"value": 0}, {"value": 1, "name": ""}])
    assert [(x.value, x.name, x.description) for x in scale.labels] == [
        (0, "0", ""), (1, "", ""), (2, "high", "d")]
    assert LabelScale.from_data(json.loads(scale.to_json())) == scale
