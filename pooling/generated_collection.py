"""Generated review collections with controlled prevalence: documents, topics, complete qrels.

Each document is ``words`` filler words drawn uniformly from a vocabulary of ``vocabulary``
(``w0`` …). Topic k has six topical words of its own (``k{k}a`` … ``k{k}f``) and a title of
four of them. Its relevant documents (``relevant[k]`` of them, drawn without replacement) each
add 1–4 of the topic's words — the strength varies, so some relevant documents are hard to
find — and each non-relevant document adds one of them with probability ``noise`` (so the
ranking is imperfect). Prevalence is ``relevant[k] / documents``; a document may be relevant
to several topics. Deterministic for a seed. Vectorised per topic: no loop per document.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from pooljudge.errors import UsageError

__all__ = ["GeneratedCollection", "generate_collection"]

TOPIC_WORDS = 6


@dataclass(frozen=True)
class GeneratedCollection:
    """``documents`` (id, title, text), ``topics`` (id, title, description, narrative) and
    ``qrels`` (topic, doc, label: 1 for each relevant pair, 0 for none listed)."""

    documents: pd.DataFrame
    topics: pd.DataFrame
    qrels: pd.DataFrame


def generate_collection(documents: int, relevant: Sequence[int], *, seed: int = 0,
                        vocabulary: int = 3000, words: int = 40,
                        noise: float = 0.05) -> GeneratedCollection:
    """A collection of ``documents`` documents and one topic per entry of ``relevant`` (its
    number of relevant documents, 1 … ``documents``)."""
    if documents < 1:
        raise UsageError(f"a collection needs at least one document, got {documents}")
    bad = [count for count in relevant if not 1 <= count <= documents]
    if bad:
        raise UsageError(f"a topic's relevant documents must lie in 1..{documents}, got {bad[0]}")
    rng = np.random.default_rng(seed)
    filler = np.char.add("w", np.arange(vocabulary).astype(str)).astype(object)
    body = filler[rng.integers(0, vocabulary, (documents, words))]
    extra = np.full(documents, "", dtype=object)
    qrels, topics = [], []
    for k, count in enumerate(relevant, start=1):
        own = np.array([f"k{k}{chr(97 + i)}" for i in range(TOPIC_WORDS)], dtype=object)
        chosen = rng.choice(documents, count, replace=False)
        strength = (rng.random(documents) < noise).astype(np.int64)
        strength[chosen] = rng.integers(1, 5, count)
        for level in range(1, 5):
            rows = np.flatnonzero(strength == level)
            picks = own[rng.integers(0, TOPIC_WORDS, (len(rows), level))]
            extra[rows] = extra[rows] + " " + _joined(picks)
        topics.append({"id": str(k), "title": " ".join(own[:4]), "description": "",
                       "narrative": ""})
        qrels.append(pd.DataFrame({"topic": str(k), "doc": np.sort(chosen), "label": 1}))
    ids = np.char.add("d", np.arange(documents).astype(str)).astype(object)
    text = _joined(body) + extra
    frame = pd.DataFrame({"id": ids, "title": "", "text": text})
    judged = pd.concat(qrels, ignore_index=True)
    judged["doc"] = ids[judged["doc"].to_numpy()]
    return GeneratedCollection(frame, pd.DataFrame(topics), judged)


def _joined(words: np.ndarray) -> np.ndarray:
    """Each row of a 2-D array of words joined by spaces (a 1-D object array)."""
    if words.shape[1] == 0:
        return np.full(len(words), "", dtype=object)
    out = words[:, 0].copy()
    for column in range(1, words.shape[1]):
        out = out + " " + words[:, column]
    return out
