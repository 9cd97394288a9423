"""Command line of review campaigns: init --review, campaigns review, export --certificates,
campaigns check (a certificate whose judgments changed is stale)."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from pooljudge.annotate import store
from pooljudge.annotate.review import update_topic

from pooljudge.cli import main
from tests.annotate.store.test_review_store import RELEVANT, collection


@pytest.fixture
def files(tmp_path, monkeypatch):
    topics, documents = collection()
    topics.to_csv(tmp_path / "topics.tsv", sep="\t", index=False)
    with open(tmp_path / "docs.jsonl", "w", encoding="utf-8") as handle:
        documents.to_json(handle, orient="records", lines=True)
    monkeypatch.setenv("POOLJUDGE_DB", f"sqlite:///{tmp_path / 'p.db'}")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _init(*extra: str) -> int:
    return main(["init", "rev", "--review", "--topics", "topics.tsv", "--docs", "docs.jsonl",
                 *extra])


def _judge(url: str, *, limit: int = 10_000) -> int:
    """Label by the truth, moving each topic on after its label (as the server's thread)."""
    engine = store.open_engine(url)
    with store.session_scope(engine) as session:
        store.add_annotator(session, campaign="rev", name="ann")
        ann = store.annotator_id(session, campaign="rev", name="ann")
        cid = store.get_campaign(session, name="rev").id
        ids = {t.topic: t.topic_id for t in store.review_topics(session, campaign_id=cid)}
    done = 0
    for done in range(limit):  # noqa: B007 - the count is returned
        with store.session_scope(engine) as session:
            view = store.next_pair(session, annotator_id=ann)
            if view is None:
                break
            store.record_judgment(session, annotator_id=ann, pair_id=view.pair_id, current=True,
                                  label=int(int(view.doc_id[1:]) in RELEVANT[view.topic_id]))
        update_topic(engine, campaign_id=cid, topic_id=ids[view.topic_id])
    engine.dispose()
    return done


@pytest.mark.parametrize(("argv", "message"), [
    (("--pool", "pool.tsv"), "--pool: not with --review"),
    (("--order", "random"), "--order: not with --review"),
    (("--stop", "guess"), "invalid choice: 'guess'"),
    (("--recall-target", "1"), "--recall-target: '1' is not a number strictly between 0 and 1"),
])
def test_init_review_refuses_bad_options(files, capsys, argv, message):
    assert _init(*argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert message in err[-1] and err[-1].startswith("pooljudge: error:")


def test_init_without_pool_or_review_says_what_is_missing(files, capsys):
    assert main(["init", "x", "--topics", "topics.tsv", "--docs", "docs.jsonl"]) == 2
    assert "--pool: required (or --review" in capsys.readouterr().err


def test_runs_seed_the_first_ranking(files, capsys):
    # t0's first document by the run is d001 (not relevant, not similar): it comes first
    run = pd.DataFrame({"topic": ["t0", "t0"], "q": "Q0", "doc": ["d001", "d000"],
                        "rank": [1, 2], "score": [2.0, 1.0], "tag": "r"})
    run.to_csv(files / "run.txt", sep=" ", header=False, index=False)
    assert _init("--runs", "run.txt", "--assign", "topic") == 0
    assert "first ranking from the runs' rankings" in capsys.readouterr().out
    engine = store.open_engine(f"sqlite:///{files / 'p.db'}")
    with store.session_scope(engine) as session:
        store.add_annotator(session, campaign="rev", name="ann")
        ann = store.annotator_id(session, campaign="rev", name="ann")
        first = store.next_pair(session, annotator_id=ann)
    engine.dispose()
    assert (first.topic_id, first.doc_id) == ("t0", "d001")


def test_review_certificates_exported_and_checked(files, capsys):
    url = f"sqlite:///{files / 'p.db'}"
    assert _init("--stop", "target", "--recall-target", "0.5", "--alpha", "0.5") == 0
    _judge(url)
    capsys.readouterr()
    assert main(["campaigns", "review", "rev", "--format", "tsv"]) == 0
    table = capsys.readouterr().out.splitlines()
    assert table[0].split("\t")[:3] == ["topic", "phase", "documents"]
    assert [line.split("\t")[1] for line in table[1:]] == ["certified", "certified"]
    assert main(["export", "--campaign", "rev", "-o", "qrels.txt",
                 "--certificates", "certs.json"]) == 0
    assert "2 certificates written to certs.json" in capsys.readouterr().err
    document = json.loads((files / "certs.json").read_text(encoding="utf-8"))
    assert (document["rule"], document["target"], document["alpha"]) == ("target", 0.5, 0.5)
    qrels = pd.read_csv(files / "qrels.txt", sep=" ", names=["topic", "q", "doc", "label"])
    for cert in document["certificates"]:
        mine = qrels[qrels["topic"] == cert["topic"]]
        assert cert["reviewed"] == cert["judgment_count"] == len(mine)
        assert cert["relevant_found"] == int(mine["label"].sum())
        assert cert["confidence"] == 0.5 and cert["stale"] is False
    assert main(["campaigns", "check", "rev"]) == 0
    engine = store.open_engine(url)
    with store.session_scope(engine) as session:
        ann = store.annotator_id(session, campaign="rev", name="ann")
        withdrawn = store.withdraw_last(session, annotator_id=ann)
    engine.dispose()
    capsys.readouterr()
    assert main(["campaigns", "check", "rev"]) == 1
    out = capsys.readouterr().out
    assert f"topic {withdrawn.topic_id}: certificate (target) is stale" in out


def test_review_actions_of_a_pooled_campaign_are_refused(files, capsys):
    (files / "pool.tsv").write_text("topic\tdoc\torder\tbest_rank\truns\nt0\td000\t1\t1\tA\n",
                                    encoding="utf-8")
    assert main(["init", "p", "--topics", "topics.tsv", "--docs", "docs.jsonl",
                 "--pool", "pool.tsv"]) == 0
    assert main(["campaigns", "review", "p"]) == 2
    assert "campaign 'p' is not a review" in capsys.readouterr().err
    assert main(["export", "--campaign", "p", "-o", "q.txt", "--certificates", "c.json"]) == 2
    assert "--certificates: campaign p is not a review" in capsys.readouterr().err
    assert not (files / "q.txt").exists() and not (files / "c.json").exists()
