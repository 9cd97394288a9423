"""The fast read of a campaign's judgments, and ``export``/``agree`` on it, equal the
straightforward ones: an ORM query into ``pandas.DataFrame``, on generated data with ties,
adjudications (two by different people), graded and negative labels, annotators who miss pairs,
label changes (versions), withdrawals and can't-judge answers, comments, rationales, times and
positions, on SQLite and PostgreSQL."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator

import numpy as np
import pandas as pd
import pytest
import sqlalchemy as sa
from pooljudge.annotate.agreement import agreement_report
from pooljudge.annotate.consensus import Policy, consensus_qrels
from pooljudge.annotate.records import LabelScale
from pooljudge.annotate.store import (
    add_annotator,
    authenticate,
    create_campaign,
    import_judgments,
    judgments_frame,
    record_judgment,
    session_scope,
)
from pooljudge.annotate.store import frames as store_frames
from pooljudge.annotate.store.frames import FRAME_COLUMNS
from pooljudge.annotate.store.models import Annotator, Campaign, Document, Judgment, Pair, Topic

from pooljudge.cli import main
from pooljudge.errors import UsageError
from pooljudge.formats.trec import write_qrels

SCALE = LabelScale.range(-1, 2)
VOTERS = [f"ann{i}" for i in range(5)]
POLICIES = ["majority", "adjudicated", "mean", "max", "min", "annotator:ann2"]


def straightforward_frame(session, *, campaign: str, latest_only: bool = True,
                          kind: str | None = None, states=("label",)) -> pd.DataFrame:
    """Every row through the ORM into ``pandas.DataFrame`` (what judgments_frame replaced);
    latest only: the rows of ``states``. ``label`` is nullable Int64 when one is missing."""
    latest = sa.orm.aliased(Judgment, name="j")
    query = (
        sa.select(Annotator.name, Topic.key, Document.key, latest.label, latest.version,
                  latest.kind, latest.source, latest.created_at, latest.seconds,
                  latest.position, latest.comment, latest.status, latest.rationale)
        .join(Pair, Pair.id == latest.pair_id).join(Topic, Topic.id == Pair.topic_id)
        .join(Document, Document.id == Pair.document_id)
        .join(Annotator, Annotator.id == latest.annotator_id)
        .join(Campaign, Campaign.id == Pair.campaign_id).where(Campaign.name == campaign)
        .order_by(latest.id))
    if kind is not None:
        query = query.where(latest.kind == kind)
    if latest_only:
        query = query.where(latest.status.in_(states), ~sa.exists().where(
            Judgment.pair_id == latest.pair_id, Judgment.annotator_id == latest.annotator_id,
            Judgment.kind == latest.kind, Judgment.version > latest.version))
    frame = pd.DataFrame(session.execute(query).all(), columns=list(FRAME_COLUMNS))
    label = "Int64" if frame["label"].isna().any() else "int64"
    return frame.astype({"label": label, "version": "int64", "seconds": "float64"})


def _collection(*, topics: int, docs: int) -> dict[str, pd.DataFrame]:
    """Topics, documents and a pool of every (topic, doc)."""
    pool = pd.DataFrame([(f"t{i}", f"d{j}", j + 1, j + 1, "run") for i in range(topics)
                         for j in range(docs)], columns=["topic", "doc", "order", "best_rank",
                                                         "runs"])
    return {"topics": pd.DataFrame({"id": [f"t{i}" for i in range(topics)], "title": "title",
                                    "description": "desc", "narrative": "narr"}),
            "documents": pd.DataFrame({"id": [f"d{j}" for j in range(docs)], "title": "doc",
                                       "text": "text"}),
            "pool": pool}


def _votes(rng: np.random.Generator, collection: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """2-4 of the voters on every pair (ties and missing annotators), labels -1..2."""
    rows = []
    for topic, doc in collection["pool"][["topic", "doc"]].itertuples(index=False):
        for name in rng.choice(VOTERS, int(rng.integers(2, 5)), replace=False):
            rows.append((name, topic, doc, str(rng.integers(-1, 3)),
                         f"seen {doc}" if rng.random() < 0.3 else "",
                         f"{rng.uniform(1, 60):.2f}" if rng.random() < 0.5 else ""))
    return pd.DataFrame(rows, columns=["annotator", "topic", "doc", "label", "comment",
                                       "seconds"])


@pytest.fixture(scope="module", params=["sqlite",
                                        pytest.param("postgresql", marks=pytest.mark.postgres)])
def db(request, tmp_path_factory) -> Iterator[tuple[sa.Engine, str, str]]:
    """(engine, url, campaign name) of one generated campaign per backend, built once."""
    from pooljudge.annotate.store import open_engine

    url = (f"sqlite:///{tmp_path_factory.mktemp('fast') / 'store.db'}"
           if request.param == "sqlite" else request.getfixturevalue("pg_url"))
    engine = open_engine(url)
    yield engine, url, generate(engine, uuid.uuid4().hex[:8])
    engine.dispose()


def generate(engine: sa.Engine, tag: str) -> str:
    """A campaign (its name) with votes, changed labels, two adjudicators (no comments: a text
    column of None only) and UI judgments; a second campaign's judgments must never show up."""
    rng = np.random.default_rng(7)
    data = _collection(topics=3, docs=12)
    mine, other = f"gen-{tag}", f"other-{tag}"
    with session_scope(engine) as s:
        for name in (mine, other):
            create_campaign(s, name=name, scale=SCALE, overlap=6, **data)
            for voter in [*VOTERS, "ui"]:
                add_annotator(s, campaign=name, name=voter)
            for judge in ("dave", "erin"):
                add_annotator(s, campaign=name, name=judge, role="adjudicator")
    for name in (other, mine):
        votes = _votes(rng, data)
        changed = votes.sample(frac=0.2, random_state=1).assign(label="2", comment="",
                                                                seconds="")
        adjudications = votes.drop_duplicates(["topic", "doc"]).sample(frac=0.3, random_state=2)
        decided = pd.concat([adjudications.assign(annotator="dave", time="2024-01-01T10:00Z"),
                             adjudications.iloc[::2].assign(annotator="erin",
                                                            time="2024-01-02T10:00Z")])
        undone = votes.sample(frac=0.15, random_state=3).assign(label="", comment="",
                                                                seconds="", status="withdrawn")
        unsure = votes.sample(frac=0.1, random_state=4).assign(
            label="", seconds="", status="cannot_judge", rationale="not in English")
        with session_scope(engine) as s:
            import_judgments(s, campaign=name, frame=votes)
            import_judgments(s, campaign=name, frame=changed, source="automatic")
            import_judgments(s, campaign=name, frame=pd.concat([undone, unsure]))
            import_judgments(s, campaign=name, frame=decided.assign(kind="adjudication",
                                                                    label="0", comment=""))
    with session_scope(engine) as s:
        me = authenticate(s, token=add_annotator(s, campaign=mine, name="web")).id
        pairs = s.execute(sa.select(Pair.id).join(Campaign, Campaign.id == Pair.campaign_id)
                          .where(Campaign.name == mine).order_by(Pair.id)).scalars().all()
        for position, pair in enumerate(pairs[:4], start=1):
            record_judgment(s, annotator_id=me, pair_id=pair, label=1, seconds=2.5,
                            position=position, comment="typed" if position % 2 else None)
    return mine


@pytest.mark.parametrize("kind", [None, "judgment", "adjudication"])
@pytest.mark.parametrize("latest_only", [True, False])
@pytest.mark.parametrize("chunk", [1, 7, store_frames.CHUNK])
def test_frame_equals_the_orm_query(db, monkeypatch, kind, latest_only, chunk):
    engine, _, generated = db
    monkeypatch.setattr(store_frames, "CHUNK", chunk)
    with session_scope(engine, readonly=True) as s:
        fast = judgments_frame(s, campaign=generated, latest_only=latest_only, kind=kind)
        plain = straightforward_frame(s, campaign=generated, latest_only=latest_only, kind=kind)
    assert len(plain) > 10
    pd.testing.assert_frame_equal(fast, plain)
    if not latest_only and kind != "adjudication":
        assert {"withdrawn", "cannot_judge"} <= set(fast["status"])


def test_a_frame_of_answers_adds_the_cannot_judge_rows(db):
    engine, _, generated = db
    answers = ("label", "cannot_judge")
    with session_scope(engine, readonly=True) as s:
        fast = judgments_frame(s, campaign=generated, states=answers)
        plain = straightforward_frame(s, campaign=generated, states=answers)
    assert (fast["status"] == "cannot_judge").sum() > 0 and fast["label"].isna().any()
    pd.testing.assert_frame_equal(fast, plain)


@pytest.mark.parametrize("columns", [["annotator", "topic", "doc", "label"],
                                     ["doc", "kind", "created_at", "annotator"],
                                     ["comment", "position", "seconds", "source", "version"]])
def test_a_subset_of_columns_is_those_columns_of_the_frame(db, columns):
    engine, _, generated = db
    with session_scope(engine, readonly=True) as s:
        fast = judgments_frame(s, campaign=generated, columns=columns)
        plain = straightforward_frame(s, campaign=generated)
    pd.testing.assert_frame_equal(fast, plain[columns])


def test_an_unjudged_campaign_gives_the_same_empty_frame(engine, make_campaign):
    name = make_campaign()
    with session_scope(engine, readonly=True) as s:
        fast = judgments_frame(s, campaign=name)
        plain = straightforward_frame(s, campaign=name)
    assert fast.empty
    pd.testing.assert_frame_equal(fast, plain)


def test_an_unknown_column_is_refused(db):
    engine, _, generated = db
    with session_scope(engine, readonly=True) as s, pytest.raises(UsageError, match="nope"):
        judgments_frame(s, campaign=generated, columns=["label", "nope"])


@pytest.mark.parametrize("ties", ["lower", "higher", "skip"])
@pytest.mark.parametrize("policy", POLICIES)
def test_export_writes_what_the_straightforward_path_decides(db, tmp_path, policy, ties):
    engine, db_url, generated = db
    with session_scope(engine, readonly=True) as s:
        plain = straightforward_frame(s, campaign=generated)
    qrels, provenance = consensus_qrels(plain, SCALE.values, Policy.parse(policy, ties=ties))
    write_qrels(qrels, tmp_path / "expected.txt")
    provenance.to_csv(tmp_path / "expected.tsv", sep="\t", index=False, lineterminator="\n",
                      na_rep="")
    out = tmp_path / "qrels.txt"
    assert main(["export", "--campaign", generated, "--db", db_url, "--policy", policy,
                 "--ties", ties, "-o", str(out), "--provenance", str(tmp_path / "got.tsv")]) == 0
    assert out.read_text() == (tmp_path / "expected.txt").read_text()
    assert (tmp_path / "got.tsv").read_text() == (tmp_path / "expected.tsv").read_text()


@pytest.mark.parametrize("per_topic", [False, True])
def test_agree_reports_what_the_straightforward_path_computes(db, tmp_path, per_topic):
    engine, db_url, generated = db
    with session_scope(engine, readonly=True) as s:
        plain = straightforward_frame(s, campaign=generated, kind="judgment")
        unsure = straightforward_frame(s, campaign=generated, kind="judgment",
                                       states=("cannot_judge",))
    expected = agreement_report(plain, SCALE.values, per_topic=per_topic,
                                cannot_judge=unsure).to_json()
    out = tmp_path / "agree.json"
    argv = ["agree", "--campaign", generated, "--db", db_url, "--format", "json", "-o", str(out)]
    assert main(argv + (["--per-topic"] if per_topic else [])) == 0
    assert json.loads(out.read_text()) == json.loads(json.dumps(expected))


TSV_FRAMES = {
    "provenance-like": pd.DataFrame({
        "topic": pd.Series(["t1", "t2", "t3"], dtype="str"), "votes": ["a=1 b=0", "", "c=2"],
        "n_votes": [2, 0, 1], "decided": pd.array([1, None, -1], dtype="Int64"),
        "rule": np.array(["majority", "skipped", "adjudicated by dave"], dtype=object)}),
    "no rows": pd.DataFrame({"topic": pd.Series([], dtype="str"),
                             "n": pd.Series([], dtype="int64")}),
    "missing text": pd.DataFrame({"topic": pd.Series(["t1", None], dtype="str"), "n": [1, 2]}),
    "tab to quote": pd.DataFrame({"rule": ["a\tb", "c"], "n": [1, 2]}),
    "quote to quote": pd.DataFrame({"rule": ['say "x"', "c"], "n": [1, 2]}),
    "line break to quote": pd.DataFrame({"rule": ["a\nb", "c\r"], "n": [1, 2]}),
    "float": pd.DataFrame({"x": [1.5, 2.0], "n": [1, 2]}),
    "mixed objects": pd.DataFrame({"x": np.array([1, "a"], dtype=object), "n": [1, 2]}),
}


@pytest.mark.parametrize("name", list(TSV_FRAMES))
def test_provenance_tsv_is_byte_for_byte_what_to_csv_writes(name):
    import io

    from pooljudge.cli.export_cmd import write_tsv

    frame, fast, plain = TSV_FRAMES[name], io.StringIO(), io.StringIO()
    write_tsv(frame, fast)
    frame.to_csv(plain, sep="\t", index=False, lineterminator="\n", na_rep="")
    assert fast.getvalue() == plain.getvalue()
