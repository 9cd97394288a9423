"""benchmarks/pane_latency.py runs end to end on a small campaign and prints both figures and
their ratio (its timings are not asserted: tests check correctness, the script measures)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.e2e
def test_the_pane_latency_benchmark_prints_the_pane_the_floor_and_their_ratio():
    done = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "pane_latency.py"), "--preload", "400",
         "--pairs", "100", "--n", "4"],
        cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True,
        timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    pane = re.search(r"judging pane: key -> next pair drawn over 4 keys: p50 (\d+) ms, "
                     r"p95 (\d+) ms", done.stdout)
    bare = re.search(r"bare Streamlit page, same browser and load: p50 (\d+) ms, p95 (\d+) ms",
                     done.stdout)
    ratio = re.search(r"pane / bare: p50 ([\d.]+)x, p95 ([\d.]+)x", done.stdout)
    assert pane and bare and ratio, done.stdout
    assert float(ratio[2]) == pytest.approx(int(pane[2]) / int(bare[2]), rel=0.5, abs=0.05)


@pytest.mark.e2e
def test_the_review_mode_times_the_pane_while_the_learner_retrains():
    done = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "pane_latency.py"), "--review", "300",
         "--n", "5"],
        cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True,
        timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    found = re.search(r"a review of 300 documents, (\d+) retrains written while timed",
                      done.stdout)
    assert found and int(found[1]) >= 1, done.stdout  # 8 labels: batches end at 1, 3 and 6
    assert re.search(r"judging pane: key -> next pair drawn over 5 keys", done.stdout)
