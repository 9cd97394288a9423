"""Judgments coded once as integers, and the co-judgment contingency tables built from them.

Shared by :mod:`pooljudge.annotate.agreement` and :mod:`pooljudge.annotate.consensus`. A judgments
frame has columns
``annotator, topic, doc, label`` (+ optional ``kind``), one row per annotator and pair (the latest
version). Labels are coded by their position in the ascending label scale.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from pooljudge.errors import InputError

__all__ = [
    "JUDGMENT_COLUMNS",
    "CoTables",
    "Coded",
    "co_judgment_tables",
    "code_judgments",
    "label_positions",
    "scale_values",
]

JUDGMENT_COLUMNS = ("annotator", "topic", "doc", "label")


@dataclass(frozen=True)
class Coded:
    """Judgments as integer codes: one entry per judgment in ``ann``, ``item``, ``topic``, ``pos``.

    ``pos`` is the label's position in ``scale`` (ascending); an item is one (topic, document).
    """

    scale: tuple[int, ...]
    annotators: np.ndarray
    topics: np.ndarray
    item_topic: np.ndarray
    item_doc: np.ndarray
    ann: np.ndarray
    item: np.ndarray
    topic: np.ndarray
    pos: np.ndarray

    @property
    def value_counts(self) -> np.ndarray:
        """items × scale matrix: how many annotators gave each label to each item."""
        width = len(self.scale)
        flat = np.bincount(self.item * width + self.pos, minlength=len(self.item_topic) * width)
        return flat.reshape(len(self.item_topic), width)


@dataclass(frozen=True)
class CoTables:
    """Contingency tables of two annotators' labels on the items both judged, one per topic.

    ``counts[r, i, j]``: items of topic ``topic[r]`` that annotator ``a[r]`` labelled ``scale[i]``
    and annotator ``b[r]`` labelled ``scale[j]`` (codes, ``a < b``); rows sorted by (a, b, topic).
    """

    a: np.ndarray
    b: np.ndarray
    topic: np.ndarray
    counts: np.ndarray


def scale_values(scale: Sequence[int]) -> np.ndarray:
    """The scale's labels ascending; InputError when empty or a label repeats."""
    values = np.unique(np.asarray(list(scale), dtype=np.int64))
    if len(values) == 0 or len(values) != len(scale):
        raise InputError(f"a label scale needs distinct labels, got {list(scale)}")
    return values


def label_positions(frame: pd.DataFrame, values: np.ndarray) -> np.ndarray:
    """Each row's label as its position in ``values``; InputError naming the first stray label."""
    labels = frame["label"].to_numpy(dtype=np.int64)
    pos = np.minimum(np.searchsorted(values, labels), len(values) - 1)
    outside = values[pos] != labels
    if outside.any():
        row = frame.iloc[int(np.argmax(outside))]
        raise InputError(f"label {row['label']} of {row['annotator']} on topic {row['topic']} "
                         f"doc {row['doc']} is not in the scale {values.tolist()}")
    return pos


def code_judgments(judgments: pd.DataFrame, scale: Sequence[int], *,
                   kind: str = "judgment") -> Coded:
    """Code a judgments frame; rows whose ``kind`` column differs from ``kind`` are left out.

    Raises InputError for a missing column, an empty scale or one with a repeated label, a label
    outside the scale, or an annotator judging one (topic, doc) twice (pass latest versions only).
    """
    missing = [c for c in JUDGMENT_COLUMNS if c not in judgments.columns]
    if missing:
        raise InputError(f"judgments lack column(s) {', '.join(missing)}")
    values = scale_values(scale)
    frame = judgments if "kind" not in judgments.columns else judgments[judgments["kind"] == kind]
    pos = label_positions(frame, values)
    ann, annotators = pd.factorize(frame["annotator"].astype(str), sort=True)
    topic, topics = pd.factorize(frame["topic"].astype(str), sort=True)
    docs = frame["doc"].astype(str).to_numpy()
    doc, _ = pd.factorize(docs)
    item, first_row = _factorize_with_first(topic.astype(np.int64) * (doc.max(initial=0) + 1) + doc)
    twice = pd.Series(item * max(len(annotators), 1) + ann).duplicated().to_numpy()
    if twice.any():
        row = frame.iloc[int(np.argmax(twice))]
        raise InputError(f"{row['annotator']} judged topic {row['topic']} doc {row['doc']} more "
                         "than once; pass only the latest version of each judgment")
    return Coded(scale=tuple(int(v) for v in values),
                 annotators=np.asarray(annotators, dtype=object),
                 topics=np.asarray(topics, dtype=object), item_topic=topic[first_row],
                 item_doc=docs[first_row], ann=ann, item=item, topic=topic, pos=pos)


def _factorize_with_first(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Codes ``0..k-1`` for ``keys`` (ascending key order) and the first row of each code."""
    _, first, codes = np.unique(keys, return_index=True, return_inverse=True)
    return codes.astype(np.int64), first


def co_judgment_tables(coded: Coded) -> CoTables:
    """Count every two annotators' co-judgments per topic into contingency tables.

    Judgments are sorted by (item, annotator); the d-th neighbour within an item is a co-judgment,
    so the loop runs over d (at most the largest number of labels one item has), not over rows.
    """
    width, n_ann, n_topics = len(coded.scale), len(coded.annotators), len(coded.topics)
    order = np.lexsort((coded.ann, coded.item))
    item, ann, pos = coded.item[order], coded.ann[order].astype(np.int64), coded.pos[order]
    topic = coded.topic[order].astype(np.int64)
    keys, weights = [], []
    for d in range(1, len(item)):
        near = np.flatnonzero(item[d:] == item[:-d])
        if len(near) == 0:
            break
        key = ((ann[near] * n_ann + ann[near + d]) * n_topics + topic[near]) * width + pos[near]
        unique, count = np.unique(key * width + pos[near + d], return_counts=True)
        keys.append(unique)
        weights.append(count)
    if not keys:
        empty = np.zeros(0, dtype=np.int64)
        return CoTables(empty, empty, empty, np.zeros((0, width, width), dtype=np.int64))
    unique, inverse = np.unique(np.concatenate(keys), return_inverse=True)
    count = np.bincount(inverse, weights=np.concatenate(weights)).astype(np.int64)
    cell, group = unique % (width * width), unique // (width * width)
    groups, row = np.unique(group, return_inverse=True)
    counts = np.bincount(row * width * width + cell, weights=count,
                         minlength=len(groups) * width * width).astype(np.int64)
    pair = groups // n_topics
    return CoTables(a=pair // n_ann, b=pair % n_ann, topic=groups % n_topics,
                    counts=counts.reshape(len(groups), width, width))
