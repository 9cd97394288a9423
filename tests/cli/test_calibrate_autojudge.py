"""``pooljudge calibrate`` on the demo campaign judged by the test server, then the export
``human-else-automatic`` and ``eval``/``report`` with the automatic share beside the unjudged."""

from __future__ import annotations

import hashlib
import json

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import cohen_kappa_score, confusion_matrix

from pooljudge.cli import main
from tests.autojudge import conftest as judges
from tests.autojudge.helpers import KEY_VAR, labels

# the automatic judges' fixtures (tests/autojudge/conftest.py)
api_key, server_for = judges.api_key, judges.server_for

pytestmark = pytest.mark.slow
JUDGE = "test-model"


@pytest.fixture
def demo(tmp_path, server_for, api_key, capsys):
    """The demo campaign, every pair labelled by the judge under injected faults, and people's
    labels (the truth) on every pair of its first half of topics."""
    from pooljudge.annotate import store
    from pooljudge.annotate.demo import build_collection
    from pooljudge.annotate.demo.build import write_collection
    from pooljudge.annotate.demo.campaign import DEMO_CAMPAIGN, create_demo_campaign
    from pooljudge.annotate.store import open_engine, session_scope

    from tests.autojudge.conftest import Campaign

    url = f"sqlite:///{tmp_path / 'demo.db'}"
    engine = open_engine(url)
    collection = build_collection()
    create_demo_campaign(engine, collection, tmp_path / "links.tsv")
    write_collection(collection, tmp_path)
    pairs = list(zip(collection.pool["topic"], collection.pool["doc"], strict=True))
    truth = {p: hashlib.sha256("/".join(p).encode()).digest()[0] % 2 for p in pairs}
    server = server_for(Campaign(url, DEMO_CAMPAIGN, truth), retry_after="0.1", noise=0.15,
                        values=(0, 1))
    server.plan_any("429", "500", "drop", "malformed", "503")
    assert main(["autojudge", "--campaign", DEMO_CAMPAIGN, "--base-url", server.base_url,
                 "--model", JUDGE, "--api-key-env", KEY_VAR, "--db", url, "--concurrency", "16",
                 "--backoff", "0.01"]) == 0
    assert f"labelled {len(pairs)}, failed 0" in capsys.readouterr().out
    topics = sorted(collection.pool["topic"].unique())
    people = [(name, t, d, truth[(t, d)]) for t, d in pairs if t in topics[:len(topics) // 2]
              for name in ("ada", "brian")]
    with session_scope(engine) as session:
        store.import_judgments(session, campaign=DEMO_CAMPAIGN, frame=pd.DataFrame(
            people, columns=["annotator", "topic", "doc", "label"]))
    judge = labels(engine, JUDGE)
    engine.dispose()
    runs = sorted(str(p) for p in (tmp_path / "runs").iterdir())
    return {"url": url, "truth": truth, "judge": judge, "people": people, "runs": runs,
            "name": DEMO_CAMPAIGN, "folder": tmp_path}


def test_calibrate_matches_scikit_learn_and_estimates_every_run(demo, capsys):
    args = ["calibrate", "measure", "--campaign", demo["name"], "--automatic", JUDGE,
            "--db", demo["url"], "--bootstrap", "200", "--runs", *demo["runs"], "--measure", "P@5"]
    assert main([*args, "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    shared = sorted({(t, d) for _, t, d, _ in demo["people"]})
    human = [demo["truth"][p] for p in shared]
    auto = [demo["judge"][p] for p in shared]
    assert report["confusion"]["counts"] == confusion_matrix(human, auto, labels=[0, 1]).tolist()
    stats = {row["statistic"]: row for row in report["statistics"]}
    assert stats["kappa"]["value"] == pytest.approx(cohen_kappa_score(human, auto,
                                                                      labels=[0, 1]))
    assert stats["kappa"]["ci_low"] <= stats["kappa"]["value"] <= stats["kappa"]["ci_high"]
    assert report["settings"]["pairs"] == len(shared)
    per_run = report["runs"]["per_run"]
    assert [r["run"] for r in per_run] == [p.rsplit("/", 1)[1] for p in demo["runs"]]
    for row in per_run:
        assert row["labelled_topics"] > 0 and row["ppi_low"] <= row["ppi"] <= row["ppi_high"]
    assert set(report["runs"]["rank_correlation"]) == {"tau", "tau_ap", "tau_ppi", "tau_ap_ppi"}
    assert {r["subset"]: r["n"] for r in report["by_suggestion"]} == {
        "all": len(shared), "no suggestion shown": len(shared), "suggestion shown": 0}

    assert main(args) == 0
    table = capsys.readouterr().out
    assert "Confusion matrix" in table and "precision:1" in table and "tau_ap:" in table


def test_sample_export_and_automatic_share_in_eval(demo, capsys, tmp_path):
    url, name = demo["url"], demo["name"]
    assert main(["calibrate", "sample", "--campaign", name, "--automatic", JUDGE, "--n", "6",
                 "--db", url]) == 0
    out = capsys.readouterr().out
    assert out.startswith("6 pairs put at the front of the queue; label 0: 3, label 1: 3")
    qrels, provenance = tmp_path / "q.txt", tmp_path / "q.prov.tsv"
    assert main(["export", "--campaign", name, "--policy", f"human-else-automatic:{JUDGE}",
                 "-o", str(qrels), "--provenance", str(provenance), "--db", url]) == 0
    written = pd.read_csv(provenance, sep="\t", dtype=str, keep_default_na=False)
    people = {(t, d) for _, t, d, _ in demo["people"]}
    expected = ["human" if (t, d) in people else "automatic"
                for t, d in zip(written["topic"], written["doc"], strict=True)]
    assert written["source"].tolist() == expected
    assert len(qrels.read_text().splitlines()) == len(demo["truth"])
    capsys.readouterr()
    assert main(["eval", str(qrels), *demo["runs"], "--provenance", str(provenance)]) == 0
    table = capsys.readouterr().out
    assert "unjudged@10" in table and "automatic@10" in table
    assert main(["eval", str(qrels), *demo["runs"], "--provenance", str(provenance),
                 "--format", "tsv", "-m", "P@10"]) == 0
    rows = pd.read_csv(__import__("io").StringIO(capsys.readouterr().out), sep="\t")
    share = rows[(rows["measure"] == "Automatic@10") & (rows["topic"] == "all")]["value"]
    assert len(share) == len(demo["runs"]) and ((share > 0) & (share < 1)).all()
    assert np.isclose(rows[rows["measure"] == "P@10"]["value"].sum(), _plain_p10(
        qrels, demo["runs"], capsys))
    report = tmp_path / "r.html"
    assert main(["report", str(qrels), *demo["runs"], "--provenance", str(provenance),
                 "-o", str(report)]) == 0
    assert "Automatic@10 of" in report.read_text()
    _input_errors(demo, capsys, qrels)


def _plain_p10(qrels, runs, capsys) -> float:
    """P@10 summed over runs by eval without --provenance (numbers left untouched)."""
    assert main(["eval", str(qrels), *runs, "--format", "tsv", "-m", "P@10"]) == 0
    rows = pd.read_csv(__import__("io").StringIO(capsys.readouterr().out), sep="\t")
    return float(rows.loc[rows["measure"] == "P@10", "value"].sum())  # not NumRet, short@10


@pytest.mark.parametrize(("argv", "message"), [
    (["calibrate", "measure", "--campaign", "c"], "--automatic is required"),
    (["calibrate", "measure", "--campaign", "c", "--automatic", "x", "--human-policy", "vote"],
     "--human-policy: unknown policy 'vote'"),
    (["calibrate", "sample", "--campaign", "c", "--automatic", "x", "--n", "0"],
     "--n: must be at least 1"),
    (["calibrate", "suggest", "--campaign", "c", "--from", "x", "--off"], "not allowed with"),
])
def test_usage_errors_are_one_line_and_exit_2(argv, message, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("pooljudge: error: ") and message in err and err.count("\n") == 1


def _input_errors(demo, capsys, qrels) -> None:
    """An unknown judge, a person as a judge, a provenance without sources: exit 2, one line."""
    url, name = demo["url"], demo["name"]
    capsys.readouterr()
    assert main(["calibrate", "measure", "--campaign", name, "--automatic", "nobody", "--db",
                 url]) == 2
    assert "pooljudge: error: the automatic judge 'nobody' labelled no pair" in \
        capsys.readouterr().err
    assert main(["calibrate", "sample", "--campaign", name, "--automatic", "ada", "--n", "3",
                 "--db", url]) == 2
    assert "no automatic judge named 'ada'" in capsys.readouterr().err
    plain = qrels.parent / "plain.tsv"
    plain.write_text("topic\tdoc\tlabel\n1\td\t1\n")
    assert main(["eval", str(qrels), *demo["runs"], "--provenance", str(plain)]) == 2
    assert "no source column" in capsys.readouterr().err
    assert main(["calibrate", "suggest", "--campaign", name, "--from", "ada", "--db", url]) == 2
    assert "is a person" in capsys.readouterr().err
