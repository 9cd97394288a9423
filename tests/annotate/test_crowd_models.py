"""The consensus models against crowd-kit 1.4.2 (same initialisation and iterations) and
against the truth on generated crowds: spammers, adversaries, graded scales, 1-5 labels a pair."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from crowdkit import aggregation
from pooljudge.annotate.crowd import fit_crowd, posterior_frame, worker_frame
from pooljudge.annotate.judgment_codes import code_judgments

from tests.support.crowds import crowd

SCALES = [(1, (0, 1)), (2, (0, 1, 2, 3)), (3, (0, 1, 2)), (4, (0, 1))]
REFERENCE = {"ds": lambda: aggregation.DawidSkene(100),
             "ds1": lambda: aggregation.OneCoinDawidSkene(100),
             "glad": lambda: aggregation.GLAD(), "mace": lambda: aggregation.MACE(n_restarts=1)}


def _prepared(seed: int, scale: tuple[int, ...], n_pairs: int):
    """A crowd whose annotators' names sort in their order of appearance and whose labels
    appear in ascending order: crowd-kit's MACE pairs its random start (by appearance) with
    counts grouped in sorted order, so only then do the two orders agree."""
    judgments, truth = crowd(seed, scale=scale, n_pairs=n_pairs)
    judgments = judgments.sort_values("label", kind="stable", ignore_index=True)
    names = {a: f"w{i:03d}" for i, a in enumerate(pd.unique(judgments["annotator"]))}
    return judgments.assign(annotator=judgments["annotator"].map(names)), truth


@pytest.fixture(scope="module")
def crowds():
    return [(scale, *_prepared(seed, scale, 300)) for seed, scale in SCALES]


def _majority(coded, scale):
    counts = coded.value_counts
    return np.asarray(scale)[np.argmax(counts, axis=1)]


@pytest.mark.parametrize("model", list(REFERENCE))
def test_matches_crowd_kit_and_beats_majority(crowds, model):
    agree = total = right = right_majority = 0
    for scale, judgments, truth in crowds:
        coded = code_judgments(judgments, scale)
        ours = fit_crowd(coded, model)
        tasks = pd.Series(coded.topics[coded.item_topic].astype(str)) + "|" + coded.item_doc
        data = pd.DataFrame({"task": judgments["topic"] + "|" + judgments["doc"],
                             "worker": judgments["annotator"], "label": judgments["label"]})
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            reference = REFERENCE[model]().fit(data)
        theirs = reference.labels_.reindex(tasks).to_numpy()
        mine = np.asarray(scale)[ours.decided]
        probabilities = reference.probas_.reindex(tasks).reindex(
            columns=list(scale), fill_value=0.0).to_numpy()
        # GLAD's M step is scipy's conjugate gradient: sums in another order move it a little
        assert np.abs(probabilities - ours.posterior).max() < (1e-2 if model == "glad" else 1e-6)
        known = truth.set_index(["topic", "doc"])["label"].reindex(
            pd.MultiIndex.from_arrays([coded.topics[coded.item_topic], coded.item_doc]))
        agree += int(np.sum(mine == theirs))
        total += len(mine)
        right += int(np.sum(mine == known.to_numpy()))
        right_majority += int(np.sum(_majority(coded, scale) == known.to_numpy()))
    assert agree / total >= 0.999
    assert right >= right_majority, (model, right, right_majority)


def test_gold_clamps_and_improves(crowds):
    scale, judgments, truth = crowds[1]
    coded = code_judgments(judgments, scale)
    known = truth.set_index(["topic", "doc"])["label"].reindex(
        pd.MultiIndex.from_arrays([coded.topics[coded.item_topic], coded.item_doc])).to_numpy()
    gold = np.full(len(known), -1)
    gold[::3] = np.searchsorted(scale, known[::3])
    plain, seeded = fit_crowd(coded, "ds"), fit_crowd(coded, "ds", gold)
    assert np.all(seeded.decided[::3] == gold[::3])
    rest = np.ones(len(known), dtype=bool)
    rest[::3] = False
    hits = lambda r: np.sum(np.asarray(scale)[r.decided][rest] == known[rest])  # noqa: E731
    assert hits(seeded) >= hits(plain)


def test_frames_and_adversary_competence():
    judgments, _ = crowd(1, scale=(0, 1), n_pairs=300)
    coded = code_judgments(judgments, (0, 1))
    result = fit_crowd(coded, "ds")
    soft = posterior_frame(coded, result)
    sums = soft.groupby(["topic", "doc"])["probability"].sum()
    assert np.allclose(sums, 1.0) and len(soft) == 2 * len(sums)
    workers = worker_frame(result)
    assert list(workers.columns) == ["annotator", "labels", "competence", "confusion"]
    assert workers["labels"].sum() == len(judgments)
    ranked = workers.sort_values("competence")["annotator"].tolist()
    assert ranked[0] == "adversary0" and ranked[-1].startswith("good")
