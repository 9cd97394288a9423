"""Stage comparison: moves in and out of the top k counted by hand, NumRet and fewer than k, a
query missing from a stage, score ties, the measures against pooljudge.metrics.evaluate and the
tests
against scipy on the same deltas."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from pooljudge.metrics.stages import (
    MOVE_COLUMNS,
    PER_QUERY_COLUMNS,
    SUMMARY_COLUMNS,
    compare_stages,
    steps,
)
from scipy import stats
from statsmodels.stats.multitest import multipletests

from pooljudge import metrics
from pooljudge.errors import InputError

QRELS = {"q1": {"r1": 1, "r2": 2, "r3": 1, "r4": 1, "n1": 0, "n2": 0, "n3": 0},
         "q2": {"s1": 1, "s2": 2, "x1": 0},
         "q3": {"t1": 1}}
# (topic, doc, score). Ties: retA q1 n2/r2 at 7 (r2 ranks 3rd: doc ids descending, although n2
# comes first in the file), retA q2 x1/s1 at 5 (x1 first), ctxA q2 s2/s1 (s2 first).
RUNS = {
    "retA": [("q1", "n1", 9), ("q1", "r1", 8), ("q1", "n2", 7), ("q1", "r2", 7), ("q1", "r3", 5),
             ("q1", "n3", 4), ("q2", "s1", 5), ("q2", "x1", 5), ("q2", "x2", 3), ("q2", "s2", 2),
             ("q3", "u1", 3), ("q3", "t1", 2)],
    "rrA": [("q1", "r2", 9), ("q1", "r3", 8), ("q1", "n1", 7), ("q1", "r1", 6), ("q3", "t1", 5),
            ("q3", "u1", 4)],
    "ctxA": [("q1", "r2", 1.0), ("q1", "r1", 0.5), ("q2", "s1", 1), ("q2", "s2", 1),
             ("q3", "t1", 1)],
    "rrB": [("q1", "r4", 9), ("q1", "r1", 8), ("q1", "r2", 7), ("q1", "n1", 6), ("q2", "s2", 9),
            ("q2", "s1", 8), ("q3", "t1", 1)],
}
RUNS["ctxB"] = RUNS["rrB"]
MANIFEST = pd.DataFrame({
    "run": ["retA", "rrA", "ctxA", "ctxB", "retA", "rrB"],  # B's rows out of stage order
    "stage": ["retrieve", "rerank", "context", "context", "retrieve", "rerank"],
    "pipeline": ["A", "A", "A", "B", "B", "B"],
})


def _qrels() -> pd.DataFrame:
    return pd.DataFrame([(t, d, lab) for t, docs in QRELS.items() for d, lab in docs.items()],
                        columns=["topic", "doc", "label"])


def _runs() -> dict[str, pd.DataFrame]:
    return {name: pd.DataFrame(rows, columns=["topic", "doc", "score"])
            for name, rows in RUNS.items()}


@pytest.fixture(scope="module")
def result():
    return compare_stages(_qrels(), MANIFEST, _runs(), k=3, n_resamples=200)


def _row(frame, pipeline, step, topic=None, measure="P@3"):
    chosen = (frame["pipeline"] == pipeline) & (frame["step"] == step)
    chosen &= frame["measure"] == measure
    if topic is not None:
        chosen &= frame["topic"] == topic
    assert chosen.sum() == 1
    return frame[chosen].iloc[0]


def _moves(result, pipeline, step, topic, move):
    m = result.moves
    chosen = m[(m["pipeline"] == pipeline) & (m["step"] == step) & (m["topic"] == topic)
               & (m["move"] == move)]
    return [(d, None if pd.isna(b) else int(b), None if pd.isna(a) else int(a))
            for d, b, a in zip(chosen["doc"], chosen["rank_before"], chosen["rank_after"],
                               strict=True)]


def test_steps_follow_the_chain_order_whatever_the_row_order():
    table, warnings = steps(pd.DataFrame({"pipeline": ["B", "B", "A", "A", "C"],
                                          "stage": ["context", "retrieve", "rerank", "retrieve",
                                                    "rerank"],
                                          "run": ["b3", "b1", "a2", "a1", "c"]}))
    assert table[["pipeline", "step", "before_run", "after_run"]].values.tolist() == [
        ["B", "retrieve->context", "b1", "b3"], ["A", "retrieve->rerank", "a1", "a2"]]
    assert warnings == ["pipeline 'C' has only a rerank run: nothing to compare"]


def test_moves_in_out_and_kept_counted_by_hand(result):
    assert list(result.moves.columns) == MOVE_COLUMNS
    step = "retrieve->rerank"
    # q1: top 3 before n1 r1 r2 (r2 wins the tie with n2), after r2 r3 n1.
    assert _moves(result, "A", step, "q1", "in") == [("r3", 5, 2)]
    assert _moves(result, "A", step, "q1", "out") == [("r1", 2, 4)]
    assert _moves(result, "A", step, "q1", "kept") == [("r2", 3, 1)]
    # q2: the reranker returned nothing for it.
    assert _moves(result, "A", step, "q2", "out") == [("s1", 2, None)]
    assert _moves(result, "A", "rerank->context", "q2", "in") == [("s2", None, 1),
                                                                  ("s1", None, 2)]
    assert _moves(result, "A", "rerank->context", "q1", "out") == [("r3", 2, None)]
    assert _moves(result, "B", step, "q1", "in") == [("r4", None, 1)]
    assert _moves(result, "B", step, "q2", "in") == [("s2", 4, 1)]
    assert result.moves.loc[result.moves["doc"] == "s2", "label"].tolist() == [2, 2, 2]


def test_per_query_counts_numret_and_fewer_than_k(result):
    pq = result.per_query
    assert list(pq.columns) == PER_QUERY_COLUMNS
    assert len(pq) == 4 * 3 * 2  # steps x qrels topics x measures
    expected = {  # topic: rel_in, rel_out, rel_kept, numret before/after, fewer before/after
        "q1": (1, 1, 1, 6, 4, False, False),
        "q2": (0, 1, 0, 4, 0, False, True),
        "q3": (0, 0, 1, 2, 2, True, True),
    }
    for topic, want in expected.items():
        row = _row(pq, "A", "retrieve->rerank", topic, "nDCG@3")
        got = tuple(row[c] for c in ("rel_in", "rel_out", "rel_kept", "numret_before",
                                     "numret_after", "fewer_than_k_before",
                                     "fewer_than_k_after"))
        assert got == want, topic
    q2 = _row(pq, "A", "retrieve->rerank", "q2")
    assert (q2["before"], q2["after"], q2["delta"]) == pytest.approx((1 / 3, 0.0, -1 / 3))


def test_measures_are_those_of_metrics_evaluate(result):
    evaluated = metrics.evaluate(_qrels(), _runs(), ["P@3", "nDCG@3"])
    value = evaluated.set_index(["run", "topic", "measure"])["value"]
    for row in result.per_query.itertuples():
        assert row.before == value[(row.before_run, row.topic, row.measure)]
        assert row.after == value[(row.after_run, row.topic, row.measure)]


def test_summary_totals_wins_losses_ties(result):
    s = result.summary
    assert list(s.columns) == SUMMARY_COLUMNS
    assert s[["pipeline", "step"]].drop_duplicates().values.tolist() == [
        ["A", "retrieve->rerank"], ["A", "rerank->context"], ["B", "retrieve->rerank"],
        ["B", "rerank->context"]]
    first = _row(s, "A", "retrieve->rerank")
    assert (first["rel_in"], first["rel_out"], first["rel_kept"]) == (1, 2, 2)
    assert (first["numret_before"], first["numret_after"]) == (12, 6)
    assert (first["fewer_than_k_before"], first["fewer_than_k_after"]) == (1, 2)
    assert (first["wins"], first["losses"], first["ties"]) == (0, 1, 2)
    assert first["queries"] == 3
    assert first["delta"] == pytest.approx(-1 / 9)
    context = _row(s, "A", "rerank->context")
    assert (context["rel_in"], context["rel_out"], context["rel_kept"]) == (3, 1, 2)
    assert (context["numret_before"], context["numret_after"]) == (6, 5)
    assert (context["fewer_than_k_before"], context["fewer_than_k_after"]) == (2, 3)
    assert (context["wins"], context["losses"], context["ties"]) == (1, 0, 2)
    unchanged = _row(s, "B", "rerank->context", measure="nDCG@3")
    assert (unchanged["wins"], unchanged["losses"], unchanged["ties"]) == (0, 0, 3)
    assert (unchanged["rel_in"], unchanged["rel_out"]) == (0, 0)
    assert np.isnan(unchanged["t_p"]) and unchanged["perm_p"] == pytest.approx(1.0)
    assert any("fewer than 25" in w for w in result.warnings)
    assert "run rrA: nothing returned for 1 qrels topic(s), e.g. q2: they score 0 for this " \
           "stage" in result.warnings


def _random_collection(rng, topics=30, docs=20):
    qrels = pd.DataFrame([(f"t{t:02d}", f"d{d}", int(rng.integers(0, 3)))
                          for t in range(topics) for d in range(docs)],
                         columns=["topic", "doc", "label"])
    runs = {}
    for name in ("ret", "rr", "ctx", "ret2", "rr2"):
        keep = docs if name.startswith("ret") else docs // 2
        runs[name] = pd.DataFrame([(f"t{t:02d}", f"d{d}", float(rng.uniform()))
                                   for t in range(topics) for d in rng.permutation(docs)[:keep]],
                                  columns=["topic", "doc", "score"])
    manifest = pd.DataFrame({"run": ["ret", "rr", "ctx", "ret2", "rr2"],
                             "stage": ["retrieve", "rerank", "context", "retrieve", "rerank"],
                             "pipeline": ["one", "one", "one", "two", "two"]})
    return qrels, runs, manifest


def test_significance_against_scipy_on_the_same_deltas():
    qrels, runs, manifest = _random_collection(np.random.default_rng(4))
    result = compare_stages(qrels, manifest, runs, k=5, measures=["P@5", "AP"],
                            n_resamples=999, seed=7)
    assert not any("fewer than 25" in w for w in result.warnings)
    for measure, rows in result.summary.groupby("measure"):
        for row in rows.itertuples():
            pq = result.per_query[(result.per_query["pipeline"] == row.pipeline)
                                  & (result.per_query["step"] == row.step)
                                  & (result.per_query["measure"] == measure)]
            before, after = pq["before"].to_numpy(), pq["after"].to_numpy()
            assert row.t_p == pytest.approx(stats.ttest_rel(after, before).pvalue, rel=1e-12)
            perm = stats.permutation_test(
                (after, before), lambda x, y, axis: np.mean(x - y, axis=axis),
                permutation_type="samples", vectorized=True, n_resamples=999, random_state=7)
            assert row.perm_p == pytest.approx(perm.pvalue)
            assert row.delta == pytest.approx(np.mean(after - before))
            assert row.wins == int((after > before).sum())
            assert row.losses == int((after < before).sum())
        np.testing.assert_allclose(rows["t_p_holm"], multipletests(rows["t_p"], method="holm")[1])
        np.testing.assert_allclose(rows["perm_p_holm"],
                                   multipletests(rows["perm_p"], method="holm")[1])
    again = compare_stages(qrels, manifest, runs, k=5, measures=["P@5", "AP"],
                           n_resamples=999, seed=7)
    pd.testing.assert_frame_equal(again.summary, result.summary)


def test_moves_agree_with_a_direct_set_computation():
    qrels, runs, manifest = _random_collection(np.random.default_rng(9), topics=8)
    k = 4
    result = compare_stages(qrels, manifest, runs, k=k, n_resamples=50)
    relevant = {(t, d) for t, d, lab in qrels.itertuples(index=False) if lab >= 1}

    def top(run):
        ranked = run.sort_values(["topic", "score", "doc"], ascending=[True, False, False])
        return {(t, d) for t, d in ranked.groupby("topic").head(k)[["topic", "doc"]]
                .itertuples(index=False)} & relevant

    for step in result.summary.itertuples():
        before, after = top(runs[step.before_run]), top(runs[step.after_run])
        moves = result.moves[(result.moves["pipeline"] == step.pipeline)
                             & (result.moves["step"] == step.step)]
        for move, want in (("in", after - before), ("out", before - after),
                           ("kept", before & after)):
            got = moves[moves["move"] == move]
            assert set(zip(got["topic"], got["doc"], strict=True)) == want


def test_groups_repeat_the_summary_per_group(result):
    groups = pd.DataFrame({"topic": ["q1", "q2", "q3"], "group": ["x", "y", "x"]})
    grouped = compare_stages(_qrels(), MANIFEST, _runs(), k=3, n_resamples=50, groups=groups)
    s = grouped.summary
    assert list(s.columns) == ["group", *SUMMARY_COLUMNS, "group_p_holm", "regression"]
    assert list(pd.unique(s["group"])) == ["all", "x", "y"]
    y = s[(s["group"] == "y") & (s["pipeline"] == "A") & (s["step"] == "retrieve->rerank")
          & (s["measure"] == "P@3")].iloc[0]
    assert (y["queries"], y["rel_out"], y["numret_after"]) == (1, 1, 0)
    assert not s["regression"].any()
    assert [w for w in grouped.warnings if "queries paired" in w] == [
        f"{where}only {n} queries paired: fewer than 25 are too few to tell stages apart "
        "reliably" for where, n in (("", 3), ("group 'x': ", 2), ("group 'y': ", 1))]


def test_bad_arguments():
    with pytest.raises(InputError, match="k and rel must be at least 1"):
        compare_stages(_qrels(), MANIFEST, _runs(), k=0)
    with pytest.raises(InputError, match="unknown measure"):
        compare_stages(_qrels(), MANIFEST, _runs(), measures=["Precision@3"])
    with pytest.raises(InputError, match=r"manifest:2: run 'retA' is not a file"):
        compare_stages(_qrels(), MANIFEST, {})


def test_checked_columns_and_run_only_topics():
    from pooljudge.formats.trec import run_columns

    runs = _runs()
    runs["rrA"] = pd.concat([runs["rrA"], pd.DataFrame({"topic": ["q9"], "doc": ["z"],
                                                        "score": [1.0]})], ignore_index=True)
    given = {name: run_columns(frame, name=name) for name, frame in runs.items()}
    result = compare_stages(_qrels(), MANIFEST, given, k=3, n_resamples=50)
    assert "run rrA: 1 topic(s) not in the qrels, ignored" in result.warnings
    assert set(result.per_query["topic"]) == {"q1", "q2", "q3"}
    reference = compare_stages(_qrels(), MANIFEST, _runs(), k=3, n_resamples=50)
    pd.testing.assert_frame_equal(result.summary, reference.summary)
    pd.testing.assert_frame_equal(result.moves, reference.moves)
