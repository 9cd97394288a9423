"""infAP checked by hand on a small case, against AP on complete judgments, and by name.

(trec_eval 10's own infAP values, negative labels and -J included, are compared in
test_trec_eval10.py.)"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from pooljudge import metrics


def _value(qrels: pd.DataFrame, run: pd.DataFrame, measure: str) -> float:
    frame = metrics.evaluate(qrels, {"r": run}, [measure], per_topic=False)
    return float(frame["value"].iat[0])


def _run(docs: list[str]) -> pd.DataFrame:
    return pd.DataFrame({"topic": "1", "doc": docs, "score": np.arange(len(docs), 0, -1.0)})


QRELS = pd.DataFrame({"topic": "1", "doc": ["a", "b", "c", "d", "e"], "label": [1, 0, -1, 1, 1]})


def test_infap_by_hand_with_unpooled_and_unsampled_documents():
    """Ranking x a c b d: x has no qrels line (never pooled), c is pooled but unsampled (-1),
    b judged non-relevant; R = 3 (a, d, e).
    a at rank 2: 1/2 + (1/2)·(0/1)·(ε/2ε) = 1/2.
    d at rank 5: 1/5 + (4/5)·((1 + 1 + 1)/4)·((1 + ε)/(1 + 1 + 2ε)) = 1/5 + 3/10 = 1/2.
    infAP = (1/2 + 1/2) / 3; AP = (1/2 + 2/5) / 3 counts c and x as non-relevant."""
    run = _run(["x", "a", "c", "b", "d"])
    assert _value(QRELS, run, "infAP") == pytest.approx(1 / 3, abs=1e-12)
    assert _value(QRELS, run, "AP") == pytest.approx(0.3, abs=1e-12)


def test_infap_is_1_over_r_for_a_relevant_document_at_rank_1():
    assert _value(QRELS, _run(["d", "b"]), "infAP") == pytest.approx(1 / 3, abs=1e-12)


def test_infap_is_0_without_relevant_documents_or_a_ranking():
    none = QRELS.assign(label=0)
    assert _value(none, _run(["a", "b"]), "infAP") == 0.0
    other = pd.DataFrame({"topic": ["1"], "doc": ["zz"], "score": [1.0]})
    assert _value(QRELS.assign(topic="2"), other, "infAP") == 0.0


def test_infap_equals_ap_up_to_epsilon_on_complete_judgments():
    rng = np.random.default_rng(7)
    rows, runs = [], []
    for topic in range(30):
        docs = [f"d{i}" for i in range(40)]
        rows += [(str(topic), d, int(rng.integers(0, 3))) for d in docs]
        runs += [(str(topic), d, float(s)) for d, s in zip(docs, rng.random(40), strict=True)]
    qrels = pd.DataFrame(rows, columns=["topic", "doc", "label"])
    run = pd.DataFrame(runs, columns=["topic", "doc", "score"])
    frame = metrics.evaluate(qrels, {"r": run}, ["infAP", "AP", "infAP(rel=2)", "AP(rel=2)"])
    values = frame.pivot_table(index="topic", columns="measure", values="value")
    assert np.allclose(values["infAP"], values["AP"], atol=1e-4)
    assert np.allclose(values["infAP(rel=2)"], values["AP(rel=2)"], atol=1e-4)
    assert not np.allclose(values["infAP"], values["AP"], rtol=0, atol=1e-12)  # ε is there


@pytest.mark.parametrize("name", ["infAP", "infAP(rel=2)"])
def test_infap_name_round_trips(name):
    assert str(metrics.parse(name)) == name
    assert metrics.parse(str(metrics.parse(name))) == metrics.parse(name)
