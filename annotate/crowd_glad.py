"""GLAD (Whitehill et al., NIPS 2009) over coded labels, as crowd-kit 1.4.2 fits it.

Worker ``w`` has ability ``α_w``, item ``i`` inverse difficulty ``exp(β_i)``; the worker gives
the true class with probability ``a = σ(α_w · exp(β_i))`` and each other class with
``(1 − a)/(K − 1)``. Uniform class priors; Gaussian priors N(1, 1) on α and β, which also start
at 1. EM: E gives ``P(c) ∝ Π`` of those probabilities; M maximises

    Q = Σ_labels Σ_c P(c)·[δ log a + (1 − δ)(log(1 − a) − log(K − 1))] − Σ (α−1)²/2 − Σ (β−1)²/2

(+ constants) over (α, β) by scipy's conjugate gradient (``maxiter=25, tol=1e-2``), stopping when
Q per (label, class) gains less than ``tol``. ``log a`` uses crowd-kit's softplus (exact
beyond ±30). Vectorised over the labels; gold items clamped after each E step.
"""

from __future__ import annotations

import numpy as np
from pooljudge.annotate.crowd_em import Crowd, CrowdFit
from scipy.optimize import minimize
from scipy.special import expit, logsumexp

__all__ = ["glad"]

_HALF_LOG_2PI = 0.5 * np.log(2 * np.pi)


def _softplus(x: np.ndarray, limit: float = 30.0) -> np.ndarray:
    """log(1 + e^x), crowd-kit's way: x beyond +limit, 0 beyond −limit."""
    outside = (x > limit) | (x < -limit)
    return np.log1p(np.exp(x * (1 - outside))) * (1 - outside) + x * (x > limit)


class _Glad:
    """One crowd's GLAD state: the labels, the fixed posterior of an M step, α and β."""

    def __init__(self, crowd: Crowd) -> None:
        self.crowd = crowd
        self.k = crowd.n_labels
        self.delta = crowd.pos[:, None] == np.arange(self.k)  # labels × K
        self.alpha = np.ones(crowd.n_workers)
        self.beta = np.ones(crowd.n_items)
        self.posterior = np.full((crowd.n_items, self.k), 1.0 / self.k)

    def _terms(self) -> np.ndarray:
        """labels × K: δ log a + (1 − δ)(log(1 − a) − log(K − 1))."""
        c = self.crowd
        ab = self.alpha[c.worker] * np.exp(self.beta[c.item])
        log_a, log_not = -_softplus(-ab), -_softplus(ab) - np.log(self.k - 1)
        return np.where(self.delta, log_a[:, None], log_not[:, None])

    def e_step(self) -> None:
        logs = self.crowd.per_class(self._terms()) + np.log(1.0 / self.k)
        p = np.exp(logs - logsumexp(logs, axis=1, keepdims=True))
        self.posterior = self.crowd.clamp(p)

    def q(self) -> float:
        c = self.crowd
        value = float(np.sum(self.posterior[c.item] * self._terms()))
        value += float(np.sum(-0.5 * (self.alpha - 1) ** 2 - _HALF_LOG_2PI))
        value += float(np.sum(-0.5 * (self.beta - 1) ** 2 - _HALF_LOG_2PI))
        return -np.inf if np.isnan(value) else value

    def _set(self, x: np.ndarray) -> None:
        self.alpha, self.beta = x[:self.crowd.n_workers], x[self.crowd.n_workers:]

    def _loss(self, x: np.ndarray) -> float:
        self._set(x)
        return -self.q()

    def _gradient(self, x: np.ndarray) -> np.ndarray:
        self._set(x)
        c = self.crowd
        scale = np.exp(self.beta[c.item])
        sigma = expit(self.alpha[c.worker] * scale)
        p = self.posterior[c.item]
        share = p[np.arange(len(c.pos)), c.pos] - sigma * p.sum(axis=1)  # Σ_c P(c)(δ − σ)
        d_beta = np.bincount(c.item, weights=share * self.alpha[c.worker] * scale,
                             minlength=c.n_items) - (self.beta - 1)
        d_alpha = np.bincount(c.worker, weights=share * scale,
                              minlength=c.n_workers) - (self.alpha - 1)
        return -np.concatenate([d_alpha, d_beta])

    def m_step(self) -> None:
        start = np.concatenate([self.alpha, self.beta])
        found = minimize(self._loss, start, method="CG", jac=self._gradient, tol=1e-2,
                         options={"disp": False, "maxiter": 25})
        self._set(found.x)


def glad(crowd: Crowd, *, n_iter: int = 100, tol: float = 1e-5) -> CrowdFit:
    """GLAD; competence σ(α_w · exp(median β)) (an item of median difficulty), no confusion
    matrix (the model has one coin per worker and item)."""
    if crowd.n_labels == 1:
        ones = np.ones((crowd.n_items, 1))
        return CrowdFit(ones, np.ones(crowd.n_workers), None, np.ones(1), 0)
    model = _Glad(crowd)
    model.e_step()
    q, done = model.q(), 0
    per_term = len(crowd.item) * model.k
    for done in range(1, n_iter + 1):  # noqa: B007 - the count is returned
        last = q
        model.e_step()
        posterior = model.posterior
        model.m_step()
        q = model.q() / per_term
        if q - last < tol:
            break
    competence = expit(model.alpha * np.exp(np.median(model.beta)))
    return CrowdFit(posterior, competence, None, np.full(model.k, 1.0 / model.k), done)
