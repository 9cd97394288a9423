"""Evaluation units: chunk runs at document level, qrels moved between levels, level detection.

The document-level evaluation of a chunk run must equal, exactly, the evaluation of the document
run written out by hand; the conversion must match a plain-Python oracle on random runs with
many ties.
"""

from __future__ import annotations

import random

import pandas as pd
import pytest
from pooljudge.metrics.units import (
    document_run,
    level_of,
    prepare_units,
    qrels_to_chunks,
    qrels_to_documents,
    run_at_level,
    runs_to_documents,
)

from pooljudge import metrics
from pooljudge.errors import InputError, UsageError
from pooljudge.formats.trec import run_columns

# Documents and their chunks. D4's best chunk is deep; A and B have chunks whose ids order the
# other way round from the documents' ids; D5 is never retrieved; D6 is filler.
MAP = [("d1#1", "D1"), ("d1#2", "D1"), ("d1#3", "D1"), ("d2#1", "D2"), ("d2#2", "D2"),
       ("d3#1", "D3"), ("d4#1", "D4"), ("d4#2", "D4"), ("d5#1", "D5"), ("zA", "A"), ("aB", "B"),
       *((f"d6#{i}", "D6") for i in range(1, 6))]
# Topic 1, out of document order. Chunk ties: d1#3 and d1#1 (one document, the higher id
# first); d3#1 and d2#1 (D2 already placed by d2#2); zA and aB: the chunk order puts zA (doc A)
# first, but the documents tie on score and trec_eval puts B (the higher id) first.
RUN = [("1", "d2#2", 0.9), ("1", "d1#3", 0.8), ("1", "d4#2", 0.1), ("1", "d1#1", 0.8),
       ("1", "d3#1", 0.7), ("1", "d2#1", 0.7), ("1", "zA", 0.65), ("1", "aB", 0.65),
       ("1", "d1#2", 0.5), *(("1", f"d6#{i}", 0.6 - i / 20) for i in range(1, 6)),
       ("1", "d4#1", 0.05), ("2", "d4#1", 3.0), ("2", "d2#1", 2.0), ("2", "d4#2", 1.0)]
# By hand: (topic, doc, score, rank, best chunk, its rank in the chunk run).
DOCUMENT_RUN = [("1", "D2", 0.9, 1, "d2#2", 1), ("1", "D1", 0.8, 2, "d1#3", 2),
                ("1", "D3", 0.7, 3, "d3#1", 4), ("1", "B", 0.65, 4, "aB", 7),
                ("1", "A", 0.65, 5, "zA", 6), ("1", "D6", 0.55, 6, "d6#1", 8),
                ("1", "D4", 0.1, 7, "d4#2", 14), ("2", "D4", 3.0, 1, "d4#1", 1),
                ("2", "D2", 2.0, 2, "d2#1", 2)]
DOC_QRELS = [("1", "D1", 2), ("1", "D4", 1), ("1", "A", 1), ("1", "D5", 1), ("1", "D3", 0),
             ("2", "D2", 1), ("3", "D2", 1), ("3", "D9", 2)]
CHUNK_QRELS = [("1", "d1#1", 1), ("1", "d1#3", 0), ("1", "d1#2", 2), ("1", "d4#2", 1),
               ("1", "d3#1", 0), ("1", "zA", -1), ("2", "d2#1", 0), ("2", "d2#2", 3),
               ("3", "d5#1", 1)]
MEASURES = ["P@1", "P@3", "P@5", "AP", "nDCG@5", "nDCG", "RR", "R@5", "Judged@5", "NumRet",
            "RBP(p=0.5)", "infAP"]


def _units() -> pd.DataFrame:
    return pd.DataFrame(MAP, columns=["chunk", "doc"])


def _run() -> pd.DataFrame:
    return pd.DataFrame(RUN, columns=["topic", "doc", "score"])


def _qrels(rows) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=["topic", "doc", "label"])


def test_a_document_ranks_at_its_best_chunk_and_ties_follow_trec_eval():
    converted = runs_to_documents(_run(), _units())
    expected = pd.DataFrame(DOCUMENT_RUN, columns=["topic", "doc", "score", "rank", "chunk",
                                                   "chunk_rank"])
    pd.testing.assert_frame_equal(converted, expected, check_dtype=False)


@pytest.mark.parametrize("qrels", [DOC_QRELS], ids=["graded, a topic missing from the run"])
def test_document_level_evaluation_equals_the_hand_written_document_run(qrels):
    by_hand = pd.DataFrame([r[:3] for r in DOCUMENT_RUN], columns=["topic", "doc", "score"])
    converted = runs_to_documents(_run(), _units())[["topic", "doc", "score"]]
    shuffled = converted.sample(frac=1.0, random_state=3)  # file order does not matter
    ours = metrics.evaluate(_qrels(qrels), {"r": shuffled}, MEASURES)
    theirs = metrics.evaluate(_qrels(qrels), {"r": by_hand}, MEASURES)
    pd.testing.assert_frame_equal(ours, theirs)
    columns = document_run(run_columns(_run()), prepare_units(_units()))
    direct = metrics.evaluate(_qrels(qrels), {"r": pd.DataFrame({
        "topic": columns.topic.to_pylist(), "doc": columns.doc.to_pylist(),
        "score": columns.score})}, MEASURES)
    pd.testing.assert_frame_equal(direct, theirs)
    values = theirs.set_index(["topic", "measure"])["value"]
    assert values[("1", "P@3")] == pytest.approx(1 / 3)  # D2, D1 (2), D3 (0)
    assert values[("1", "RR")] == 0.5 and values[("3", "AP")] == 0.0


def test_named_runs_give_a_run_column():
    frame = runs_to_documents({"x": _run(), "y": _run().iloc[:3]}, _units())
    assert frame.columns[0] == "run"
    assert frame[frame["run"] == "y"]["doc"].tolist() == ["D2", "D1", "D4"]
    assert len(frame[frame["run"] == "x"]) == len(DOCUMENT_RUN)


def test_a_chunk_missing_from_the_map_is_named():
    run = pd.concat([_run(), pd.DataFrame([("2", "ghost", 9.0), ("1", "ghost2", 0.0)],
                                          columns=["topic", "doc", "score"])])
    with pytest.raises(InputError, match=r"run: chunk ghost \(topic 2\) is not in the unit map "
                                         r"\(2 chunk row"):
        runs_to_documents(run, _units())


def test_chunk_qrels_aggregate_to_their_best_chunk():
    with pytest.warns(UserWarning, match="1 of 6 judged document"):
        documents = qrels_to_documents(_qrels(CHUNK_QRELS), _units())
    got = {(t, d): (label, judged, chunks) for t, d, label, judged, chunks
           in documents.itertuples(index=False)}
    assert got == {("1", "D1"): (2, 3, 3), ("1", "D4"): (1, 1, 2), ("1", "D3"): (0, 1, 1),
                   ("1", "A"): (-1, 1, 1), ("2", "D2"): (3, 2, 2), ("3", "D5"): (1, 1, 1)}
    heard = []
    qrels_to_documents(_qrels(CHUNK_QRELS), _units(), warn=heard.append)
    assert heard == ["1 of 6 judged document(s) have unjudged chunks: each takes the highest "
                     "label of its judged chunks"]
    with pytest.raises(InputError, match="qrels: chunk nowhere"):
        qrels_to_documents(_qrels([*CHUNK_QRELS, ("1", "nowhere", 1)]), _units())


def test_document_qrels_apply_to_every_chunk():
    heard = []
    chunks = qrels_to_chunks(_qrels(DOC_QRELS), _units(), warn=heard.append)
    assert heard == ["1 judged document(s) (1 relevant) have no chunk in the unit map: they "
                     "have no chunk-level judgment"]
    got = {(t, c): (label, parent) for t, c, label, parent in chunks.itertuples(index=False)}
    assert got[("1", "d1#1")] == got[("1", "d1#2")] == got[("1", "d1#3")] == (2, "D1")
    assert got[("1", "d4#1")] == got[("1", "d4#2")] == (1, "D4")
    assert ("3", "D9") not in {(t, p) for (t, _), (_, p) in got.items()}
    assert len(chunks) == 3 + 2 + 1 + 1 + 1 + 2 + 2  # D1 D4 A D5 D3 (topic 1), D2, D2
    back = qrels_to_documents(chunks[["topic", "doc", "label"]], _units(), warn=heard.append)
    assert sorted(back[["topic", "doc", "label"]].itertuples(index=False, name=None)) == sorted(
        r for r in DOC_QRELS if r[1] != "D9")  # a round trip keeps the document labels


def test_levels_are_told_from_the_ids():
    units = prepare_units(_units())
    assert level_of(_run()["doc"], units, what="run") == "chunk"
    assert level_of(_qrels(DOC_QRELS)["doc"], units, what="qrels") == "doc"  # D9: unknown
    with pytest.raises(UsageError, match=r"run x mixes chunk ids \(d1#1\) and document ids "
                                         r"\(D1\)"):
        level_of(pd.Series(["d1#1", "D1"]), units, what="run x")
    with pytest.raises(InputError, match="none of the ids of run y is a chunk or a document"):
        level_of(pd.Series(["q", "r"]), units, what="run y")
    identity = prepare_units(pd.DataFrame({"chunk": ["a", "b", "b2"], "doc": ["a", "b", "b"]}))
    assert level_of(pd.Series(["a", "b"]), identity, what="run") == "doc"  # the same either way
    same = run_columns(pd.DataFrame({"topic": ["1", "1"], "doc": ["a", "b"], "score": [1, 2]}))
    assert run_at_level(same, identity, "chunk") is same  # its ids are chunks too
    assert run_at_level(same, identity, "doc") is same
    with pytest.raises(UsageError, match="run r ranks documents: it cannot be used at chunk"):
        run_at_level(run_columns(pd.DataFrame({"topic": ["1"], "doc": ["D1"], "score": [1]})),
                     units, "chunk", name="r")
    swapped = prepare_units(pd.DataFrame({"chunk": ["a", "b"], "doc": ["b", "a"]}))
    with pytest.raises(UsageError, match="ambiguous"):
        level_of(pd.Series(["a"]), swapped, what="run")


def _oracle(rows, doc_of):
    """Per topic: chunks by score then id descending; each document at its first chunk; the
    documents by score then id descending (bytes)."""
    out = []
    for topic in sorted({t for t, _, _ in rows}):
        chunks = sorted(((s, c.encode()) for t, c, s in rows if t == topic), reverse=True)
        best = {}
        for rank, (score, chunk) in enumerate(chunks, start=1):
            best.setdefault(doc_of[chunk.decode()], (score, chunk.decode(), rank))
        for doc, (score, chunk, rank) in sorted(best.items(), key=lambda kv: (kv[1][0],
                                                kv[0].encode()), reverse=True):
            out.append((topic, doc, score, chunk, rank))
    return out


@pytest.mark.parametrize("seed", range(6))
def test_random_runs_match_the_oracle(seed):
    rng = random.Random(seed)
    n_docs = rng.randint(1, 30)
    doc_of = {f"c{i}-{rng.randint(0, 99)}": f"d{rng.randint(0, n_docs)}" for i in range(80)}
    rows = [(str(rng.randint(1, 4)), chunk, float(rng.randint(0, 5)))
            for chunk in rng.sample(sorted(doc_of), rng.randint(1, 80))]
    rows = list({(t, c): (t, c, s) for t, c, s in rows}.values())
    units = pd.DataFrame(sorted(doc_of.items()), columns=["chunk", "doc"])
    got = runs_to_documents(pd.DataFrame(rows, columns=["topic", "doc", "score"]), units)
    got = got.sort_values("topic", kind="stable")
    assert list(got[["topic", "doc", "score", "chunk", "chunk_rank"]].itertuples(
        index=False, name=None)) == _oracle(rows, doc_of)
