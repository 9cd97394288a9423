"""Agreement between two nugget banks: links recover planted matches (Unicode, reordering,
punctuation), the matching is the optimum and not greedy, empty banks and topics in one bank
only are counted, and the kappa of vital/okay equals scikit-learn's ``cohen_kappa_score``."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from pooljudge.metrics.nugget_bank_agreement import (
    BANK_AGREEMENT_COLUMNS,
    bank_agreement,
    link_banks,
    similarity_matrix,
    tokens,
)
from sklearn.metrics import cohen_kappa_score

WORDS = ["Übung", "straße", "café", "naïve", "日本語", "данные", "λόγος", "vaccine", "Guido",
         "Python", "1991", "polio", "Salk", "release", "ﬁle", "Ａｌｐｈａ", "quote\"s", "it's"]


def _bank(rows) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=["topic", "key", "text", "importance"])


def _generated(seed: int):
    """Banks A and B of the same topics: B keeps some of A's nuggets with their words
    reordered, re-cased and punctuated (similarity 1), flips some importances, and adds
    nuggets of words A never uses (similarity 0); planted: the pairs B kept."""
    rng = np.random.default_rng(seed)
    a, b, planted = [], [], set()
    fresh = iter(f"w{i}x" for i in range(10_000))
    for t in range(int(rng.integers(1, 7))):
        topic = f"t{t}"
        used: set[str] = set()
        for k in range(int(rng.integers(0, 9))):
            words = [w for w in rng.choice(WORDS, size=3, replace=False) if w not in used]
            words.append(next(fresh))  # every nugget of A has a word of its own
            used.update(words)
            importance = "vital" if rng.random() < 0.5 else "okay"
            a.append((topic, f"a-{topic}-{k}", " ".join(words), importance))
            if rng.random() < 0.6:
                shuffled = [str(w) for w in rng.permutation(words)]
                text = ", ".join(w.upper() if rng.random() < 0.5 else w for w in shuffled) + "!"
                flip = rng.random() < 0.3
                b.append((topic, f"b-{topic}-{k}", text,
                          {"vital": "okay", "okay": "vital"}[importance] if flip
                          else importance))
                planted.add((topic, f"a-{topic}-{k}", f"b-{topic}-{k}"))
        for k in range(int(rng.integers(0, 3))):
            b.append((topic, f"b-{topic}-new{k}", f"{next(fresh)} {next(fresh)}", "okay"))
    b = [b[i] for i in rng.permutation(len(b))] if b else b
    return _bank(a), _bank(b), planted


def _sklearn_kappa(links: pd.DataFrame) -> float:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        value = cohen_kappa_score(links["a_importance"], links["b_importance"],
                                  labels=["vital", "okay"])
    return float(value)


def _same(x: float, y: float) -> bool:
    return (math.isnan(x) and math.isnan(y)) or math.isclose(x, y, abs_tol=1e-12)


@pytest.mark.parametrize("seed", range(40))
def test_generated_banks_links_counts_and_kappa(seed):
    a, b, planted = _generated(seed)
    table, links = bank_agreement(a, b)
    assert list(table.columns) == list(BANK_AGREEMENT_COLUMNS)
    assert set(zip(links["topic"], links["a_key"], links["b_key"], strict=True)) == planted
    assert (links["similarity"] == 1.0).all()
    rows = table.set_index("topic")
    for topic in rows.index:
        ours = links if topic == "all" else links[links["topic"] == topic]
        a_n = len(a) if topic == "all" else int((a["topic"] == topic).sum())
        b_n = len(b) if topic == "all" else int((b["topic"] == topic).sum())
        row = rows.loc[topic]
        assert (row["a"], row["b"], row["linked"]) == (a_n, b_n, len(ours))
        assert _same(row["share_a_linked"], len(ours) / a_n if a_n else math.nan)
        assert _same(row["share_b_linked"], len(ours) / b_n if b_n else math.nan)
        agree = (ours["a_importance"] == ours["b_importance"]).mean() if len(ours) else math.nan
        assert _same(row["importance_agreement"], agree)
        expected = _sklearn_kappa(ours) if len(ours) else math.nan
        assert _same(row["kappa"], expected), (topic, row["kappa"], expected)
        assert row[["vital_vital", "vital_okay", "okay_vital", "okay_okay"]].sum() == len(ours)


@pytest.mark.parametrize("seed", range(10))
def test_swapping_the_banks_swaps_the_shares_and_keeps_the_links(seed):
    a, b, _ = _generated(seed)
    forward, links = bank_agreement(a, b, threshold=0.3)
    backward, back_links = bank_agreement(b, a, threshold=0.3, topics=forward["topic"][:-1])
    pairs = set(zip(links["a_key"], links["b_key"], strict=True))
    assert set(zip(back_links["b_key"], back_links["a_key"], strict=True)) == pairs
    assert forward["share_a_linked"].equals(backward["share_b_linked"])
    assert np.allclose(forward["kappa"], backward["kappa"], equal_nan=True)
    assert forward["vital_okay"].equals(backward["okay_vital"])


def test_the_matching_maximises_total_similarity_where_greedy_links_one_pair():
    # J(A1, B1) = 0.8 is the best pair, but taking it leaves A2 and B2 (J = 0) unlinked; the
    # optimum links A1-B2 (0.5) and A2-B1 (0.6)
    a = _bank([("q", "A1", "p q r s", "vital"), ("q", "A2", "r s t", "okay")])
    b = _bank([("q", "B1", "p q r s t", "vital"), ("q", "B2", "p q", "okay")])
    scores = similarity_matrix(a["text"], b["text"])
    assert np.allclose(scores, [[0.8, 0.5], [0.6, 0.0]])
    links = link_banks(a, b, threshold=0.5)
    assert list(zip(links["a_key"], links["b_key"], strict=True)) == [("A1", "B2"), ("A2", "B1")]
    assert list(link_banks(a, b, threshold=0.7)["b_key"]) == ["B1"]  # only 0.8 admissible


def test_unicode_normalisation_and_texts_without_words():
    assert tokens("ﬁle Ａｌｐｈａ １９９１") == tokens("FILE alpha 1991")  # NFKC, case folding
    assert tokens("Straße") == tokens("STRASSE")  # full case folding
    assert tokens("日本語 は") == frozenset({"日本語", "は"})
    assert tokens(" ?! ") == frozenset({"?!"}) != tokens("!?")
    a = _bank([("1", "a", "Ünïcode été", "vital"), ("1", "b", "?!", "okay")])
    b = _bank([("1", "c", "ÉTÉ, ünïcode.", "vital"), ("1", "d", "!?", "okay")])
    links = link_banks(a, b)
    assert list(zip(links["a_key"], links["b_key"], strict=True)) == [("a", "c")]


def test_empty_banks_and_topics_in_one_bank_only():
    a = _bank([("1", "a1", "alpha beta", "vital"), ("2", "a2", "gamma", "okay")])
    b = _bank([("1", "b1", "beta alpha", "okay"), ("3", "b3", "delta", "vital")])
    table, links = bank_agreement(a, b, topics=["0", "1"])
    rows = table.set_index("topic")
    assert list(rows.index) == ["0", "1", "2", "3", "all"]
    assert rows.loc["0", ["a", "b", "linked"]].tolist() == [0, 0, 0]
    assert rows.loc[["0"], ["share_a_linked", "share_b_linked", "kappa"]].isna().all(axis=None)
    assert (rows.loc["2", "share_a_linked"], math.isnan(rows.loc["2", "share_b_linked"])) == (
        0.0, True)
    assert (math.isnan(rows.loc["3", "share_a_linked"]), rows.loc["3", "share_b_linked"]) == (
        True, 0.0)
    assert rows.loc["1", ["linked", "vital_okay", "importance_agreement"]].tolist() == [1, 1, 0.0]
    assert rows.loc["all", ["a", "b", "linked", "share_a_linked"]].tolist() == [2, 2, 1, 0.5]
    assert len(links) == 1
    empty = a.iloc[:0]
    table, links = bank_agreement(empty, empty)
    assert table["topic"].tolist() == ["all"] and links.empty
    assert table.loc[0, ["a", "b", "linked"]].tolist() == [0, 0, 0]
    table, _ = bank_agreement(a, empty)
    assert table.set_index("topic").loc["all", ["a", "b", "share_a_linked"]].tolist() == [
        2, 0, 0.0]


def test_kappa_is_undefined_when_both_sides_give_one_importance():
    a = _bank([("1", "a1", "alpha", "vital"), ("1", "a2", "beta", "vital")])
    b = _bank([("1", "b1", "alpha", "vital"), ("1", "b2", "beta", "vital")])
    row = bank_agreement(a, b)[0].iloc[-1]
    assert row["importance_agreement"] == 1.0 and math.isnan(row["kappa"])


@pytest.mark.parametrize("threshold", [0.0, -0.1, 1.5])
def test_a_threshold_outside_the_unit_interval_is_refused(threshold):
    a = _bank([("1", "a", "x", "vital")])
    with pytest.raises(ValueError, match="threshold must be in"):
        link_banks(a, a, threshold=threshold)


def test_a_bank_with_a_bad_importance_is_refused():
    a = _bank([("1", "a", "x", "high")])
    with pytest.raises(ValueError, match="bank A: importance must be vital or okay"):
        link_banks(a, a)
