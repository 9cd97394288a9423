"""``pooljudge simulate review`` end to end: Cranfield (skipped without the data), generated
collections, and bad input."""

from __future__ import annotations

import json

import pytest

from pooljudge.cli import main
from tests.review.test_cal import generated
from tests.support.cranfield import RELEVANT_LABEL, cranfield_dir, write_cranfield


@pytest.fixture(scope="module")
def cranfield(tmp_path_factory):
    return write_cranfield(cranfield_dir(), tmp_path_factory.mktemp("cranfield"))


def simulate(paths, *options, capsys) -> dict:
    qrels, docs, topics = paths
    status = main(["simulate", "review", str(qrels), "--docs", str(docs), "--topics", str(topics),
                   "--format", "json", *options])
    out = capsys.readouterr()
    assert status == 0, out.err
    return json.loads(out.out)


def test_cranfield_hypergeometric_meets_the_target(cranfield, capsys):
    """The claim: over the Cranfield topics with >= 5 relevant documents (grades 1-3), the
    hypergeometric rule at target 0.95, alpha 0.05 meets the target on >= 95% of topics."""
    result = simulate(cranfield, "--relevant", str(RELEVANT_LABEL), "--min-relevant", "5",
                      capsys=capsys)
    topics = result["topics"]
    print(result["summary"])
    assert len(topics) > 100
    met = [t["met"] for t in topics]
    assert all(t["recall"] == t["relevant_found"] / t["relevant"] for t in topics)
    assert all(t["met"] == (t["recall"] >= 0.95) for t in topics)
    for t in topics:
        assert t["rule"] == "hypergeometric" and t["guarantee"]
        assert t["exhausted"] or (t["p_value"] < 0.05 and t["recall_bound"] == 0.95)
    assert sum(met) / len(met) >= 0.95, result["summary"]
    assert sum(t["judged"] for t in topics) < 1400 * len(topics)  # it saves work


def write_collection(tmp_path, n_docs=1500, topics=4):
    docs, qrels, topic_lines = [], [], []
    for t in range(1, topics + 1):
        texts, truth = generated(n_docs, 10 + 5 * t, seed=t)
        if t == 1:
            docs = [{"id": f"d{i}", "title": "", "text": text} for i, text in enumerate(texts)]
        qrels += [f"{t} 0 d{i} {int(rel)}" for i, rel in enumerate(truth)]
        topic_lines.append(json.dumps({"id": str(t), "title": "hypersonic shock wave"}))
    (tmp_path / "q").write_text("\n".join(qrels) + "\n")
    (tmp_path / "d.jsonl").write_text("".join(json.dumps(d) + "\n" for d in docs))
    (tmp_path / "t.jsonl").write_text("\n".join(topic_lines) + "\n")
    return tmp_path / "q", tmp_path / "d.jsonl", tmp_path / "t.jsonl"


@pytest.mark.parametrize("rule", ["hypergeometric", "target", "knee"])
def test_every_rule_reports_per_topic_and_a_summary(tmp_path, capsys, rule):
    result = simulate(write_collection(tmp_path, topics=2), "--stopping", rule,
                      "--target", "0.8", capsys=capsys)
    assert [t["topic"] for t in result["topics"]] == ["1", "2"]
    assert {t["rule"] for t in result["topics"]} == {rule}
    met = sum(t["met"] for t in result["topics"])
    assert result["summary"].startswith(f"{rule}: {met}/2 topics")


def test_table_output_ends_with_the_summary_line(tmp_path, capsys):
    qrels, docs, topics = write_collection(tmp_path, n_docs=600, topics=1)
    assert main(["simulate", "review", str(qrels), "--docs", str(docs), "--topics",
                 str(topics)]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines[0].split()[:3] == ["topic", "judged", "relevant_found"]
    assert lines[-1].startswith("hypergeometric: ")


@pytest.mark.parametrize(("options", "message"), [
    (["--target", "1"], "--target"),
    (["--alpha", "0"], "--alpha"),
    (["--stopping", "guess"], "--stopping"),
    (["--min-relevant", "1000"], "no topic"),
])
def test_bad_options_are_one_line(tmp_path, capsys, options, message):
    qrels, docs, topics = write_collection(tmp_path, n_docs=200, topics=1)
    status = main(["simulate", "review", str(qrels), "--docs", str(docs), "--topics", str(topics),
                   *options])
    err = capsys.readouterr().err
    assert status == 2 and err.startswith("pooljudge: error: ") and message in err
    assert len(err.strip().splitlines()) == 1


def test_bad_qrels_line_is_named(tmp_path, capsys):
    qrels, docs, topics = write_collection(tmp_path, n_docs=200, topics=1)
    qrels.write_text("1 0 d1\n")
    status = main(["simulate", "review", str(qrels), "--docs", str(docs), "--topics", str(topics)])
    err = capsys.readouterr().err
    assert status == 2 and f"{qrels}:1" in err


def test_relevant_document_missing_from_docs(tmp_path, capsys):
    qrels, docs, topics = write_collection(tmp_path, n_docs=200, topics=1)
    qrels.write_text(qrels.read_text() + "1 0 nowhere 1\n")
    status = main(["simulate", "review", str(qrels), "--docs", str(docs), "--topics", str(topics)])
    assert status == 2 and "nowhere" in capsys.readouterr().err


def test_qrels_topic_missing_from_topics_is_a_warning(tmp_path, capsys):
    qrels, docs, topics = write_collection(tmp_path, n_docs=300, topics=1)
    qrels.write_text(qrels.read_text() + "77 0 d1 1\n")
    assert main(["simulate", "review", str(qrels), "--docs", str(docs), "--topics",
                 str(topics), "--format", "tsv"]) == 0
    out = capsys.readouterr()
    assert "1 topic(s) of QRELS are not in --topics" in out.err and "first 77" in out.err
    assert [line.split("\t")[0] for line in out.out.splitlines()] == ["topic", "1"]
