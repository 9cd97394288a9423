"""Latent-label models of a crowd, fitted by EM over coded labels: Dawid–Skene, one-coin
Dawid–Skene and MACE (GLAD is :mod:`pooljudge.annotate.crowd_glad`).

Input is a :class:`Crowd`: one entry per label in ``item``, ``worker``, ``pos`` (integer codes;
``pos`` in ``0..K-1``), and ``gold`` per item (a known label position, or -1). Every step is
vectorised over the labels (``np.bincount`` per class; no Python loop per label).

The models follow crowd-kit 1.4.2 step for step (same initialisation, same stopping rule), so
their decisions agree with it (``tests/annotate/test_crowd_models.py``):

- **Dawid–Skene** (1979): worker ``w`` answers ``l`` to an item of true class ``c`` with
  probability ``e_w[l, c]``; classes have priors ``π``. Starts from the majority vote's shares,
  then alternates M (``e_w[l, c] ∝ max(Σ_{w's items answered l} P(c), 1e-10)``, ``π = mean P``)
  and E (``P(c) ∝ π_c Π e_w[l, c]``) until the evidence lower bound per label gains < ``tol``
  or ``n_iter`` passes.
- **one-coin Dawid–Skene**: ``e_w[l, c] = s_w`` when ``l = c``, else ``(1 − s_w)/(K − 1)``, with
  ``s_w`` the mean posterior of the label ``w`` gave (clipped to [1e-10, 1 − 1e-10]).
- **MACE** (Hovy et al. 2013), variational Bayes: worker ``w`` knows the answer with probability
  ``k_w`` and otherwise answers ``l`` with probability ``ξ_w[l]``; Beta(0.5, 0.5) and
  Dirichlet(10) priors, a random start (``RandomState(seed)``, uniform on [1, 2.5], rows
  normalised) and ``n_iter`` passes. crowd-kit's restarts all start from the same seed, so one
  run gives the same result.

Gold labels clamp an item's posterior to its known class after every E step (crowd-kit's
``true_labels``). With one class in use every item's posterior is that class.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import digamma

__all__ = ["EPS", "Crowd", "CrowdFit", "dawid_skene", "mace", "majority_shares", "one_coin"]

EPS = 1e-10


@dataclass(frozen=True)
class Crowd:
    """Coded labels: ``item``, ``worker``, ``pos`` per label; ``gold`` per item (-1: none)."""

    item: np.ndarray
    worker: np.ndarray
    pos: np.ndarray
    n_items: int
    n_workers: int
    n_labels: int
    gold: np.ndarray

    def per_class(self, values: np.ndarray) -> np.ndarray:
        """items × K sums over each item's labels of ``values`` (labels × K)."""
        return np.stack([np.bincount(self.item, weights=values[:, c], minlength=self.n_items)
                         for c in range(values.shape[1])], axis=1)

    def clamp(self, posterior: np.ndarray) -> np.ndarray:
        """Posterior rows of gold items set to their known class."""
        known = self.gold >= 0
        if known.any():
            posterior[known] = 0.0
            posterior[np.flatnonzero(known), self.gold[known]] = 1.0
        return posterior


@dataclass(frozen=True)
class CrowdFit:
    """A fitted model: ``posterior`` (items × K), ``competence`` per worker (the probability
    of a correct label), ``confusion`` (workers × true class × given label, or None),
    ``priors`` (K) and the EM ``iterations`` run."""

    posterior: np.ndarray
    competence: np.ndarray
    confusion: np.ndarray | None
    priors: np.ndarray
    iterations: int


def majority_shares(crowd: Crowd) -> np.ndarray:
    """Each item's vote shares (items × K): the majority vote's posterior."""
    k = crowd.n_labels
    counts = np.bincount(crowd.item * k + crowd.pos, minlength=crowd.n_items * k)
    counts = counts.reshape(crowd.n_items, k).astype(float)
    return counts / counts.sum(axis=1, keepdims=True)


def _ds_errors(crowd: Crowd, posterior: np.ndarray) -> np.ndarray:
    """M step: e[w, l, c] ∝ max(Σ P(c) over w's labels l, 1e-10), 0 where w never said l."""
    k, cell = crowd.n_labels, crowd.worker * crowd.n_labels + crowd.pos
    size = crowd.n_workers * k
    sums = np.stack([np.bincount(cell, weights=posterior[crowd.item, c], minlength=size)
                     for c in range(k)], axis=1).reshape(crowd.n_workers, k, k)
    said = (np.bincount(cell, minlength=size) > 0).reshape(crowd.n_workers, k, 1)
    errors = np.where(said, np.maximum(sums, EPS), 0.0)
    return errors / errors.sum(axis=1, keepdims=True)


def _one_coin_errors(crowd: Crowd, posterior: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Skills s_w (mean posterior of the given label) and their one-coin error tensor."""
    k = crowd.n_labels
    skill = (np.bincount(crowd.worker, weights=posterior[crowd.item, crowd.pos],
                         minlength=crowd.n_workers) / np.bincount(crowd.worker,
                                                                  minlength=crowd.n_workers))
    off = (1.0 - skill) / max(k - 1, 1)
    errors = np.where(np.eye(k, dtype=bool)[None], skill[:, None, None], off[:, None, None])
    return skill, np.clip(errors, EPS, 1.0 - EPS)


def _e_step(crowd: Crowd, priors: np.ndarray, errors: np.ndarray) -> np.ndarray:
    """P(c) ∝ π_c Π e_w[l, c] (base 2 as crowd-kit), gold items clamped."""
    logs = crowd.per_class(np.log2(errors[crowd.worker, crowd.pos, :]))
    logs += np.log2(np.maximum(priors, EPS))
    scaled = np.exp2(logs - logs.max(axis=1, keepdims=True))
    return crowd.clamp(scaled / scaled.sum(axis=1, keepdims=True))


def _elbo(crowd: Crowd, posterior: np.ndarray, priors: np.ndarray, errors: np.ndarray) -> float:
    """crowd-kit's evidence lower bound per label (the prior counted once per label)."""
    terms = np.log(errors[crowd.worker, crowd.pos, :]) + np.log(np.maximum(priors, EPS))
    joint = float(np.sum(posterior[crowd.item] * terms))
    clipped = np.maximum(posterior, EPS)
    return (joint - float(np.sum(np.log(clipped) * clipped))) / len(crowd.item)


def _run_ds(crowd: Crowd, m_step, n_iter: int, tol: float) -> tuple[np.ndarray, np.ndarray,
                                                                     np.ndarray, int]:
    """The EM loop both Dawid–Skene variants share: (posterior, priors, errors, iterations)."""
    posterior = crowd.clamp(majority_shares(crowd))
    priors, errors = posterior.mean(axis=0), m_step(crowd, posterior)
    loss, done = -np.inf, 0
    for done in range(1, n_iter + 1):  # noqa: B007 - the count is returned
        posterior = _e_step(crowd, priors, errors)
        priors, errors = posterior.mean(axis=0), m_step(crowd, posterior)
        new_loss = _elbo(crowd, posterior, priors, errors)
        if new_loss - loss < tol:
            break
        loss = new_loss
    return posterior, priors, errors, done


def _single_class(crowd: Crowd) -> CrowdFit:
    ones = np.ones((crowd.n_items, 1))
    return CrowdFit(ones, np.ones(crowd.n_workers), np.ones((crowd.n_workers, 1, 1)),
                    np.ones(1), 0)


def dawid_skene(crowd: Crowd, *, n_iter: int = 100, tol: float = 1e-5) -> CrowdFit:
    """Dawid–Skene; competence Σ_c π_c e_w[c, c], confusion[w, c, l] = e_w[l, c]."""
    if crowd.n_labels == 1:
        return _single_class(crowd)
    posterior, priors, errors, done = _run_ds(crowd, _ds_errors, n_iter, tol)
    diagonal = np.diagonal(errors, axis1=1, axis2=2)
    return CrowdFit(posterior, diagonal @ priors, errors.transpose(0, 2, 1), priors, done)


def one_coin(crowd: Crowd, *, n_iter: int = 100, tol: float = 1e-5) -> CrowdFit:
    """One-coin Dawid–Skene; competence s_w (clipped), confusion from it."""
    if crowd.n_labels == 1:
        return _single_class(crowd)

    def m_step(c: Crowd, p: np.ndarray) -> np.ndarray:
        return _one_coin_errors(c, p)[1]

    posterior, priors, errors, done = _run_ds(crowd, m_step, n_iter, tol)
    skill = np.clip(_one_coin_errors(crowd, posterior)[0], EPS, 1.0 - EPS)
    return CrowdFit(posterior, skill, errors.transpose(0, 2, 1), priors, done)


def _vb_normalise(counts: np.ndarray, prior: float) -> np.ndarray:
    """exp ψ(x + a) / exp ψ(Σ (x + a)) row by row (MACE's variational M step)."""
    total = np.exp(digamma((counts + prior).sum(axis=1, keepdims=True)))
    return np.exp(digamma(counts + prior)) / total


def _mace_e_step(crowd: Crowd, spam: np.ndarray, theta: np.ndarray
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Posterior q (items × K), then expected strategy counts (workers × K) and expected
    (spamming, knowing) counts (workers × 2), all in normalised space (no underflow)."""
    k, w, i, l = crowd.n_labels, crowd.worker, crowd.item, crowd.pos  # noqa: E741
    guess = spam[w, 0] * theta[w, l]
    factor = guess[:, None] + spam[w, 1][:, None] * (l[:, None] == np.arange(k))
    logs = crowd.per_class(np.log(factor))
    q = np.exp(logs - logs.max(axis=1, keepdims=True))
    q = crowd.clamp(q / q.sum(axis=1, keepdims=True))
    spamming = guess * np.sum(q[i] / factor, axis=1)
    knowing = q[i, l] * spam[w, 1] / (guess + spam[w, 1])
    strategy = np.bincount(w * k + l, weights=spamming, minlength=crowd.n_workers * k)
    counts = np.stack([np.bincount(w, weights=spamming, minlength=crowd.n_workers),
                       np.bincount(w, weights=knowing, minlength=crowd.n_workers)], axis=1)
    return q, strategy.reshape(crowd.n_workers, k), counts


def mace(crowd: Crowd, *, n_iter: int = 50, seed: int = 0) -> CrowdFit:
    """MACE by variational Bayes; competence k_w (the probability of knowing), confusion
    k_w·I + (1 − k_w)·ξ_w (the same row for every true class, as the model says)."""
    if crowd.n_labels == 1:
        return _single_class(crowd)
    spam = 1.0 + 1.5 * np.random.RandomState(seed).uniform(size=(crowd.n_workers, 2))
    theta = 1.0 + 1.5 * np.random.RandomState(seed).uniform(
        size=(crowd.n_workers, crowd.n_labels))
    spam /= spam.sum(axis=1, keepdims=True)
    theta /= theta.sum(axis=1, keepdims=True)
    q, strategy, counts = _mace_e_step(crowd, spam, theta)
    for _ in range(n_iter):
        spam, theta = _vb_normalise(counts, 0.5), _vb_normalise(strategy, 10.0)
        q, strategy, counts = _mace_e_step(crowd, spam, theta)
    knows = spam[:, 1] / spam.sum(axis=1)
    guesses = theta / theta.sum(axis=1, keepdims=True)
    eye = np.eye(crowd.n_labels)[None]
    confusion = knows[:, None, None] * eye + (1 - knows)[:, None, None] * guesses[:, None, :]
    return CrowdFit(q, knows, confusion, q.mean(axis=0), n_iter)
