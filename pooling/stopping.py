"""Stopping rules for a high-recall review, each labelled a guarantee or a heuristic.

A review judges documents one after another (in the order a ranker chose); ``labels`` is that
sequence as 0/1 (1 = relevant), ``n_docs`` the size of the collection (judged + unjudged).

- :func:`hypergeometric_p` (guarantee, under its sampling assumption): Callaghan &
  Müller-Hansen (2020), the test BUSCAR implements. H0: recall < τ.
- :func:`target_sample_size` (guarantee): the target method of Cormack & Grossman (2016).
- :func:`qbcb_quota` (guarantee): QBCB, Lewis, Yang & Frieder (CIKM 2021), the target method
  generalised to stopping after j of r random relevant documents.
- :func:`knee_stop` (heuristic): the knee method of Cormack & Grossman (2016).
- :func:`quant_recall` (heuristics Quant and QuantCI): Yang, Lewis & Frieder (DocEng 2021).

Every stop yields a :class:`Certificate`. Pure functions over numpy arrays and scipy.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import numpy as np

from pooljudge.errors import UsageError

__all__ = ["GUARANTEES", "QUANTCI_STD", "RULES", "Certificate", "check_level",
           "hypergeometric_p", "knee_stop", "qbcb_positives", "qbcb_quota", "quant_recall",
           "relevant_interval", "target_sample_size"]

RULES = ("hypergeometric", "target", "qbcb", "knee", "quant", "quantci")
GUARANTEES = frozenset({"hypergeometric", "target", "qbcb"})  # the others are heuristics
QUANTCI_STD = 2.0  # QuantCI's standard deviations below the estimate (Yang et al. 2021)


@dataclass(frozen=True)
class Certificate:
    """Why a topic's review stopped: the rule, what was judged, the evidence, the claim.

    ``recall_bound`` is the recall the rule claims at confidence ``1 - alpha`` (the target),
    ``None`` for a heuristic or when the rule never fired (the whole collection was judged:
    recall is then 1 by construction and ``exhausted`` is true). ``recall_estimate``: Quant's
    and QuantCI's estimate at the stop; ``sample_quota``: QBCB's j (sample relevant documents
    the review had to find, of ``sample_relevant``).
    """

    rule: str
    guarantee: bool
    target: float
    alpha: float
    judged: int
    relevant_found: int
    p_value: float | None = None
    sample_size: int | None = None
    sample_relevant: int | None = None
    recall_bound: float | None = None
    exhausted: bool = False
    recall_estimate: float | None = None
    sample_quota: int | None = None

    def as_dict(self) -> dict:
        """The certificate as a plain dict (JSON-ready)."""
        return asdict(self)


def check_level(target: float, alpha: float) -> None:
    """UsageError unless 0 < target < 1 and 0 < alpha < 1."""
    if not 0.0 < target < 1.0:
        raise UsageError(f"--target: must lie in (0, 1), got {target}")
    if not 0.0 < alpha < 1.0:
        raise UsageError(f"--alpha: must lie in (0, 1), got {alpha}")


def hypergeometric_p(labels: np.ndarray, n_docs: int, target: float = 0.95, *,
                     window: int | None = None) -> float:
    """The p-value of H0 "recall < ``target``" after judging ``labels`` of ``n_docs`` documents.

    For each n = 1..m (m = len(labels)) the last n judged documents are taken as a sample drawn
    without replacement from an urn of N_n = n_docs - (m - n) documents (the sample plus the
    unjudged remainder). With r = sum(labels) relevant seen, k_n relevant in the sample and
    r_n = r - k_n seen before it, H0 needs at least K_n = floor(r / τ) + 1 - r_n relevant
    documents in the urn (total relevant ≥ floor(r/τ) + 1 ⇔ recall r/total < τ), and

        p_n = P(X ≤ k_n),   X ~ Hypergeometric(N_n, K_n, n)   (hypergeom.cdf(k_n, N_n, K_n, n))

    p = min_n p_n, over n ≤ ``window`` when given (the last ``window`` labels are a uniform
    random sample of what was unjudged before them: the test is then exact, no assumption on
    the ranker; ``window`` 0 → 1.0). Edge cases: no judgments → 1.0; K_n > N_n (the urn
    cannot hold that many relevant documents, H0 impossible) → p_n = 0. The test is exact
    when the sample is a uniform random sample of the urn; over a ranker's last n documents
    (as BUSCAR does) it assumes the ranker's tail is no poorer in relevant documents than a
    random draw.
    """
    from scipy.stats import hypergeom

    labels = np.asarray(labels, dtype=np.int64)
    m = len(labels)
    if m == 0:
        return 1.0
    if m > n_docs:
        raise UsageError(f"{m} judgments exceed the {n_docs} documents")
    n = np.arange(1, m + 1 if window is None else min(window, m) + 1)
    if len(n) == 0:
        return 1.0
    k = np.cumsum(labels[::-1])[: len(n)]
    r = int(labels.sum())
    urn = n_docs - (m - n)
    need = math.floor(r / target) + 1 - (r - k)
    possible = need <= urn
    p = np.zeros(len(n))
    p[possible] = hypergeom.cdf(k[possible], urn[possible], need[possible], n[possible])
    return float(min(1.0, p.min()))


def target_sample_size(target: float, alpha: float) -> int:
    """Relevant documents the target method draws: t = ceil(log α / log τ).

    The review stops when every one of t relevant documents found by uniform random sampling
    has also been found by the review. Each relevant document lies in the reviewed part with
    probability recall, independently of the review, so P(all t found | recall < τ) < τ^t ≤ α.
    (τ = 0.95, α = 0.05: t = 59.) When the collection holds fewer than t relevant documents the
    sample exhausts it: the review is then checked against every relevant document.
    """
    check_level(target, alpha)
    return math.ceil(math.log(alpha) / math.log(target) - 1e-12)


def qbcb_quota(positives: int, target: float, alpha: float) -> int | None:
    """QBCB's quota j: stop once the review has found j of ``positives`` (r) relevant documents
    drawn uniformly at random; j = min{j ≤ r : P(Binomial(r, τ) ≥ j) ≤ α}, ``None`` when no
    j ≤ r qualifies (τ^r > α: r is too small for this target and confidence).

    Why: each sample relevant document is found by the time recall reaches ρ with probability
    ρ, so the count found at recall τ is Binomial(r, τ) (the sample drawn without replacement
    makes it hypergeometric, more concentrated still); stopping at recall < τ needs j found
    before recall τ, probability ≤ P(Binomial(r, τ) ≥ j) ≤ α. j = r is the target method.
    """
    from scipy.stats import binom

    check_level(target, alpha)
    if positives < 1:
        raise UsageError(f"QBCB needs at least one sample relevant document, got {positives}")
    j = np.arange(1, positives + 1)
    ok = np.flatnonzero(binom.sf(j - 1, positives, target) <= alpha)
    return int(j[ok[0]]) if len(ok) else None


def qbcb_positives(target: float, alpha: float) -> int:
    """QBCB's default r: the fewest sample relevant documents for which the quota j is below r
    (the review may miss one of them), e.g. 93 at τ = 0.95, α = 0.05 (the target method's 59
    admits only j = r). Vectorised over r up to 100,000."""
    from scipy.stats import binom

    check_level(target, alpha)
    r = np.arange(2, 100_001)
    ok = np.flatnonzero(binom.sf(r - 2, r, target) <= alpha)
    if not len(ok):
        raise UsageError(f"QBCB: no sample of up to 100,000 relevant documents certifies "
                         f"recall {target} at alpha {alpha} with one miss allowed")
    return int(r[ok[0]])


def quant_recall(probabilities: np.ndarray, reviewed: np.ndarray, nstd: float = 0.0) -> float:
    """Quant's recall estimate (``nstd`` 0) or QuantCI's lower bound (``nstd`` QUANTCI_STD).

    With p the model's probabilities of relevance over every document, A = Σ p over the
    reviewed and B = Σ p over the rest: R̂ = A / (A + B) and, with V = Σ p(1 − p) over all
    and V_A over the reviewed, Var R̂ ≈ A²·V / (A + B)⁴ + V_A / (A + B)² (Yang, Lewis &
    Frieder 2021, as tarexp 0.1.4's QuantStoppingRule computes it); the result is
    R̂ − nstd·√Var. No probability mass at all → 0.0. A heuristic: nothing bounds its error.
    """
    p = np.asarray(probabilities, dtype=np.float64)
    reviewed = np.asarray(reviewed, dtype=bool)
    known, total = float(p[reviewed].sum()), float(p.sum())
    if total <= 0:
        return 0.0
    estimate = known / total
    if nstd == 0:
        return estimate
    spread = p * (1 - p)
    variance = known**2 / total**4 * float(spread.sum()) + float(spread[reviewed].sum()) / total**2
    return estimate - nstd * math.sqrt(variance)


def knee_stop(labels: np.ndarray, *, min_rank: int = 150, adjust: int = 150) -> bool:
    """Heuristic: the knee method (Cormack & Grossman 2016).

    With gain curve g(i) = relevant among the first i judged, s = len(labels), the knee i* is
    the rank maximising the distance of (i, g(i)) from the line through (0, 0) and (s, g(s)).
    Stop when s ≥ ``min_rank`` and the slope ratio
    ρ = (g(i*) / i*) / ((g(s) - g(i*) + 1) / (s - i*)) ≥ 156 - min(g(s), ``adjust``).
    No relevant document yet, or no rank after the knee → do not stop.
    """
    labels = np.asarray(labels, dtype=np.int64)
    s = len(labels)
    if s < min_rank or labels.sum() == 0:
        return False
    gain = np.cumsum(labels)
    ranks = np.arange(1, s + 1)
    # distance to the line y = (g(s)/s) x, up to a constant factor
    knee = int(np.argmax(gain * s - ranks * gain[-1])) + 1
    if knee >= s:
        return False
    ratio = (gain[knee - 1] / knee) / ((gain[-1] - gain[knee - 1] + 1) / (s - knee))
    return bool(ratio >= 156 - min(int(gain[-1]), adjust))


def relevant_interval(found: int, size: int, urn: int, alpha: float) -> tuple[float, int, int]:
    """Relevant documents K in an urn of ``urn`` documents, from a uniform sample without
    replacement of ``size`` of them holding ``found`` relevant: (K̂ = found · urn / size, low,
    high), the exact two-sided 1 − α interval of the hypergeometric law (Clopper–Pearson's
    construction): low = min{K : P(X ≥ found | K) > α/2}, high = max{K : P(X ≤ found | K) > α/2},
    X ~ Hypergeometric(urn, K, size), over K = found … urn − (size − found). ``size`` 0 →
    (nan, 0, urn); a sample of the whole urn → (found, found, found). Vectorised over K.
    """
    from scipy.stats import hypergeom

    if not 0 <= found <= size <= urn:
        raise UsageError(f"need 0 <= found <= size <= urn, got {found}, {size}, {urn}")
    if size == 0:
        return float("nan"), 0, urn
    k = np.arange(found, urn - (size - found) + 1)
    upper = hypergeom.sf(found - 1, urn, k, size)  # P(X >= found)
    lower = hypergeom.cdf(found, urn, k, size)  # P(X <= found)
    low = int(k[np.argmax(upper > alpha / 2)]) if (upper > alpha / 2).any() else found
    above = np.flatnonzero(lower > alpha / 2)
    high = int(k[above[-1]]) if len(above) else urn - (size - found)
    return found * urn / size, low, high
