"""CAL retrain + re-rank at 20,000 generated documents per topic, against a plain baseline.

The collection: N documents of 120 words drawn from a Zipf vocabulary of 30,000 words; 1% are
relevant and also carry topic words. A topic mid-review has J documents judged (the best J by
the topic text, as CAL's first rounds would have found them). Timed, each repeated and
interleaved, the median printed:

- pooljudge: :meth:`pooljudge.pooling.cal.CalRanker.next_batch` over features computed once
  per collection (train on topic + judged + 100 presumed negatives, score all rows with one
  sparse product, take the next batch with argpartition);
- baseline (plain scikit-learn, refit from scratch with default settings each round):
  ``make_pipeline(TfidfVectorizer(), LogisticRegression())`` fitted on the topic text and the
  judged documents' texts, ``predict_proba`` on all N texts, a full ``argsort``.

Goal: pooljudge < 1 s. Usage: ``python benchmarks/cal_speed.py [--docs N] [--judged J]
[--repeat R]``.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np
from pooljudge.pooling.cal import CalRanker, collection_features

TOPIC = "hypersonic shock wave boundary layer transition"
GOAL_SECONDS = 1.0


def generate(n_docs: int, seed: int = 0) -> tuple[list[str], np.ndarray]:
    """(texts, 0/1 relevance): Zipf filler words, relevant documents with topic words too."""
    rng = np.random.default_rng(seed)
    vocabulary = np.array([f"w{i}" for i in range(30_000)])
    ranks = np.minimum(rng.zipf(1.2, size=(n_docs, 120)) - 1, len(vocabulary) - 1)
    truth = (rng.random(n_docs) < 0.01).astype(np.int64)
    topical = TOPIC.split()
    texts = []
    for row, rel in zip(ranks, truth, strict=True):
        words = list(vocabulary[row])
        if rel:
            words += list(rng.choice(topical, 6))
        texts.append(" ".join(words))
    return texts, truth


def baseline_round(texts: list[str], judged: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """Plain scikit-learn, refit from scratch: the whole ranking of every document."""
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline

    model = make_pipeline(TfidfVectorizer(), LogisticRegression())
    model.fit([TOPIC] + [texts[i] for i in judged], np.concatenate([[1], labels]))
    scores = model.predict_proba(texts)[:, 1]
    scores[judged] = -np.inf
    return np.argsort(-scores, kind="stable")


def measure(n_docs: int, n_judged: int, repeat: int) -> dict[str, float]:
    """Median seconds of one retrain + re-rank, ours and the baseline's; features' one-off cost."""
    texts, truth = generate(n_docs)
    started = time.perf_counter()
    docs, topics = collection_features(texts, [TOPIC])
    features_seconds = time.perf_counter() - started
    first = np.argsort(-(docs @ topics[0].T).toarray().ravel(), kind="stable")[:n_judged]
    judged, labels = first, truth[first]
    ranker = CalRanker(docs, topics[0])
    ours, base = [], []
    for _ in range(repeat):
        started = time.perf_counter()
        ranker.next_batch(judged, labels, 100)
        ours.append(time.perf_counter() - started)
        started = time.perf_counter()
        baseline_round(texts, judged, labels)
        base.append(time.perf_counter() - started)
    return {"features": features_seconds, "pooljudge": statistics.median(ours),
            "baseline": statistics.median(base), "relevant_judged": float(labels.sum())}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=int, default=20_000)
    parser.add_argument("--judged", type=int, default=1_000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    result = measure(args.docs, args.judged, args.repeat)
    print(f"{args.docs} documents, {args.judged} judged "
          f"({int(result['relevant_judged'])} relevant); features once: "
          f"{result['features']:.2f} s")
    print(f"pooljudge retrain + re-rank: {result['pooljudge'] * 1000:.0f} ms (median of "
          f"{args.repeat}; goal < {GOAL_SECONDS:g} s: "
          f"{'met' if result['pooljudge'] < GOAL_SECONDS else 'MISSED'})")
    print(f"baseline (TfidfVectorizer + LogisticRegression refit, defaults): "
          f"{result['baseline'] * 1000:.0f} ms")
    print(f"ratio baseline / pooljudge: {result['baseline'] / result['pooljudge']:.1f}x")


if __name__ == "__main__":
    main()
