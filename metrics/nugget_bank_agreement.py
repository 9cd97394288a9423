"""Agreement between two nugget banks of the same topics (bank A and bank B: two assessors, or
a person and a model): link the nuggets that say the same thing, then count.

**Similarity.** A nugget's text is normalised — Unicode NFKC, case-folded — and split into its
word tokens (``\\w+``, any script; a text without any is one token, itself). The similarity of
nuggets a and b is the Jaccard index of their token sets, J = |a ∩ b| / |a ∪ b| ∈ [0, 1]: 1 for
texts equal up to case, punctuation, spacing and word order. No stemming or stop words, so no
language is assumed.

**Links.** Within a topic, a pair can be linked when J ≥ ``threshold`` (default 0.5), and each
nugget is linked at most once (one-to-one). Among the one-to-one matchings of admissible pairs,
the one of largest total similarity is taken (the Hungarian method,
``scipy.optimize.linear_sum_assignment``, on J with inadmissible pairs at 0, which are then
dropped): a greedy matching that takes the most similar pair first can take a pair whose two
nuggets each had a slightly lesser but exclusive partner and link one pair instead of two; the
optimum does not depend on the order of the banks.

**Figures**, per topic and over all topics (``all``, the counts summed, the shares and kappa of
the pooled links): ``a`` = |A|, ``b`` = |B|, ``linked`` = L; ``share_a_linked`` = L / |A|, the
recall of B against A as the reference, and ``share_b_linked`` = L / |B|, the recall of A
against B (NaN for an empty bank); on the linked pairs, the 2×2 table of importances
(``vital_vital``, ``vital_okay`` — vital in A, okay in B —, ``okay_vital``, ``okay_okay``),
``importance_agreement`` p_o = (vital_vital + okay_okay) / L and Cohen's kappa
κ = (p_o − p_e) / (1 − p_e) with p_e = (v_A v_B + o_A o_B) / L² (v, o: each side's vital and okay
counts), equal to scikit-learn's ``cohen_kappa_score``; NaN without links, and κ NaN when
p_e = 1 (both sides gave every linked nugget one and the same importance). ``mean_similarity``
is the mean J of the links.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence

import numpy as np
import pandas as pd
from scipy.optimize import linear_sum_assignment

__all__ = ["BANK_AGREEMENT_COLUMNS", "LINK_COLUMNS", "bank_agreement", "link_banks", "tokens"]

BANK_AGREEMENT_COLUMNS = ("topic", "a", "b", "linked", "share_a_linked", "share_b_linked",
                          "vital_vital", "vital_okay", "okay_vital", "okay_okay",
                          "importance_agreement", "kappa", "mean_similarity")
LINK_COLUMNS = ("topic", "a_key", "b_key", "a_text", "b_text", "a_importance",
                "b_importance", "similarity")
_WORD = re.compile(r"\w+")
_CELLS = (("vital", "vital"), ("vital", "okay"), ("okay", "vital"), ("okay", "okay"))


def tokens(text: str) -> frozenset[str]:
    """The word tokens of ``text`` after NFKC and case folding; ``{text}`` (normalised and
    stripped) when it has none, so two texts of punctuation alone match only when equal."""
    normal = unicodedata.normalize("NFKC", text).casefold()
    found = frozenset(_WORD.findall(normal))
    return found or frozenset({normal.strip()})


def similarity_matrix(a_texts: Sequence[str], b_texts: Sequence[str]) -> np.ndarray:
    """The |A|×|B| Jaccard indices of the texts' token sets (vectorised over a shared
    vocabulary: intersections are a product of 0/1 incidence matrices)."""
    a_sets, b_sets = [tokens(t) for t in a_texts], [tokens(t) for t in b_texts]
    vocabulary = {word: i for i, word in enumerate(sorted(set().union(*a_sets, *b_sets)))}

    def incidence(sets: list[frozenset[str]]) -> np.ndarray:
        matrix = np.zeros((len(sets), len(vocabulary)), dtype=np.int64)
        for row, words in enumerate(sets):
            matrix[row, [vocabulary[w] for w in words]] = 1
        return matrix

    a_m, b_m = incidence(a_sets), incidence(b_sets)
    shared = a_m @ b_m.T
    union = a_m.sum(axis=1)[:, None] + b_m.sum(axis=1)[None, :] - shared
    return shared / np.maximum(union, 1)


def _check(bank: pd.DataFrame, name: str) -> None:
    missing = {"topic", "key", "text", "importance"} - set(bank.columns)
    if missing:
        raise ValueError(f"bank {name} lacks columns {sorted(missing)}")
    bad = set(bank["importance"]) - {"vital", "okay"}
    if bad:
        raise ValueError(f"bank {name}: importance must be vital or okay, not {sorted(bad)}")


def link_banks(a: pd.DataFrame, b: pd.DataFrame, *, threshold: float = 0.5) -> pd.DataFrame:
    """The links between banks ``a`` and ``b`` (frames with ``topic, key, text, importance``,
    a row a nugget), with :data:`LINK_COLUMNS`, by topic in A's order then B's, each topic's
    links in A's order. ``threshold`` in (0, 1]."""
    if not 0 < threshold <= 1:
        raise ValueError(f"threshold must be in (0, 1], not {threshold!r}")
    _check(a, "A")
    _check(b, "B")
    links = []
    b_groups = dict(tuple(b.groupby("topic", sort=False)))
    for topic, a_topic in a.groupby("topic", sort=False):
        b_topic = b_groups.get(topic)
        if b_topic is None or b_topic.empty:
            continue
        scores = similarity_matrix(a_topic["text"].tolist(), b_topic["text"].tolist())
        admissible = np.where(scores >= threshold, scores, 0.0)
        rows, cols = linear_sum_assignment(admissible, maximize=True)
        keep = admissible[rows, cols] > 0
        rows, cols = rows[keep], cols[keep]
        order = np.argsort(rows, kind="stable")
        rows, cols = rows[order], cols[order]
        links.append(pd.DataFrame({
            "topic": topic,
            "a_key": a_topic["key"].to_numpy()[rows], "b_key": b_topic["key"].to_numpy()[cols],
            "a_text": a_topic["text"].to_numpy()[rows], "b_text": b_topic["text"].to_numpy()[cols],
            "a_importance": a_topic["importance"].to_numpy()[rows],
            "b_importance": b_topic["importance"].to_numpy()[cols],
            "similarity": scores[rows, cols]}))
    if not links:
        return pd.DataFrame({c: pd.Series(dtype="float64" if c == "similarity" else "object")
                             for c in LINK_COLUMNS})
    return pd.concat(links, ignore_index=True)[list(LINK_COLUMNS)]


def _figures(a_size: int, b_size: int, links: pd.DataFrame) -> dict[str, object]:
    """One row of :data:`BANK_AGREEMENT_COLUMNS` (without ``topic``) from the counts and the
    links of a topic (or of all topics)."""
    linked = len(links)
    cells = {f"{x}_{y}": int(((links["a_importance"] == x) & (links["b_importance"] == y)).sum())
             for x, y in _CELLS}
    row: dict[str, object] = {
        "a": a_size, "b": b_size, "linked": linked,
        "share_a_linked": linked / a_size if a_size else np.nan,
        "share_b_linked": linked / b_size if b_size else np.nan, **cells}
    row["importance_agreement"] = ((cells["vital_vital"] + cells["okay_okay"]) / linked
                                   if linked else np.nan)
    row["kappa"] = _kappa(cells["vital_vital"], cells["vital_okay"], cells["okay_vital"],
                          cells["okay_okay"])
    row["mean_similarity"] = float(links["similarity"].mean()) if linked else np.nan
    return row


def _kappa(vv: int, vo: int, ov: int, oo: int) -> float:
    """Cohen's kappa of a 2×2 table (rows A, columns B); NaN when p_e = 1 or the table is
    empty. Integer arithmetic decides definedness exactly."""
    n = vv + vo + ov + oo
    a_vital, b_vital = vv + vo, vv + ov
    chance = a_vital * b_vital + (n - a_vital) * (n - b_vital)  # n² · p_e
    if n == 0 or chance == n * n:
        return float("nan")
    return (n * (vv + oo) - chance) / (n * n - chance)


def bank_agreement(a: pd.DataFrame, b: pd.DataFrame, *, threshold: float = 0.5,
                   topics: Iterable[str] = ()) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The agreement table (:data:`BANK_AGREEMENT_COLUMNS`, one row per topic, then ``all``)
    and the links (:func:`link_banks`). The topics are ``topics`` first (a bank that is empty
    there still counts: a file's topic with no nuggets), then the others of A, then of B; a
    topic in one bank only has no links."""
    links = link_banks(a, b, threshold=threshold)
    order = list(dict.fromkeys([*topics, *a["topic"], *b["topic"]]))
    a_sizes, b_sizes = a["topic"].value_counts(), b["topic"].value_counts()
    by_topic = dict(tuple(links.groupby("topic", sort=False)))
    empty = links.iloc[:0]
    rows = [{"topic": topic, **_figures(int(a_sizes.get(topic, 0)), int(b_sizes.get(topic, 0)),
                                        by_topic.get(topic, empty))} for topic in order]
    rows.append({"topic": "all", **_figures(len(a), len(b), links)})
    table = pd.DataFrame(rows, columns=list(BANK_AGREEMENT_COLUMNS))
    return table.astype({c: "float64" for c in ("share_a_linked", "share_b_linked",
                                                 "importance_agreement", "kappa",
                                                 "mean_similarity")}), links
