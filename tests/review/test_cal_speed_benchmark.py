"""benchmarks/cal_speed.py: what it times runs, ranks well and is printed beside the baseline."""

from __future__ import annotations

import numpy as np

from tests.support.benchmarks import load_benchmark


def test_benchmark_measures_both_and_the_generated_topic_is_learnable():
    bench = load_benchmark("cal_speed")
    result = bench.measure(3000, 200, 1)
    assert result["pooljudge"] > 0 and result["baseline"] > 0
    assert result["pooljudge"] < bench.GOAL_SECONDS
    texts, truth = bench.generate(3000)
    assert 0 < truth.mean() < 0.05 and len(texts) == 3000
    ranking = bench.baseline_round(texts, np.arange(100), truth[:100])
    assert sorted(ranking[:-100]) == list(range(100, 3000))  # judged ones last
