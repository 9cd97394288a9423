"""Three real retrieval methods over the demo collection, each producing a TREC run frame.

- ``tfidf``: cosine similarity of scikit-learn TF-IDF vectors (sublinear tf, l2-normalised), so a
  score is ``q·d / (|q| |d|)``.
- ``bm25``: Okapi BM25 with ``k1 = 1.2, b = 0.75`` and the non-negative idf
  ``log(1 + (N - df + 0.5) / (df + 0.5))``, computed for all documents at once on a scipy sparse
  matrix: ``w(t, d) = idf(t) · tf (k1 + 1) / (tf + k1 (1 - b + b |d| / avgdl))``, score = Σ over
  query terms (with their query frequency).
- ``chargram``: TF-IDF cosine over character 3–5-grams inside word boundaries, which matches
  morphological variants (``format`` ~ ``formatting``) that word methods miss.

Documents scoring 0 are not retrieved. Each function returns ``topic, doc, score, tag`` for the
top ``depth`` documents per topic; ties are left to the shared ranking order when written.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import scipy.sparse as sp
from sklearn.feature_extraction.text import CountVectorizer, TfidfVectorizer

__all__ = ["bm25_run", "chargram_run", "tfidf_run"]

_TOKEN = r"(?u)\b[a-zA-Z_][a-zA-Z0-9_]+\b"


def tfidf_run(documents: pd.DataFrame, queries: pd.Series, *, depth: int = 50,
              tag: str = "tfidf") -> pd.DataFrame:
    """Word TF-IDF cosine; ``queries`` is indexed by topic id."""
    vectorizer = TfidfVectorizer(token_pattern=_TOKEN, sublinear_tf=True, stop_words="english")
    doc_matrix = vectorizer.fit_transform(_texts(documents))
    scores = (vectorizer.transform(queries.to_numpy()) @ doc_matrix.T).toarray()
    return _top(scores, queries.index, documents["id"], depth, tag)


def chargram_run(documents: pd.DataFrame, queries: pd.Series, *, depth: int = 50,
                 tag: str = "chargram") -> pd.DataFrame:
    """Character 3–5-gram TF-IDF cosine (within word boundaries)."""
    vectorizer = TfidfVectorizer(analyzer="char_wb", ngram_range=(3, 5), sublinear_tf=True,
                                 min_df=2)
    doc_matrix = vectorizer.fit_transform(_texts(documents))
    scores = (vectorizer.transform(queries.str.lower().to_numpy()) @ doc_matrix.T).toarray()
    return _top(scores, queries.index, documents["id"], depth, tag)


def bm25_run(documents: pd.DataFrame, queries: pd.Series, *, depth: int = 50, k1: float = 1.2,
             b: float = 0.75, tag: str = "bm25") -> pd.DataFrame:
    """Okapi BM25 (formula in the module docstring), vectorised over a sparse term matrix."""
    counter = CountVectorizer(token_pattern=_TOKEN, stop_words="english")
    tf = sp.csr_matrix(counter.fit_transform(_texts(documents)), dtype=np.float64)
    n_docs = tf.shape[0]
    lengths = np.asarray(tf.sum(axis=1)).ravel()
    df = np.bincount(tf.indices, minlength=tf.shape[1])
    idf = np.log1p((n_docs - df + 0.5) / (df + 0.5))
    norm = k1 * (1.0 - b + b * lengths / max(lengths.mean(), 1e-9))
    row_of_value = np.repeat(np.arange(n_docs), np.diff(tf.indptr))
    weights = tf.copy()
    weights.data = idf[tf.indices] * tf.data * (k1 + 1.0) / (tf.data + norm[row_of_value])
    query_tf = counter.transform(queries.to_numpy())
    scores = (query_tf @ weights.T).toarray()
    return _top(scores, queries.index, documents["id"], depth, tag)


def _texts(documents: pd.DataFrame) -> np.ndarray:
    return (documents["title"] + "\n" + documents["text"]).to_numpy()


def _top(scores: np.ndarray, topics: pd.Index, doc_ids: pd.Series, depth: int,
         tag: str) -> pd.DataFrame:
    """The ``depth`` best-scoring documents with a positive score per topic (row of ``scores``)."""
    depth = min(depth, scores.shape[1])
    best = np.argsort(-scores, axis=1, kind="stable")[:, :depth]
    rows = np.repeat(np.arange(scores.shape[0]), depth)
    cols = best.ravel()
    values = scores[rows, cols]
    keep = values > 0
    return pd.DataFrame({
        "topic": np.asarray(topics, dtype=object)[rows[keep]],
        "doc": doc_ids.to_numpy(dtype=object)[cols[keep]],
        "score": np.round(values[keep], 6),
        "tag": tag,
    })
