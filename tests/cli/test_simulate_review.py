"""``pooljudge simulate review`` end to end: Cranfield (skipped without the data), generated
collections, and bad input."""

from __future__ import annotations

import json

import pytest
from pooljudge.pooling.stopping import GUARANTEES, RULES
from scipy.stats import binomtest

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
        assert t["rule"] == "hypergeometric" and t["guarantee"] and t["seed"] == 0
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


@pytest.mark.parametrize("rule", RULES)
def test_every_rule_reports_per_topic_and_a_summary(tmp_path, capsys, rule):
    result = simulate(write_collection(tmp_path, topics=2), "--stopping", rule,
                      "--target", "0.8", capsys=capsys)
    assert [t["topic"] for t in result["topics"]] == ["1", "2"]
    assert {t["rule"] for t in result["topics"]} == {rule}
    met = sum(t["met"] for t in result["topics"])
    kind = "guarantee" if rule in GUARANTEES else "heuristic"
    assert result["summary"].startswith(f"{rule} ({kind}): {met}/2 runs")
    assert [r["rule"] for r in result["rules"]] == [rule]


def test_all_rules_over_seeds_with_binomial_intervals_and_a_plot(tmp_path, capsys):
    plot = tmp_path / "effort.png"
    result = simulate(write_collection(tmp_path, n_docs=800, topics=2), "--stopping", "all",
                      "--seeds", "3", "--seed", "5", "--target", "0.8", "--plot", str(plot),
                      capsys=capsys)
    runs = result["topics"]
    assert len(runs) == 2 * 3 * len(RULES)
    assert {(t["topic"], t["seed"]) for t in runs} == {(a, b) for a in "12" for b in (5, 6, 7)}
    assert [r["rule"] for r in result["rules"]] == list(RULES)
    for rule in result["rules"]:
        mine = [t for t in runs if t["rule"] == rule["rule"]]
        reached = sum(t["met"] for t in mine)
        interval = binomtest(reached, 6).proportion_ci(method="exact")
        assert (rule["runs"], rule["reached"]) == (6, reached)
        assert rule["reliability"] == reached / 6
        assert rule["low"] == pytest.approx(interval.low, abs=1e-12)
        assert rule["high"] == pytest.approx(interval.high, abs=1e-12)
        assert rule["saved"] == pytest.approx(sum(t["saved"] for t in mine) / 6)
        assert rule["kind"] == ("guarantee" if rule["rule"] in GUARANTEES else "heuristic")
    lines = result["summary"].splitlines()
    assert [line.split(" ")[0] for line in lines[:-1]] == list(RULES)
    assert lines[-1].startswith("6 runs per rule in ")
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_the_same_seed_gives_the_same_replay(tmp_path, capsys):
    paths = write_collection(tmp_path, n_docs=600, topics=1)
    first = simulate(paths, "--stopping", "all", "--seed", "9", capsys=capsys)["topics"]
    assert simulate(paths, "--stopping", "all", "--seed", "9", capsys=capsys)["topics"] == first


def test_table_output_ends_with_the_rules_and_their_lines(tmp_path, capsys):
    qrels, docs, topics = write_collection(tmp_path, n_docs=600, topics=1)
    assert main(["simulate", "review", str(qrels), "--docs", str(docs), "--topics",
                 str(topics), "--stopping", "knee", "target"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines[0].split()[:4] == ["topic", "seed", "rule", "judged"]
    assert lines[-3].startswith("knee (heuristic): ")
    assert lines[-2].startswith("target (guarantee): ")
    assert lines[-1].startswith("1 runs per rule in ")
    assert any(line.split()[:3] == ["rule", "kind", "runs"] for line in lines)


@pytest.mark.parametrize(("options", "message"), [
    (["--target", "1"], "--target"),
    (["--alpha", "0"], "--alpha"),
    (["--stopping", "guess"], "--stopping"),
    (["--stopping", "qbcb", "--positives", "10"], "--positives: 10 sample relevant"),
    (["--seeds", "0"], "--seeds"),
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


def test_a_rule_prints_the_same_rows_alone_as_beside_the_others(tmp_path, capsys):
    paths = write_collection(tmp_path, n_docs=500, topics=2)
    together = simulate(paths, "--stopping", "all", capsys=capsys)["topics"]
    for rule in RULES:
        alone = simulate(paths, "--stopping", rule, capsys=capsys)["topics"]
        assert alone == [t for t in together if t["rule"] == rule]
    qrels, docs, topics = paths
    tables = []
    for stopping in (["knee"], ["knee", "target"]):
        assert main(["simulate", "review", str(qrels), "--docs", str(docs), "--topics",
                     str(topics), "--format", "tsv", "--stopping", *stopping]) == 0
        tables.append(capsys.readouterr().out.splitlines())
    knee_rows = [line for line in tables[1] if "\tknee\t" in line]
    assert tables[0][1:] == knee_rows and "None" not in "".join(tables[1])
