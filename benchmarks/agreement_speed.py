"""Agreement on 1,000,000 judgments: pooljudge against calling the libraries on a pivot table.

Synthetic campaign: 333,334 pairs over 250 topics, each judged by 3 of 5 annotators on a 0-2
scale (80% agree with a hidden truth). Both sides compute, for the 10 annotator pairs, Cohen's
kappa and linear/quadratic weighted kappa with scikit-learn, then Fleiss' kappa (statsmodels) and
Krippendorff's alpha nominal and ordinal (krippendorff):

- pooljudge: ``agreement_report`` (co-judgment tables counted with numpy; every statistic above
  plus specific agreement, prevalence, and — in the first row — a 1000-resample bootstrap CI of
  kappa over topics, which the reference does not compute at all);
- reference: what one writes by hand with the same libraries — ``pivot`` to items × annotators,
  ``dropna`` per annotator pair and ``cohen_kappa_score`` on the raw label arrays, Fleiss' kappa
  from a ``crosstab``, and ``krippendorff.alpha`` on the raters × units reliability matrix.

Runs are interleaved (pooljudge, reference, pooljudge, ...); prints medians and the ratio
reference / pooljudge and checks that the kappas agree. Usage:
``python benchmarks/agreement_speed.py [--repeat N] [--judgments N]``.
"""

from __future__ import annotations

import argparse
import statistics
import time
import warnings

import krippendorff
import numpy as np
import pandas as pd
from pooljudge.annotate.agreement import BootstrapSpec, agreement_report
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.inter_rater import fleiss_kappa

SCALE = (0, 1, 2)


def synthetic(judgments: int, *, annotators: int = 5, overlap: int = 3, topics: int = 250,
              seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    items = judgments // overlap
    chosen = np.argsort(rng.random((items, annotators)), axis=1)[:, :overlap].ravel()
    item = np.repeat(np.arange(items), overlap)
    truth = rng.integers(0, 3, items)
    label = np.where(rng.random(len(item)) < 0.8, truth[item], rng.integers(0, 3, len(item)))
    names = np.array([f"annotator{i}" for i in range(annotators)], dtype=object)
    return pd.DataFrame({"annotator": names[chosen], "topic": (item % topics).astype(str),
                         "doc": np.char.add("doc", item.astype(str)), "label": label})


def reference(frame: pd.DataFrame) -> dict[tuple[str, str], float]:
    """The same statistics by calling the libraries on a pivot table."""
    wide = frame.pivot(index=["topic", "doc"], columns="annotator", values="label")
    kappas = {}
    names = list(wide.columns)
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            both = wide[[a, b]].dropna().to_numpy(dtype=int)
            kappas[a, b] = cohen_kappa_score(both[:, 0], both[:, 1], labels=list(SCALE))
            for weights in ("linear", "quadratic"):
                cohen_kappa_score(both[:, 0], both[:, 1], labels=list(SCALE), weights=weights)
    counts = pd.crosstab([frame["topic"], frame["doc"]], frame["label"]).to_numpy()
    fleiss_kappa(counts, method="fleiss")
    reliability = wide.to_numpy(dtype=float).T
    for level in ("nominal", "ordinal"):
        krippendorff.alpha(reliability_data=reliability, value_domain=list(SCALE),
                           level_of_measurement=level)
    return kappas


def timed(function) -> tuple[float, object]:
    start = time.perf_counter()
    result = function()
    return time.perf_counter() - start, result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--judgments", type=int, default=1_000_000)
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    frame = synthetic(args.judgments)
    times: dict[str, list[float]] = {"ours_ci": [], "ours": [], "theirs": []}
    for _ in range(args.repeat):
        times["ours_ci"].append(timed(lambda: agreement_report(frame, SCALE,
                                                               spec=BootstrapSpec()))[0])
        seconds, ours = timed(lambda: agreement_report(frame, SCALE, spec=None))
        times["ours"].append(seconds)
        seconds, theirs = timed(lambda: reference(frame))
        times["theirs"].append(seconds)
    for row in ours.pairs.itertuples():
        if not np.isclose(row.cohen_kappa, theirs[row.a, row.b]):
            raise SystemExit(f"kappa differs for {row.a}/{row.b}")
    median = {k: statistics.median(v) for k, v in times.items()}
    print(f"{len(frame):,} judgments, {frame['annotator'].nunique()} annotators, "
          f"{args.repeat} repeats, medians; kappas identical")
    print(f"{'measurement':<44}{'pooljudge':>11}{'reference':>11}{'ratio':>8}")
    for label, key in (("all statistics + bootstrap CI (1000, topics)", "ours_ci"),
                       ("all statistics, no CI", "ours")):
        print(f"{label:<44}{median[key]:>10.2f}s{median['theirs']:>10.2f}s"
              f"{median['theirs'] / median[key]:>7.1f}x")


if __name__ == "__main__":
    main()
