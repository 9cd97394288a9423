"""eval on soft qrels: the expectation of a hand-enumerated case, seeded determinism, a
degenerate posterior equal to plain eval bit for bit, malformed files refused with path:line."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from pooljudge.metrics.eval_inputs import parse_all
from pooljudge.metrics.evaluate import evaluate
from pooljudge.metrics.soft_eval import draw_labels, soft_evaluate

from pooljudge.formats.soft_qrels import write_soft_qrels


def _soft(rows):
    return pd.DataFrame(rows, columns=["topic", "doc", "label", "probability"])


# One topic, the run ranks d1 then d2; P(d1 relevant) = 1/2, P(d2 relevant) = 1/4.
# Labellings (d1, d2): (0,0) p=3/8 AP 0; (1,0) p=3/8 AP 1; (0,1) p=1/8 AP 1/2; (1,1) p=1/8 AP 1.
# E[AP] = 3/8 + 1/16 + 1/8 = 9/16. E[P@2] = (1/2 + 1/4) / 2 = 3/8. E[P@1] = 1/2.
TINY = _soft([("q", "d1", 0, 0.5), ("q", "d1", 1, 0.5),
              ("q", "d2", 0, 0.75), ("q", "d2", 1, 0.25)])
TINY_RUN = pd.DataFrame({"topic": ["q", "q"], "doc": ["d1", "d2"], "score": [2.0, 1.0]})


def test_expectation_of_a_case_enumerated_by_hand():
    samples = 20_000
    frame = soft_evaluate(TINY, {"r": TINY_RUN}, parse_all(["AP", "P@2", "P@1"]),
                          samples=samples, seed=3).frame.set_index("measure")
    # Monte Carlo: each value's SD is at most 1/2, so 5 SEs are below 0.018.
    for measure, exact in (("AP", 9 / 16), ("P@2", 3 / 8), ("P@1", 1 / 2)):
        assert frame.loc[measure, "expected"] == pytest.approx(exact, abs=5 * 0.5 / samples ** .5)
    # P@2 takes 0, 1/2, 1 with probabilities 3/8, 1/2, 1/8: the 2.5% and 97.5% points
    assert (frame.loc["P@2", "low"], frame.loc["P@2", "high"]) == (0.0, 1.0)


def test_draws_follow_the_distribution_and_skip_zero_probabilities():
    soft = _soft([("q", "a", 0, 0.2), ("q", "a", 1, 0.0), ("q", "a", 2, 0.8),
                  ("q", "b", 3, 1.0)])
    pairs, drawn = draw_labels(soft, 50_000, seed=1)
    assert pairs.values.tolist() == [["q", "a"], ["q", "b"]]
    assert set(drawn[:, 0]) == {0, 2} and set(drawn[:, 1]) == {3}
    assert (drawn[:, 0] == 2).mean() == pytest.approx(0.8, abs=0.01)


def test_deterministic_with_a_seed():
    measures = parse_all(["AP", "nDCG@2"])
    one = soft_evaluate(TINY, {"r": TINY_RUN}, measures, samples=50, seed=9, per_topic=True)
    two = soft_evaluate(TINY, {"r": TINY_RUN}, measures, samples=50, seed=9, per_topic=True)
    pd.testing.assert_frame_equal(one.frame, two.frame)
    assert (draw_labels(TINY, 50, 9)[1] == draw_labels(TINY, 50, 9)[1]).all()
    assert (draw_labels(TINY, 50, 9)[1] != draw_labels(TINY, 50, 10)[1]).any()


def test_blocks_of_draws_give_the_numbers_of_one_block():
    soft = _soft([(t, f"d{j}", lab, p) for t in ("a", "b") for j in range(6)
                  for lab, p in ((0, 0.3 + 0.1 * j), (1, 0.7 - 0.1 * j))])
    run = pd.DataFrame({"topic": ["a"] * 6 + ["b"] * 6, "doc": [f"d{j}" for j in range(6)] * 2,
                        "score": np.arange(12.0)})
    measures = parse_all(["AP", "P@3"])
    whole = soft_evaluate(soft, {"r": run}, measures, samples=30, seed=2, per_topic=True)
    blocks = soft_evaluate(soft, {"r": run}, measures, samples=30, seed=2, per_topic=True,
                           block_rows=100)  # 48 rows a draw: two draws a block
    pd.testing.assert_frame_equal(whole.frame, blocks.frame)


def _hard_case(rng):
    topics = [f"t{i}" for i in range(7)]
    hard = pd.DataFrame([(t, f"d{j}", int(rng.integers(0, 3))) for t in topics
                         for j in range(12) if rng.random() < 0.8],
                        columns=["topic", "doc", "label"])
    runs = {f"run{k}": pd.DataFrame([(t, f"d{j}", float(rng.random())) for t in topics[:-1]
                                     for j in rng.permutation(15)[:9]],
                                    columns=["topic", "doc", "score"]) for k in range(3)}
    return hard, runs


def test_a_degenerate_posterior_equals_plain_eval_exactly():
    hard, runs = _hard_case(np.random.default_rng(5))
    # all mass on the hard label; the other labels present with probability 0
    soft = _soft([(t, d, lab, float(lab == label)) for t, d, label in hard.itertuples(index=False)
                  for lab in range(3)])
    names = ["AP", "nDCG@5", "P@5", "RR", "GMAP", "NumRel", "bpref", "Rprec"]
    plain = evaluate(hard, runs, names, per_topic=True)
    got = soft_evaluate(soft, runs, parse_all(names), samples=7, seed=0, per_topic=True).frame
    merged = plain.merge(got, on=["run", "topic", "measure"], how="outer", indicator=True)
    assert (merged["_merge"] == "both").all() and len(merged) == len(plain)
    assert (merged["value"].to_numpy() == merged["expected"].to_numpy()).all()
    assert (merged["low"] == merged["value"]).all() and (merged["high"] == merged["value"]).all()


def _cli(*args):
    return subprocess.run([sys.executable, "-m", "pooljudge", "eval", *map(str, args)],
                          capture_output=True, text=True)


def test_cli_prints_expected_values_and_refuses_malformed_files(tmp_path):
    soft, run = tmp_path / "soft.tsv", tmp_path / "r.run"
    write_soft_qrels(TINY, soft)
    run.write_text("q Q0 d1 1 2.0 r\nq Q0 d2 2 1.0 r\n")
    done = _cli("--soft-qrels", soft, run, "-m", "P@2", "--samples", "400", "--seed", "4",
                "--format", "tsv")
    assert done.returncode == 0, done.stderr
    header, *rows = done.stdout.splitlines()
    assert header == "run\ttopic\tmeasure\texpected\tlow\thigh"
    (name, topic, measure, expected, low, high), = (row.split("\t") for row in rows)
    assert (name, topic, measure) == ("r.run", "all", "P@2")
    assert float(expected) == pytest.approx(3 / 8, abs=0.1) and (low, high) == ("0.0", "1.0")
    again = _cli("--soft-qrels", soft, run, "-m", "P@2", "--samples", "400", "--seed", "4",
                 "--format", "tsv")
    assert again.stdout == done.stdout
    table = _cli("--soft-qrels", soft, run, "-m", "P@2", "--samples", "50", "--per-topic")
    assert table.returncode == 0 and "expected = mean over 50 qrels drawn" in table.stdout
    assert [line.split()[1] for line in table.stdout.splitlines()[1:3]] == ["all", "q"]
    bad = tmp_path / "bad.tsv"
    bad.write_text("topic\tdoc\tlabel\tprobability\nq\td1\t1\t0.5\n")
    refused = _cli("--soft-qrels", bad, run)
    assert refused.returncode == 2 and refused.stdout == ""
    assert refused.stderr.startswith(f"pooljudge: error: {bad}:2:") and len(
        refused.stderr.splitlines()) == 1
    assert _cli(tmp_path / "q", run, "--samples", "3").returncode == 2
