"""``pooljudge agree`` on a campaign built by the store: pairs and per-topic agreement, undefined
values in words and as null."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from sklearn.metrics import cohen_kappa_score

from tests.support import graded_campaign as graded
from tests.support.graded_campaign import LABELS, flat, graded_campaign, run

campaign = graded.campaign  # the fixture: alice, bob, carol and adjudicator dave


def test_agree_json_pairs_match_sklearn(campaign, capsys):
    url, name = campaign
    status, out, _ = run(capsys, "agree", "--campaign", name, "--db", url, "--format", "json")
    assert status == 0
    report = json.loads(out)
    pairs = {(p["a"], p["b"]): p for p in report["pairs"]}
    assert set(pairs) == {("alice", "bob"), ("alice", "carol"), ("bob", "carol")}
    for (a, b), row in pairs.items():
        assert row["n"] == 6 and row["topics"] == 2
        assert row["cohen_kappa"] == pytest.approx(
            cohen_kappa_score(flat(a), flat(b), labels=[0, 1, 2]))
        assert row["weighted_kappa_linear"] == pytest.approx(
            cohen_kappa_score(flat(a), flat(b), labels=[0, 1, 2], weights="linear"))
        assert row["kappa_ci_low"] <= row["cohen_kappa"] <= row["kappa_ci_high"]
    assert report["overall"]["fleiss_kappa"] is not None
    assert report["settings"]["kappa_ci"]["statistic"] == "cohen_kappa"
    assert report["per_topic"] is None


def test_agree_per_topic_reports_undefined_as_null_and_in_words(campaign, capsys):
    url, name = campaign
    status, out, _ = run(capsys, "agree", "--campaign", name, "--db", url, "--format", "json",
                         "--per-topic")
    assert status == 0
    per_topic = {entry["topic"]: entry for entry in json.loads(out)["per_topic"]}
    assert set(per_topic) == {"t0", "t1"}
    for topic, entry in per_topic.items():
        assert entry["items_shared"] == 3
        for pair in entry["pairs"]:
            a = LABELS[pair["a"]][topic]
            b = LABELS[pair["b"]][topic]
            assert pair["n"] == 3
            assert pair["cohen_kappa"] == pytest.approx(cohen_kappa_score(a, b, labels=[0, 1, 2]))
    status, table, _ = run(capsys, "agree", "--campaign", name, "--db", url, "--per-topic")
    assert status == 0 and "Per topic and annotator pair" in table
    assert "kappa_ci_low/high: 95% percentile bootstrap CI of cohen_kappa over topics" in table


def test_agree_says_undefined_for_a_single_label(tmp_path, collection, capsys):
    from pooljudge.annotate.records import LabelScale
    from pooljudge.annotate.store import (
        add_annotator,
        create_campaign,
        import_judgments,
        open_engine,
        session_scope,
    )

    url = f"sqlite:///{tmp_path / 'one.db'}"
    engine = open_engine(url)
    with session_scope(engine) as session:
        create_campaign(session, name="one", scale=LabelScale.binary(), overlap=2,
                        **collection(1, 3))
        for annotator in ("x", "y"):
            add_annotator(session, campaign="one", name=annotator)
        import_judgments(session, campaign="one", frame=pd.DataFrame(
            [(a, "t0", f"d{i}", "1") for a in ("x", "y") for i in range(3)],
            columns=["annotator", "topic", "doc", "label"]))
    engine.dispose()
    status, out, _ = run(capsys, "agree", "--campaign", "one", "--db", url, "--format", "json")
    assert status == 0 and json.loads(out)["pairs"][0]["cohen_kappa"] is None
    status, table, _ = run(capsys, "agree", "--campaign", "one", "--db", url)
    lines = table.splitlines()
    header, row = lines[1].split(), lines[2].split()
    assert status == 0 and row[:2] == ["x", "y"]
    assert row[header.index("cohen_kappa")] == "undefined"
    assert row[header.index("agreement")] == "1.000"


# Per topic: t0 unanimous over three labels (kappa 1), t1 mixed, t2 one label only (undefined).
TOPIC_LABELS = {
    "alice": {"t0": [0, 2, 1], "t1": [0, 1, 2], "t2": [1, 1, 1]},
    "bob": {"t0": [0, 2, 1], "t1": [0, 2, 2], "t2": [1, 1, 1]},
    "carol": {"t0": [0, 2, 1], "t1": [1, 2, 2], "t2": [1, 1, 1]},
}


def _per_topic_rows(table: str) -> dict[str, str]:
    """The rows of the 'Per topic' section of ``agree``'s table, by topic."""
    lines = table.splitlines()
    start = lines.index("Per topic") + 2
    end = lines.index("", start)
    return {line.split()[0]: line for line in lines[start:end]}


def test_agree_per_topic_notes_only_undefined_kappas(tmp_path, collection, capsys):
    from statsmodels.stats.inter_rater import aggregate_raters, fleiss_kappa

    url = f"sqlite:///{tmp_path / 'topics.db'}"
    graded_campaign(url, collection, TOPIC_LABELS, 3)
    status, table, _ = run(capsys, "agree", "--campaign", "c", "--db", url, "--per-topic")
    assert status == 0
    shown = _per_topic_rows(table)
    assert set(shown) == {"t0", "t1", "t2"}
    for topic in ("t0", "t1"):
        raters = [[TOPIC_LABELS[a][topic][i] for a in TOPIC_LABELS] for i in range(3)]
        expected = fleiss_kappa(aggregate_raters(raters)[0], method="fleiss")
        assert shown[topic].split()[3] == f"{expected:.3f}"
        assert "undefined" not in shown[topic] and "not computed" not in shown[topic]
    assert shown["t0"].split()[3] == "1.000"
    assert shown["t2"].split()[3] == "undefined"
    assert "undefined: only one label was used" in shown["t2"]
