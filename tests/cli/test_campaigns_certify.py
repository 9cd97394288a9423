"""``pooljudge campaigns certify``: a pooled campaign's topics certified from its stored
judgments, on SQLite and PostgreSQL; a review campaign refused."""
from __future__ import annotations

import json

import numpy as np
import pytest
from pooljudge.annotate.records import LabelScale
from pooljudge.annotate.store import (
    add_annotator,
    authenticate,
    create_campaign,
    open_engine,
    pair_by_key,
    record_judgment,
    session_scope,
    start_review,
)
from pooljudge.pooling.pool_certificates import certify_pool_topic

from pooljudge.cli import main
from tests.annotate.conftest import small_collection
from tests.support.postgres import fresh_database_url

N_DOCS = 60


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def url(request, tmp_path):
    with fresh_database_url(request.param, tmp_path, "pooljudge_certify") as found:
        yield found


def _campaign(url: str, *, judged: int) -> tuple[str, dict[str, list[int]]]:
    """Two topics of N_DOCS pairs in pool order; ``judged`` pairs of each labelled by two
    people (relevant: the first documents, and one the second person calls relevant alone)."""
    engine = open_engine(url)
    try:
        with session_scope(engine) as session:
            create_campaign(session, name="c", scale=LabelScale.binary(), overlap=2,
                            **small_collection(2, N_DOCS))
            people = [authenticate(session, token=add_annotator(session, campaign="c",
                                                                name=n)).id for n in "ab"]
        labels: dict[str, list[int]] = {"t0": [], "t1": []}
        for doc in range(judged):  # in pool order, topic after topic
            for topic in labels:
                with session_scope(engine) as session:
                    pair = pair_by_key(session, campaign="c", topic=topic, doc=f"d{doc}")
                    for who, person in enumerate(people):
                        label = int(doc < 6 or (who == 1 and doc == 7))
                        record_judgment(session, annotator_id=person, pair_id=pair.pair_id,
                                        label=label)
                labels[topic].append(int(doc < 6))  # the lower median of the two
        return "c", labels
    finally:
        engine.dispose()


def _certify(url: str, capsys, *options: str) -> tuple[int, str, str]:
    status = main(["campaigns", "certify", "c", "--db", url, *options])
    out = capsys.readouterr()
    return status, out.out, out.err


def test_each_topic_certified_from_its_judgments(url, capsys):
    _, labels = _campaign(url, judged=50)
    status, out, err = _certify(url, capsys, "--target", "0.9", "--alpha", "0.1", "--format",
                                "json")
    assert status == 0, err
    rows = json.loads(out)
    assert [r["topic"] for r in rows] == ["t0", "t1"]
    for row in rows:
        want = certify_pool_topic(row["topic"], np.array(labels[row["topic"]]), N_DOCS,
                                  target=0.9, alpha=0.1)
        assert {k: row[k] for k in want.as_dict()} == pytest.approx(want.as_dict())
        assert row["order"] == "pool" and row["judged"] == 50 and row["relevant_found"] == 6
    certified = sum(r["certified"] for r in rows)
    assert err.startswith(f"{certified} of 2 topics certified at recall 0.9, confidence 0.9")


def test_tsv_and_table_name_every_column(url, capsys, tmp_path):
    _campaign(url, judged=5)
    out_file = tmp_path / "cert.tsv"
    assert _certify(url, capsys, "--format", "tsv", "-o", str(out_file))[0] == 0
    header, *rows = out_file.read_text().splitlines()
    assert header.split("\t")[:4] == ["topic", "pool", "judged", "relevant_found"]
    assert [r.split("\t")[5] for r in rows] == ["False", "False"]  # 5 judged: too few
    status, out, _ = _certify(url, capsys)
    assert status == 0 and out.splitlines()[0].split()[:2] == ["topic", "pool"]


def test_a_review_campaign_and_an_unknown_one_are_refused(url, capsys):
    engine = open_engine(url)
    try:
        with session_scope(engine) as session:
            create_campaign(session, name="c", scale=LabelScale.binary(), **small_collection())
            start_review(session, campaign="c", rule="knee", target=0.9, alpha=0.1, seed=0)
    finally:
        engine.dispose()
    status, _, err = _certify(url, capsys)
    assert status == 2 and "is a review" in err and len(err.strip().splitlines()) == 1
    status = main(["campaigns", "certify", "nope", "--db", url])
    err = capsys.readouterr().err
    assert status == 2 and "nope" in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("option", [["--target", "1"], ["--alpha", "0"]])
def test_bad_levels_are_one_line(url, capsys, option):
    status, _, err = _certify(url, capsys, *option)
    assert status == 2 and err.startswith("pooljudge: error: ") and option[0] in err
