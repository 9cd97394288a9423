"""``pooljudge simulate annotators``: simulated annotators complete a campaign through the
claim path (SQLite and PostgreSQL)."""

from __future__ import annotations

import uuid

from pooljudge.annotate.store import judgments_frame, open_engine, session_scope

from pooljudge.cli import main


def test_simulate_completes_the_campaign_through_the_claim_path(files, db_url, capsys,
                                                                monkeypatch):
    monkeypatch.chdir(files)
    name = f"sim-{uuid.uuid4().hex[:8]}"
    assert main(["init", name, "--topics", "topics.tsv", "--docs", "docs.jsonl", "--pool",
                 "pool.tsv", "--overlap", "2", "--db", db_url]) == 0
    assert main(["simulate", "annotators", "--campaign", name, "--truth", "qrels.txt",
                 "--annotators", "3", "--workers", "2", "--db", db_url]) == 0
    engine = open_engine(db_url)
    with session_scope(engine) as session:
        frame = judgments_frame(session, campaign=name)
    engine.dispose()
    assert len(frame) == 8 and (frame.groupby(["topic", "doc"]).size() == 2).all()
    truth = {("301", "FT1"): 1, ("302", "FT2"): 1}  # FT3 pairs: absent or 0 -> 0
    expected = [truth.get((t, d), 0) for t, d in zip(frame["topic"], frame["doc"], strict=True)]
    assert frame["label"].tolist() == expected and (frame["source"] == "automatic").all()
    assert main(["simulate", "annotators", "--campaign", name, "--truth", "qrels.txt",
                 "--annotators", "1", "--db", db_url]) == 2
    assert "cannot meet the overlap 2" in capsys.readouterr().err
