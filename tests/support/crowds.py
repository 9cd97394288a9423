"""Generated crowds with known truth: careful workers, sloppy ones, spammers and adversaries
on binary and graded scales, 1 to 5 labels per pair (the consensus models' tests)."""

from __future__ import annotations

import numpy as np
import pandas as pd


def _confusion(kind: str, k: int, rng: np.random.Generator) -> np.ndarray:
    """A worker's confusion matrix (true row, given column)."""
    eye = np.eye(k)
    if kind == "good":
        accuracy = rng.uniform(0.75, 0.95)
        near = np.exp(-np.abs(np.subtract.outer(np.arange(k), np.arange(k))))
        near[eye.astype(bool)] = 0
        near /= near.sum(axis=1, keepdims=True)
        return accuracy * eye + (1 - accuracy) * near
    if kind == "spammer":
        return np.tile(rng.dirichlet(np.ones(k)), (k, 1))
    if kind == "adversary":  # mostly the reversed grade
        flipped = eye[::-1]
        return 0.7 * flipped + 0.3 * np.full((k, k), 1 / k)
    return 0.5 * eye + 0.5 * np.full((k, k), 1 / k)  # "sloppy"


def crowd(seed: int, *, scale: tuple[int, ...], n_pairs: int = 400,
          kinds: dict[str, int] | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(judgments ``annotator, topic, doc, label``, truth ``topic, doc, label``)."""
    rng = np.random.default_rng(seed)
    kinds = kinds or {"good": 5, "sloppy": 3, "spammer": 3, "adversary": 1}
    k = len(scale)
    names = [f"{kind}{i}" for kind, n in kinds.items() for i in range(n)]
    matrices = np.stack([_confusion(kind, k, rng) for kind, n in kinds.items()
                         for _ in range(n)])
    truth = rng.choice(k, size=n_pairs, p=rng.dirichlet(np.full(k, 3.0)))
    per_pair = rng.integers(1, 6, size=n_pairs)
    pair = np.repeat(np.arange(n_pairs), per_pair)
    # each pair's workers: distinct, drawn without replacement
    keys = rng.random((n_pairs, len(names))).argsort(axis=1)
    worker = keys[pair, np.concatenate([np.arange(n) for n in per_pair])]
    cumulative = matrices[worker, truth[pair]].cumsum(axis=1)
    given = (rng.random(len(pair))[:, None] > cumulative).sum(axis=1).clip(max=k - 1)
    values = np.asarray(scale)
    topic = np.char.add("t", (np.arange(n_pairs) % 7).astype(str))
    doc = np.char.add("d", np.arange(n_pairs).astype(str))
    judgments = pd.DataFrame({"annotator": np.asarray(names)[worker], "topic": topic[pair],
                              "doc": doc[pair], "label": values[given]})
    return judgments, pd.DataFrame({"topic": topic, "doc": doc, "label": values[truth]})
