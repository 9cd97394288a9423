"""The knee rule against tarexp's ``KneeStoppingRule`` (tarexp 0.1.4, a test dependency).

Deliberate difference, after reading both sources and Cormack & Grossman (SIGIR 2016): the
paper finds the knee i* as the rank farthest from the line through (0, 0) and (s, g(s)) and
stops when s ≥ 150 and ρ(i*) ≥ 156 − min(g(s), 150); tarexp takes ρ_s = max_i ρ(i) over every
round instead of ρ at the knee, and has no s ≥ 150 floor. pooljudge follows the paper, so
(one document per round) whenever pooljudge stops tarexp stops too, never the reverse, and
the two agree wherever the knee is the rank maximising ρ.
"""
from __future__ import annotations

import numpy as np
import pytest
from pooljudge.pooling.stopping import knee_stop

stopping = pytest.importorskip("tarexp.component.stopping")


class _Ledger:
    """The two things tarexp's rule reads from its ledger, one document per round."""

    def __init__(self, labels: np.ndarray) -> None:
        self.n_rounds = len(labels)
        self._labels = labels

    def getAnnotationCounts(self) -> list[dict[int, int]]:
        return [{int(x): 1} for x in self._labels]


def _tarexp_stops(labels: np.ndarray) -> bool:
    return bool(stopping.KneeStoppingRule().checkStopping(_Ledger(labels)))


def _rho(labels: np.ndarray) -> tuple[int, int]:
    """(knee rank by distance, rank maximising ρ), both 1-based."""
    s, gain = len(labels), np.cumsum(labels)
    ranks = np.arange(1, s + 1)
    knee = int(np.argmax(gain * s - ranks * gain[-1])) + 1
    rho = (gain / ranks) / ((gain[-1] - gain + 1) / np.maximum(s - ranks, 1))
    return knee, int(np.argmax(rho[:-1])) + 1


def _rankings(seed: int, count: int):
    rng = np.random.default_rng(seed)
    for _ in range(count):
        s = int(rng.integers(150, 1200))
        decay = rng.uniform(0.002, 0.05)
        p = rng.uniform(0.3, 0.9) * np.exp(-decay * np.arange(s))
        yield (rng.random(s) < p).astype(np.int64)


def test_pooljudge_stops_only_where_tarexp_stops() -> None:
    both = only_tarexp = same_knee = 0
    for labels in _rankings(0, 300):
        ours, theirs = knee_stop(labels), _tarexp_stops(labels)
        assert not (ours and not theirs)
        both += ours and theirs
        only_tarexp += theirs and not ours
        knee, best = _rho(labels)
        if knee == best and labels.sum() > 0:
            same_knee += 1
            assert ours == theirs
    assert both > 20 and same_knee > 20
