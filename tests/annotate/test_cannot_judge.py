""""I can't judge this" answers counted apart, on both backends: the store's reader (the latest
version decides), the agreement report (per annotator, never a label, never in a kappa), and
``pooljudge init --cannot-judge --rationale``, ``agree`` and ``export --cannot-judge``."""

from __future__ import annotations

import json
import uuid

import pytest
from pooljudge.annotate.agreement import agreement_report
from pooljudge.annotate.records import LabelScale
from pooljudge.annotate.store import (
    add_annotator,
    annotator_id,
    cannot_judge_answers,
    create_campaign,
    get_campaign,
    judgments_frame,
    open_engine,
    pair_by_key,
    record_judgment,
    session_scope,
)
from sklearn.metrics import cohen_kappa_score

from pooljudge.cli import main
from pooljudge.formats.trec import read_qrels
from tests.annotate.conftest import small_collection
from tests.support.cli_campaign import _init, cli, files  # noqa: F401  (fixtures)

# (annotator, topic, doc, answers in order): an int is a label, a str a can't-judge reason,
# None a withdrawal.
HISTORY = [
    ("alice", "t0", "d0", [1]), ("alice", "t0", "d1", [0]), ("alice", "t0", "d2", ["paywalled"]),
    ("alice", "t1", "d0", [1]), ("alice", "t1", "d1", ["blank\tpage\n(scan)"]),
    ("bob", "t0", "d0", [1]), ("bob", "t0", "d1", [1]), ("bob", "t0", "d2", [0]),
    ("bob", "t1", "d0", [0, "changed my mind"]),
    ("carol", "t0", "d0", ["foreign", 1]), ("carol", "t0", "d2", ["foreign", None]),
]
ANSWERS = [["t0", "d2", "alice", "paywalled"], ["t1", "d0", "bob", "changed my mind"],
           ["t1", "d1", "alice", "blank\tpage\n(scan)"]]


def _judged_campaign(engine) -> str:
    """A binary campaign (overlap 3) offering "I can't judge this", judged as HISTORY says."""
    name = f"cj-{uuid.uuid4().hex[:8]}"
    with session_scope(engine) as session:
        create_campaign(session, name=name, scale=LabelScale.binary(), overlap=3,
                        cannot_judge=True, **small_collection(2, 3))
        for person in ("alice", "bob", "carol"):
            add_annotator(session, campaign=name, name=person)
    for person, topic, doc, answers in HISTORY:
        with session_scope(engine) as session:
            me = annotator_id(session, campaign=name, name=person)
            pair = pair_by_key(session, campaign=name, topic=topic, doc=doc).pair_id
            for answer in answers:
                record_judgment(session, annotator_id=me, pair_id=pair, **_answer(answer))
    return name


def _answer(answer: int | str | None) -> dict:
    if isinstance(answer, int):
        return {"label": answer}
    if answer is None:
        return {"label": None, "status": "withdrawn"}
    return {"label": None, "status": "cannot_judge", "rationale": answer}


def test_the_latest_answer_decides_and_only_its_campaigns_are_read(engine):
    name = _judged_campaign(engine)
    other = _judged_campaign(engine)
    with session_scope(engine, readonly=True) as session:
        answers = cannot_judge_answers(session, campaign=name)
        assert len(cannot_judge_answers(session, campaign=other)) == len(ANSWERS)
    assert answers[["topic", "doc", "annotator", "reason"]].to_numpy().tolist() == ANSWERS
    assert answers["created_at"].notna().all()


def test_agreement_counts_answers_per_annotator_and_never_as_labels(engine):
    name = _judged_campaign(engine)
    with session_scope(engine, readonly=True) as session:
        labels = judgments_frame(session, campaign=name, kind="judgment")
        answers = cannot_judge_answers(session, campaign=name)
        with_answers = judgments_frame(session, campaign=name, kind="judgment",
                                       states=("label", "cannot_judge"))
    report = agreement_report(labels, (0, 1), spec=None, cannot_judge=answers)
    assert report.annotators.to_dict("records") == [
        {"annotator": "alice", "labels": 3, "cannot_judge": 2},
        {"annotator": "bob", "labels": 3, "cannot_judge": 1},
        {"annotator": "carol", "labels": 1, "cannot_judge": 0}]
    assert report.overall["cannot_judge"] == 3
    pairs = report.pairs.set_index(["a", "b"])
    assert pairs.loc[("alice", "bob"), "n"] == 2          # t0/d0 and t0/d1: answers left out
    assert pairs.loc[("alice", "bob"), "cohen_kappa"] == pytest.approx(
        cohen_kappa_score([1, 0], [1, 1], labels=[0, 1]))
    # A frame that still holds the answers (status column) gives the same statistics.
    mixed = agreement_report(with_answers, (0, 1), spec=None, cannot_judge=answers)
    assert mixed.pairs.equals(report.pairs) and mixed.overall == report.overall
    assert report.to_json()["annotators"][0] == {"annotator": "alice", "labels": 3,
                                                 "cannot_judge": 2}


# --- the command line ---------------------------------------------------------------------------

def test_init_stores_the_answer_settings(cli, files):  # noqa: F811
    assert _init(cli, "--scale", "0-2", "--cannot-judge", "--rationale", " 2, 1,2") == 0
    engine = open_engine(f"sqlite:///{files / 'p.db'}")
    with session_scope(engine, readonly=True) as session:
        info = get_campaign(session, name="demo")
    engine.dispose()
    assert info.cannot_judge and sorted(info.rationale_labels) == [1, 2]


@pytest.mark.parametrize(("value", "message"), [
    ("3", "--rationale: label 3 is not on the scale 0, 1"),
    ("1,x", "--rationale: '1,x': expected labels separated by commas, such as 1,2"),
    ("", "--rationale: '': expected labels separated by commas"),
])
def test_init_refuses_a_rationale_label_off_the_scale(cli, files, capsys, value,  # noqa: F811
                                                       message):
    assert _init(cli, "--rationale", value) == 2
    err = capsys.readouterr().err
    assert err.startswith("pooljudge: error: ") and message in err and len(err.splitlines()) == 1
    assert not (files / "p.db").exists()                  # refused before anything is made


def test_export_leaves_answers_out_counts_them_and_writes_them_apart(engine, db_url, tmp_path,
                                                                     capsys):
    name = _judged_campaign(engine)
    qrels, side = tmp_path / "q.txt", tmp_path / "cannot.tsv"
    assert main(["export", "--campaign", name, "--db", db_url, "-o", str(qrels),
                 "--cannot-judge", str(side)]) == 0
    err = capsys.readouterr().err
    assert f"3 \"I can't judge this\" answers not in the qrels, written to {side}" in err
    written = read_qrels(qrels)
    assert sorted(zip(written["topic"], written["doc"], strict=True)) == [
        ("t0", "d0"), ("t0", "d1"), ("t0", "d2"), ("t1", "d0")]   # t1/d1: only an answer
    lines = side.read_text(encoding="utf-8").splitlines()
    assert lines[0] == "topic\tdoc\tannotator\treason"
    assert [line.split("\t") for line in lines[1:]] == [
        [t, d, a, r.replace("\t", " ").replace("\n", " ")] for t, d, a, r in ANSWERS]
    assert main(["export", "--campaign", name, "--db", db_url, "-o", str(qrels)]) == 0
    assert "3 \"I can't judge this\" answers not in the qrels (--cannot-judge FILE" \
        in capsys.readouterr().err


def test_export_to_a_missing_folder_writes_nothing(engine, db_url, tmp_path, capsys):
    name = _judged_campaign(engine)
    qrels = tmp_path / "q.txt"
    assert main(["export", "--campaign", name, "--db", db_url, "-o", str(qrels),
                 "--cannot-judge", str(tmp_path / "no" / "c.tsv")]) == 2
    assert "--cannot-judge" in capsys.readouterr().err and not qrels.exists()
    assert not list(tmp_path.glob("q.txt*"))


def test_agree_reports_answers_per_annotator(engine, db_url, capsys):
    name = _judged_campaign(engine)
    assert main(["agree", "--campaign", name, "--db", db_url, "--format", "json",
                 "--resamples", "0"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert {r["annotator"]: r["cannot_judge"] for r in report["annotators"]} == {
        "alice": 2, "bob": 1, "carol": 0}
    assert report["overall"]["cannot_judge"] == 3
    assert main(["agree", "--campaign", name, "--db", db_url, "--resamples", "0"]) == 0
    table = capsys.readouterr().out
    assert "Annotators (cannot_judge" in table
    rows = [line.split() for line in table.split("Annotators (cannot_judge", 1)[1].splitlines()]
    assert ["alice", "3", "2"] in rows and ["carol", "1", "0"] in rows
