"""PPI++ nugget scores: on generated campaigns whose model errs in a known way, the interval
covers the all-human value in at least 93% of 500 random splits and is narrower than people's
alone; and the estimate is :func:`pooljudge.annotate.ppi.ppi_mean` on the right answers."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from pooljudge.annotate.nugget_ppi import ppi_run_scores
from pooljudge.annotate.ppi import ppi_mean
from pooljudge.metrics.nugget_scores import answer_scores

from pooljudge.errors import UsageError

LABELS = np.array(["not_support", "partial_support", "support"], dtype=object)
RUNS, TOPICS, NUGGETS = 4, 200, 8


def _campaign(seed: int):
    """People's labels of every cell (each run its own quality) and a model's: people's label
    replaced by a random one in 30% of cells and moved one step up (generous) in 15%."""
    rng = np.random.default_rng(seed)
    topic = np.repeat([f"t{t}" for t in range(TOPICS)], NUGGETS)
    key = np.array([f"{t}-{k}" for t in topic[::NUGGETS] for k in range(NUGGETS)])
    nuggets = pd.DataFrame({"topic": topic, "key": key,
                            "importance": np.where(rng.random(len(key)) < 0.4, "vital", "okay")})
    answers = pd.DataFrame([(f"r{r}/t{t}", f"t{t}", f"r{r}") for r in range(RUNS)
                            for t in range(TOPICS)], columns=["answer", "topic", "run"])
    cells = answers.merge(nuggets.rename(columns={"key": "nugget"}), on="topic")
    quality = np.repeat(np.linspace(0.3, 0.7, RUNS), TOPICS * NUGGETS)
    human = np.where(rng.random(len(cells)) < quality, 2, rng.integers(0, 2, len(cells)))
    model = np.where(rng.random(len(cells)) < 0.3, rng.integers(0, 3, len(cells)), human)
    model = np.where(rng.random(len(cells)) < 0.15, np.minimum(model + 1, 2), model)
    frames = [cells.assign(assessor=who, label=LABELS[codes])[
        ["answer", "nugget", "assessor", "label"]] for who, codes in (("ann", human),
                                                                      ("llm", model))]
    return nuggets, answers, frames


def test_ppi_covers_the_all_human_value_and_is_narrower_than_people_alone():
    nuggets, answers, (human, model) = _campaign(0)
    people = answer_scores(nuggets, answers, human)
    machine = answer_scores(nuggets, answers, model)
    truth = people.groupby("run")["strict_vital"].mean()
    rng = np.random.default_rng(1)
    covered, narrower, widths = 0, 0, []
    splits = 500
    for _ in range(splits):
        sampled = rng.choice(TOPICS, size=40, replace=False)
        chosen = people[people["topic"].isin([f"t{t}" for t in sampled])]
        table = ppi_run_scores(pd.concat([machine, chosen], ignore_index=True), model="llm")
        rows = table[table["score"] == "strict_vital"].set_index("run")
        inside = (rows["ci_low"] <= truth) & (truth <= rows["ci_high"])
        covered += int(inside.sum())
        ppi_width = rows["ci_high"] - rows["ci_low"]
        alone = rows["human_high"] - rows["human_low"]
        narrower += int((ppi_width < alone).sum())
        widths.append((ppi_width.mean(), alone.mean()))
    coverage = covered / (splits * RUNS)
    assert coverage >= 0.93, coverage
    assert narrower / (splits * RUNS) >= 0.95
    ppi_w, alone_w = np.mean(widths, axis=0)
    assert ppi_w < 0.8 * alone_w, (ppi_w, alone_w)


def test_the_estimate_is_ppi_mean_over_the_answers_people_labelled():
    nuggets, answers, (human, model) = _campaign(2)
    people = answer_scores(nuggets, answers, human)
    machine = answer_scores(nuggets, answers, model)
    chosen = people[people["topic"].isin(["t1", "t5", "t9", "t30", "t77"])]
    row = ppi_run_scores(pd.concat([machine, chosen]), model="llm", confidence=0.9).query(
        "run == 'r2' and score == 'all'").iloc[0]
    f = machine[machine["run"] == "r2"].set_index("topic")["all"]
    y = chosen[chosen["run"] == "r2"].set_index("topic")["all"]
    expected = ppi_mean(y.to_numpy(), f.loc[y.index].to_numpy(),
                        f.drop(index=y.index).to_numpy(), confidence=0.9)
    assert (row["labelled"], row["unlabelled"]) == (5, TOPICS - 5)
    assert (row["mean"], row["ci_low"], row["ci_high"], row["lambda"]) == pytest.approx(
        (expected.mean, expected.low, expected.high, expected.lam))
    assert row["human_mean"] == pytest.approx(y.mean())
    with pytest.raises(UsageError, match="'gpt' labelled no answer"):
        ppi_run_scores(chosen, model="gpt")
