"""Inter-annotator agreement over a judgments table (``annotator, topic, doc, label`` [+ ``kind``]).

For every two annotators who judged a pair (topic, document) in common: the number of shared pairs
``n``, raw agreement, Cohen's kappa (scikit-learn, always with the campaign's full label scale),
linear and quadratic weighted kappa for graded scales (weights follow a label's *position* in
the scale, so a grade nobody used still counts), positive and negative specific agreement,
prevalence, and a bootstrap confidence interval of Cohen's kappa over topics (scipy). Overall:
Fleiss' kappa (statsmodels) when every shared pair has the same number of labels, and
Krippendorff's alpha (``krippendorff``), nominal and ordinal, always.

"I can't judge this" answers are counted apart (:func:`annotator_counts`): per annotator, beside
their labels; they are never a label, so never in a table, a kappa or an alpha.

An undefined statistic — kappa when both annotators used one and the same label, specific
agreement without a positive (negative) label — is ``<NA>`` in the frames (pandas' nullable
``Float64``) and ``None`` in :meth:`AgreementReport.to_json`, never 0.

Everything is vectorised: judgments are coded once, co-judgments are counted into per-(annotator
pair, topic) contingency tables with numpy, and the bootstrap resamples topics by summing those
tables. Python loops run over annotator pairs and topics, never over judgments.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import krippendorff
import numpy as np
import pandas as pd
from pooljudge.annotate.judgment_codes import Coded, CoTables, co_judgment_tables, code_judgments
from scipy.stats import bootstrap
from sklearn.exceptions import UndefinedMetricWarning
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.inter_rater import fleiss_kappa

__all__ = [
    "AgreementReport",
    "BootstrapSpec",
    "agreement_report",
    "annotator_counts",
    "kappa_from_tables",
    "overall_agreement",
    "pairwise_agreement",
    "per_topic_agreement",
]


@dataclass(frozen=True)
class BootstrapSpec:
    """A bootstrap CI of Cohen's kappa that resamples topics with replacement (scipy).

    The i-th annotator pair of the table draws from ``numpy.random.default_rng([seed, i])``, so
    a report is reproducible and one pair's interval does not depend on the others.
    """

    confidence: float = 0.95
    n_resamples: int = 1000
    seed: int = 0
    method: str = "percentile"


@dataclass(frozen=True)
class AgreementReport:
    """Pairwise table, overall coefficients, per annotator their labels and can't-judge
    answers, and (on request) the same per topic."""

    pairs: pd.DataFrame
    overall: dict[str, object]
    annotators: pd.DataFrame | None = None
    per_topic_pairs: pd.DataFrame | None = None
    per_topic_overall: pd.DataFrame | None = None
    settings: dict[str, object] = field(default_factory=dict)

    def to_json(self) -> dict[str, object]:
        """A JSON-ready dict ``{"pairs": [...], "overall": {...}, "annotators": [...],
        "per_topic": [...] | None}``."""
        result: dict[str, object] = {
            "pairs": _records(self.pairs),
            "overall": {k: _plain(v) for k, v in self.overall.items()},
            "annotators": [] if self.annotators is None else _records(self.annotators),
            "per_topic": None,
            "settings": self.settings,
        }
        if self.per_topic_pairs is not None and self.per_topic_overall is not None:
            pairs = self.per_topic_pairs
            by_topic = {t: _records(g.drop(columns="topic")) for t, g in pairs.groupby("topic")}
            result["per_topic"] = [{**row, "pairs": by_topic.get(row["topic"], [])}
                                   for row in _records(self.per_topic_overall)]
        return result


def kappa_from_tables(tables: np.ndarray, weights: str | None = None) -> np.ndarray:
    """Cohen's kappa (unweighted, ``"linear"`` or ``"quadratic"``) of each V×V table, vectorised.

    κ = 1 − Σ wᵢⱼ Oᵢⱼ / Σ wᵢⱼ Eᵢⱼ with observed counts O, chance counts Eᵢⱼ = rᵢ cⱼ / n (row and
    column sums r, c) and weights from label positions: 1 − δᵢⱼ, |i − j| or (i − j)². NaN where
    undefined: n = 0, or Σ w E = 0 (both sides used one and the same label). Integer arithmetic
    decides definedness exactly. The kernel of the bootstrap and of per-topic rows; tests pin it
    to ``sklearn.metrics.cohen_kappa_score``.
    """
    tables = np.asarray(tables, dtype=np.int64)
    grades = np.arange(tables.shape[-1])
    distance = np.abs(grades[:, None] - grades[None, :])
    weight = {None: (distance > 0).astype(np.int64), "linear": distance,
              "quadratic": distance**2}[weights]
    n = tables.sum(axis=(-2, -1))
    observed = (tables * weight).sum(axis=(-2, -1))
    chance = (tables.sum(axis=-1)[..., :, None] * tables.sum(axis=-2)[..., None, :] * weight)
    chance = chance.sum(axis=(-2, -1))
    defined = (n > 0) & (chance > 0)
    ratio = (n * observed.astype(float)) / np.where(defined, chance, 1).astype(float)
    return np.where(defined, 1.0 - ratio, np.nan)


def _sklearn_kappa(table: np.ndarray, scale: tuple[int, ...], weights: str | None) -> float | None:
    """scikit-learn's (weighted) kappa of one contingency table, over the full label scale."""
    values = np.asarray(scale)
    both_one_label = np.count_nonzero(table.sum(axis=0) + table.sum(axis=1)) < 2
    if table.sum() == 0 or both_one_label:
        return None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        warnings.simplefilter("ignore", RuntimeWarning)
        value = cohen_kappa_score(np.repeat(values, len(values)), np.tile(values, len(values)),
                                  labels=values, weights=weights, sample_weight=table.ravel())
    return float(value) if np.isfinite(value) else None


def _table_stats(tables: np.ndarray, scale: tuple[int, ...], relevant: int,
                 *, use_sklearn: bool) -> dict[str, np.ndarray]:
    """Raw, chance-corrected and specific agreement of each V×V table (NaN where undefined).

    Positive labels are those ≥ ``relevant``. With a = both positive, d = both negative and
    b + c = the discordant pairs: positive agreement 2a / (2a + b + c), negative agreement
    2d / (2d + b + c), prevalence (2a + b + c) / 2n (the share of positive labels). Kappas come
    from scikit-learn per table when ``use_sklearn``, else from :func:`kappa_from_tables`.
    """
    tables = np.asarray(tables, dtype=np.int64)
    positive = np.asarray(scale) >= relevant
    n = tables.sum(axis=(-2, -1))
    both_pos = tables[:, positive][:, :, positive].sum(axis=(-2, -1))
    both_neg = tables[:, ~positive][:, :, ~positive].sum(axis=(-2, -1))
    discordant = n - both_pos - both_neg
    stats = {"n": n, "agreement": _ratio(np.trace(tables, axis1=-2, axis2=-1), n)}
    for column, weights in _kappa_columns(scale):
        stats[column] = (np.array([_sklearn_kappa(t, scale, weights) for t in tables], dtype=float)
                         if use_sklearn else kappa_from_tables(tables, weights))
    stats["positive_agreement"] = _ratio(2 * both_pos, 2 * both_pos + discordant)
    stats["negative_agreement"] = _ratio(2 * both_neg, 2 * both_neg + discordant)
    stats["prevalence"] = _ratio(2 * both_pos + discordant, 2 * n)
    return stats


def _kappa_columns(scale: Sequence[int]) -> list[tuple[str, str | None]]:
    graded = [("weighted_kappa_linear", "linear"), ("weighted_kappa_quadratic", "quadratic")]
    return [("cohen_kappa", None), *(graded if len(scale) > 2 else [])]


def _ratio(numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    """Elementwise numerator / denominator, NaN where the denominator is 0."""
    safe = np.where(denominator > 0, denominator, 1)
    return np.where(denominator > 0, numerator / safe, np.nan)


def _kappa_interval(topic_tables: np.ndarray, spec: BootstrapSpec,
                    seed: Sequence[int]) -> tuple[float | None, float | None]:
    """Bootstrap CI of Cohen's kappa, resampling topics; ``(None, None)`` with under 2 topics."""
    n_topics = len(topic_tables)
    if n_topics < 2:
        return None, None
    flat = topic_tables.reshape(n_topics, -1)

    def statistic(sample: np.ndarray, axis: int = -1) -> np.ndarray:
        rows = np.moveaxis(np.asarray(sample), axis, -1)
        shape, rows = rows.shape[:-1], rows.reshape(-1, rows.shape[-1])
        offsets = np.arange(len(rows))[:, None] * n_topics
        times = np.bincount((rows + offsets).ravel(), minlength=len(rows) * n_topics)
        sums = times.reshape(len(rows), n_topics) @ flat
        return kappa_from_tables(sums.reshape(len(rows), *topic_tables.shape[1:])).reshape(shape)

    with warnings.catch_warnings(), np.errstate(invalid="ignore"):
        warnings.simplefilter("ignore")
        result = bootstrap((np.arange(n_topics),), statistic, vectorized=True, axis=-1,
                           n_resamples=spec.n_resamples, confidence_level=spec.confidence,
                           method=spec.method, batch=max(1, 4_000_000 // n_topics),
                           rng=np.random.default_rng(list(seed)))
    low, high = result.confidence_interval
    return (float(low), float(high)) if np.isfinite(low) and np.isfinite(high) else (None, None)


def _default_relevant(scale: Sequence[int]) -> int:
    """Positive means above the lowest label: the second label of the ascending scale."""
    ordered = sorted(scale)
    return ordered[1] if len(ordered) > 1 else ordered[0] + 1


def pairwise_agreement(coded: Coded, *, relevant: int | None = None,
                       spec: BootstrapSpec | None = BootstrapSpec(),
                       tables: CoTables | None = None) -> pd.DataFrame:
    """One row per two annotators with at least one shared pair (``a`` < ``b`` by name).

    Columns ``a, b, n, topics, agreement, cohen_kappa`` (+ ``weighted_kappa_linear``,
    ``weighted_kappa_quadratic`` on graded scales), ``positive_agreement, negative_agreement,
    prevalence, kappa_ci_low, kappa_ci_high`` (bootstrap of Cohen's kappa over topics; ``spec``
    None leaves them ``<NA>``). Positive labels are ≥ ``relevant`` (default: all but the lowest).
    """
    tables = co_judgment_tables(coded) if tables is None else tables
    relevant = _default_relevant(coded.scale) if relevant is None else relevant
    pair_key = tables.a * len(coded.annotators) + tables.b
    starts = np.flatnonzero(np.r_[True, pair_key[1:] != pair_key[:-1]])[: len(pair_key)]
    stops = np.r_[starts[1:], len(pair_key)][: len(starts)].astype(np.int64)
    summed = (np.add.reduceat(tables.counts, starts, axis=0) if len(starts)
              else tables.counts[:0])
    columns = {"a": coded.annotators[tables.a[starts]], "b": coded.annotators[tables.b[starts]]}
    columns |= _table_stats(summed, coded.scale, relevant, use_sklearn=True)
    columns["topics"] = stops - starts
    intervals = [(None, None) if spec is None else
                 _kappa_interval(tables.counts[start:stop], spec, (spec.seed, index))
                 for index, (start, stop) in enumerate(zip(starts, stops, strict=True))]
    columns["kappa_ci_low"] = [low for low, _ in intervals]
    columns["kappa_ci_high"] = [high for _, high in intervals]
    return _frame(columns, ["a", "b", "n", "topics", *_stat_columns(coded.scale),
                            "kappa_ci_low", "kappa_ci_high"])


def per_topic_agreement(coded: Coded, *, relevant: int | None = None,
                        tables: CoTables | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Per topic: pairwise rows (``topic, a, b, n, …``, no CI) and overall coefficients.

    The second frame has ``topic, items, items_shared, fleiss_kappa, fleiss_kappa_note,
    krippendorff_alpha_nominal, krippendorff_alpha_ordinal`` for every judged topic.
    """
    tables = co_judgment_tables(coded) if tables is None else tables
    relevant = _default_relevant(coded.scale) if relevant is None else relevant
    columns = {"topic": coded.topics[tables.topic], "a": coded.annotators[tables.a],
               "b": coded.annotators[tables.b]}
    columns |= _table_stats(tables.counts, coded.scale, relevant, use_sklearn=False)
    pairs = _frame(columns, ["topic", "a", "b", "n", *_stat_columns(coded.scale)])
    pairs = pairs.sort_values(["topic", "a", "b"], kind="stable", ignore_index=True)
    order = np.argsort(coded.item_topic, kind="stable")
    bounds = np.searchsorted(coded.item_topic[order], np.arange(len(coded.topics) + 1))
    counts = coded.value_counts[order]
    overall = [{"topic": name} | _coefficients(counts[bounds[t]:bounds[t + 1]], coded.scale)
               for t, name in enumerate(coded.topics)]
    names = ["topic", "items", "items_shared", "fleiss_kappa", "fleiss_kappa_note",
             "krippendorff_alpha_nominal", "krippendorff_alpha_ordinal"]
    return pairs, _frame(pd.DataFrame(overall, columns=names), names)


def overall_agreement(coded: Coded) -> dict[str, object]:
    """Campaign-wide: judgments, annotators, items, Fleiss' kappa and Krippendorff's alpha."""
    return {
        "judgments": len(coded.item),
        "annotators": len(coded.annotators),
        **_coefficients(coded.value_counts, coded.scale),
    }


def _coefficients(value_counts: np.ndarray, scale: tuple[int, ...]) -> dict[str, object]:
    """Fleiss' kappa and Krippendorff's alpha over items judged by two or more annotators.

    Fleiss' kappa needs the same number of labels on every such item; otherwise it is None and
    ``fleiss_kappa_note`` says why. Both are None when only one label was used at all.
    """
    per_item = value_counts.sum(axis=1)
    shared = value_counts[per_item >= 2]
    sizes = np.unique(shared.sum(axis=1))
    one_label = np.count_nonzero(shared.sum(axis=0)) < 2
    result: dict[str, object] = {"items": int(np.count_nonzero(per_item)),
                                 "items_shared": len(shared), "fleiss_kappa": None,
                                 "fleiss_kappa_note": None}
    if len(shared) == 0 or one_label:
        result["fleiss_kappa_note"] = "undefined: " + (
            "no pair has two labels" if len(shared) == 0 else "only one label was used")
    elif len(sizes) > 1:
        result["fleiss_kappa_note"] = (f"not computed: shared pairs have {sizes.min()} to "
                                       f"{sizes.max()} labels, Fleiss' kappa needs equal numbers")
    else:
        result["fleiss_kappa"] = _finite(lambda: fleiss_kappa(shared, method="fleiss"))
    for level in ("nominal", "ordinal"):
        result[f"krippendorff_alpha_{level}"] = None if len(shared) == 0 or one_label else _finite(
            lambda level=level: krippendorff.alpha(value_counts=shared, value_domain=list(scale),
                                                   level_of_measurement=level))
    return result


def _finite(compute) -> float | None:
    """The library's value as a float, or None when it is NaN/inf or raises ValueError."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)
        try:
            value = float(compute())
        except (ValueError, ZeroDivisionError):
            return None
    return value if np.isfinite(value) else None


def annotator_counts(judgments: pd.DataFrame,
                     cannot_judge: pd.DataFrame | None = None) -> pd.DataFrame:
    """Per annotator (by name): ``labels``, their latest labels in ``judgments``, and
    ``cannot_judge``, their "I can't judge this" answers (rows of ``cannot_judge``, a frame
    with an ``annotator`` column; None: none). Everyone in either frame has a row."""
    labels = judgments["annotator"].astype(str).value_counts()
    answers = (cannot_judge["annotator"].astype(str).value_counts()
               if cannot_judge is not None else pd.Series(dtype="int64"))
    names = sorted(set(labels.index) | set(answers.index))
    return pd.DataFrame({"annotator": names,
                         "labels": labels.reindex(names, fill_value=0).to_numpy(np.int64),
                         "cannot_judge": answers.reindex(names, fill_value=0).to_numpy(np.int64)})


def agreement_report(judgments: pd.DataFrame, scale: Sequence[int], *,
                     relevant: int | None = None, per_topic: bool = False,
                     spec: BootstrapSpec | None = BootstrapSpec(),
                     cannot_judge: pd.DataFrame | None = None) -> AgreementReport:
    """Everything ``pooljudge agree`` prints, from a frame of latest judgments.

    Only label rows count: rows of another ``status`` (a frame that has the column) or
    without a label are left out. ``cannot_judge`` (the can't-judge answers, one row each with
    an ``annotator``) is counted per annotator and in ``overall["cannot_judge"]``."""
    judgments = _labels_only(judgments)
    coded = code_judgments(judgments, scale)
    relevant = _default_relevant(coded.scale) if relevant is None else relevant
    tables = co_judgment_tables(coded)
    topic_pairs = topic_overall = None
    if per_topic:
        topic_pairs, topic_overall = per_topic_agreement(coded, relevant=relevant, tables=tables)
    settings: dict[str, object] = {"scale": list(coded.scale), "positive_from": relevant}
    if spec is not None:
        settings["kappa_ci"] = {"statistic": "cohen_kappa", "resampled": "topics",
                                "method": spec.method, "confidence": spec.confidence,
                                "resamples": spec.n_resamples, "seed": spec.seed}
    overall = overall_agreement(coded)
    overall["cannot_judge"] = 0 if cannot_judge is None else len(cannot_judge)
    return AgreementReport(
        pairs=pairwise_agreement(coded, relevant=relevant, spec=spec, tables=tables),
        overall=overall, annotators=annotator_counts(judgments, cannot_judge),
        per_topic_pairs=topic_pairs, per_topic_overall=topic_overall, settings=settings)


def _labels_only(judgments: pd.DataFrame) -> pd.DataFrame:
    """The rows that carry a label: status ``label`` (when the frame has a status) and a
    label present."""
    keep = judgments["label"].notna()
    if "status" in judgments.columns:
        keep &= judgments["status"] == "label"
    return judgments if bool(keep.all()) else judgments.loc[keep]


def _stat_columns(scale: Sequence[int]) -> list[str]:
    return ["agreement", *(c for c, _ in _kappa_columns(scale)), "positive_agreement",
            "negative_agreement", "prevalence"]


_FLOAT_COLUMNS = {"agreement", "cohen_kappa", "weighted_kappa_linear", "weighted_kappa_quadratic",
                  "positive_agreement", "negative_agreement", "prevalence", "kappa_ci_low",
                  "kappa_ci_high", "fleiss_kappa", "krippendorff_alpha_nominal",
                  "krippendorff_alpha_ordinal"}


def _frame(columns: Mapping[str, object] | pd.DataFrame, names: list[str]) -> pd.DataFrame:
    """Columns to a frame whose statistics are nullable Float64 (NaN/None -> <NA>, never 0)."""
    frame = pd.DataFrame({name: columns[name] for name in names}, columns=names)
    for name in names:
        if name in _FLOAT_COLUMNS:
            frame[name] = pd.to_numeric(frame[name].astype(object)).astype("Float64")
        elif name in {"n", "topics", "items", "items_shared", "judgments"}:
            frame[name] = frame[name].astype(np.int64)
    return frame


def _records(frame: pd.DataFrame) -> list[dict[str, object]]:
    return [{k: _plain(v) for k, v in row.items()} for row in frame.to_dict(orient="records")]


def _plain(value: object) -> object:
    """numpy/pandas scalars to JSON-ready Python values; missing values to None."""
    if value is None or value is pd.NA or (isinstance(value, float) and np.isnan(value)):
        return None
    if isinstance(value, np.generic):
        return value.item()
    return value
