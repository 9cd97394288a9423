"""``pooljudge agree``, ``export`` and ``adjudication list`` on a campaign built by the store."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from sklearn.metrics import cohen_kappa_score

from pooljudge.cli import main
from pooljudge.formats.trec import read_qrels

# Three annotators on topics t0, t1 and documents d0..d2 (scale 0-2).
LABELS = {
    "alice": {"t0": [0, 1, 2], "t1": [0, 2, 1]},
    "bob": {"t0": [0, 2, 2], "t1": [0, 2, 0]},
    "carol": {"t0": [2, 1, 2], "t1": [0, 2, 2]},
}


def graded_campaign(url: str, collection, labels: dict, n_topics: int, *,
                    adjudicator: str | None = None) -> None:
    """Campaign ``c`` (scale 0-2, overlap 3) with ``labels[annotator][topic]`` = the labels of
    d0, d1, … imported, and an adjudicator when one is named."""
    from pooljudge.annotate.records import LabelScale
    from pooljudge.annotate.store import (
        add_annotator,
        create_campaign,
        import_judgments,
        open_engine,
        session_scope,
    )

    engine = open_engine(url)
    rows = [(name, topic, f"d{i}", str(label)) for name, topics in labels.items()
            for topic, values in topics.items() for i, label in enumerate(values)]
    with session_scope(engine) as session:
        create_campaign(session, name="c", scale=LabelScale.range(0, 2), overlap=3,
                        **collection(n_topics, 3))
        for name in labels:
            add_annotator(session, campaign="c", name=name)
        if adjudicator is not None:
            add_annotator(session, campaign="c", name=adjudicator, role="adjudicator")
        import_judgments(session, campaign="c", frame=pd.DataFrame(
            rows, columns=["annotator", "topic", "doc", "label"]))
    engine.dispose()


@pytest.fixture
def campaign(tmp_path, collection) -> tuple[str, str]:
    """A campaign judged by alice, bob and carol, with adjudicator dave; (db url, name)."""
    url = f"sqlite:///{tmp_path / 'campaign.db'}"
    graded_campaign(url, collection, LABELS, 2, adjudicator="dave")
    return url, "c"


def adjudicate(url: str, topic: str, doc: str, label: int) -> None:
    from pooljudge.annotate.store import import_judgments, open_engine, session_scope

    engine = open_engine(url)
    with session_scope(engine) as session:
        import_judgments(session, campaign="c", frame=pd.DataFrame(
            [("dave", topic, doc, str(label), "adjudication")],
            columns=["annotator", "topic", "doc", "label", "kind"]))
    engine.dispose()


def run(capsys, *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def flat(name: str) -> list[int]:
    return LABELS[name]["t0"] + LABELS[name]["t1"]


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


def test_export_majority_writes_qrels_and_provenance(campaign, capsys, tmp_path):
    url, name = campaign
    output = tmp_path / "qrels.txt"
    status, _, err = run(capsys, "export", "--campaign", name, "--db", url, "-o", str(output),
                         "--ties", "skip")
    assert status == 0
    qrels = read_qrels(output)
    got = {(t, d): label for t, d, label in qrels.itertuples(index=False)}
    # t0/d0: 0 0 2 -> 0; t0/d1: 1 2 1 -> 1; t0/d2: 2 2 2 -> 2; t1/d0: 0; t1/d1: 2;
    # t1/d2: 1 0 2 -> three-way tie, skipped.
    assert got == {("t0", "d0"): 0, ("t0", "d1"): 1, ("t0", "d2"): 2, ("t1", "d0"): 0,
                   ("t1", "d1"): 2}
    provenance = pd.read_csv(str(output) + ".provenance.tsv", sep="\t", dtype=str,
                             keep_default_na=False)
    assert list(provenance.columns) == ["topic", "doc", "votes", "n_votes", "decided", "label",
                                        "rule"]
    skipped = provenance[(provenance["topic"] == "t1") & (provenance["doc"] == "d2")].iloc[0]
    assert skipped["votes"] == "alice=1 bob=0 carol=2"
    assert (skipped["label"], skipped["rule"]) == ("", "majority tie, skipped")
    assert "5 judged pairs written by policy majority" in err and "1 left out" in err


def test_export_adjudicated_and_binarized(campaign, capsys, tmp_path):
    url, name = campaign
    adjudicate(url, "t1", "d2", 1)
    output = tmp_path / "q.txt"
    status, _, _ = run(capsys, "export", "--campaign", name, "--db", url, "-o", str(output),
                       "--policy", "adjudicated", "--binarize", "2")
    assert status == 0
    got = {(t, d): label for t, d, label in read_qrels(output).itertuples(index=False)}
    assert got[("t1", "d2")] == 0 and got[("t0", "d2")] == 1 and got[("t0", "d1")] == 0
    provenance = (output.parent / "q.txt.provenance.tsv").read_text()
    assert "adjudicated by dave; binarized: >= 2 -> 1" in provenance


def test_export_to_stdout_writes_no_provenance_file(campaign, capsys, tmp_path, monkeypatch):
    url, name = campaign
    monkeypatch.chdir(tmp_path)
    status, out, _ = run(capsys, "export", "--campaign", name, "--db", url, "--policy", "max")
    assert status == 0
    assert out.splitlines()[0] == "t0 0 d0 2"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["campaign.db"]


def test_export_errors_leave_files_untouched(campaign, capsys, tmp_path):
    url, name = campaign
    output = tmp_path / "qrels.txt"
    output.write_text("old qrels\n")
    status, _, err = run(capsys, "export", "--campaign", name, "--db", url, "-o", str(output),
                         "--policy", "annotator:zed")
    assert status == 2 and "no judgments by an annotator named 'zed'" in err
    status, _, err = run(capsys, "export", "--campaign", name, "--db", url, "-o", str(output),
                         "--provenance", str(tmp_path / "missing" / "p.tsv"))
    assert status == 2 and "no such directory" in err
    status, _, err = run(capsys, "export", "--campaign", name, "--db", url, "--policy", "median")
    assert status == 2 and "unknown policy" in err
    assert output.read_text() == "old qrels\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["campaign.db", "qrels.txt"]


def test_a_failure_while_writing_leaves_neither_file(campaign, capsys, tmp_path, monkeypatch):
    import pooljudge.formats.trec
    from pooljudge.formats.files import atomic_writer

    def broken_write(qrels, path):
        with atomic_writer(path) as handle:
            handle.write("1 0 half")
            raise OSError("disk full")

    monkeypatch.setattr(pooljudge.formats.trec, "write_qrels", broken_write)
    url, name = campaign
    target = tmp_path / "q.txt"
    assert main(["export", "--campaign", name, "--db", url, "-o", str(target)]) == 2
    assert capsys.readouterr().err == f"pooljudge: error: {target}: cannot write: disk full\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["campaign.db"]


def test_adjudication_list_shows_the_queue_until_decided(campaign, capsys):
    url, name = campaign
    status, out, _ = run(capsys, "adjudication", "list", "--campaign", name, "--db", url,
                         "--format", "tsv")
    assert status == 0
    queue = out.splitlines()
    assert queue[0] == "topic\tdoc\tvotes\tn_votes\tspread"
    # Two grades apart: t0/d0 (0 0 2), t1/d2 (1 0 2).
    assert [line.split("\t")[:2] for line in queue[1:]] == [["t0", "d0"], ["t1", "d2"]]
    adjudicate(url, "t0", "d0", 0)
    status, out, _ = run(capsys, "adjudication", "list", "--campaign", name, "--db", url,
                         "--format", "tsv")
    assert [line.split("\t")[:2] for line in out.splitlines()[1:]] == [["t1", "d2"]]
    status, out, _ = run(capsys, "adjudication", "list", "--campaign", name, "--db", url,
                         "--all")
    assert "dave" in out


def test_export_of_an_unjudged_campaign_is_refused(tmp_path, collection, capsys):
    from pooljudge.annotate.records import LabelScale
    from pooljudge.annotate.store import create_campaign, open_engine, session_scope

    url = f"sqlite:///{tmp_path / 'empty.db'}"
    engine = open_engine(url)
    with session_scope(engine) as session:
        create_campaign(session, name="e", scale=LabelScale.binary(), **collection(1, 2))
    engine.dispose()
    output = Path(tmp_path / "q.txt")
    status, _, err = run(capsys, "export", "--campaign", "e", "--db", url, "-o", str(output))
    assert status == 2 and "no judgments to export" in err and not output.exists()


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
