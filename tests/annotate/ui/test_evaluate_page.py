"""AppTest of the *Evaluate runs* page with uploaded runs: the report's views, checked against
``metrics`` run directly on the qrels ``pooljudge export`` writes for the same campaign.

AppTest cannot upload files, so ``st.file_uploader`` is replaced for the page's key by one that
returns in-memory uploads (name + bytes, as Streamlit's UploadedFile); everything after it is
the real page: login, campaign picker, reading the uploads, scoring, rendering.

Campaign: binary scale, topics 1–3, documents d01..d12 in every topic; ``ann1`` judged all 36
pairs (relevant when doc + topic is a multiple of 3); ``ann2`` judged d01..d04 of topic 1 the
other way, so those four pairs tie and the majority takes the lower label, 0.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import streamlit as st
from pooljudge.annotate import store
from pooljudge.annotate.records import LabelScale
from pooljudge.annotate.store import session_scope
from pooljudge.annotate.ui import keys
from pooljudge.annotate.ui.evaluate_panels import POOL_DEPTH
from pooljudge.annotate.ui.render import md_escape
from streamlit.testing.v1 import AppTest

from pooljudge import metrics
from pooljudge.cli import main
from pooljudge.formats.trec import read_qrels, write_run
from tests.support.uploads import Upload

APP = str(Path(__file__).resolve().parents[3] / "annotate" / "app.py")
TOPICS = ("1", "2", "3")
DOCS = [f"d{i:02d}" for i in range(1, 13)]
HOSTILE = "<b>a$\\frac{$b"  # markup, mathtext that does not parse, a backslash
HEADLINE = [m for m in metrics.DEFAULT_MEASURES if m != "Judged@10"]
UNJUDGED = "unjudged share of top 10 (1 − Judged@10)"


def _label(topic: str, doc: str) -> int:
    return int((int(doc[1:]) + int(topic)) % 3 == 0)


@pytest.fixture
def campaign(app_db, tmp_path) -> dict:
    engine, url = app_db, app_db.url.render_as_string()
    docs = pd.DataFrame({"id": DOCS, "title": DOCS, "text": [f"text {d}" for d in DOCS]})
    topics = pd.DataFrame({"id": list(TOPICS), "title": "t", "description": "d",
                           "narrative": "n"})
    pool = pd.DataFrame([(t, d, i, i, "r") for t in TOPICS for i, d in enumerate(DOCS, 1)],
                        columns=["topic", "doc", "order", "best_rank", "runs"])
    labels = [("ann1", t, d, _label(t, d)) for t in TOPICS for d in DOCS]
    labels += [("ann2", "1", d, 1 - _label("1", d)) for d in DOCS[:4]]
    with session_scope(engine) as session:
        store.create_campaign(session, name="c", scale=LabelScale.binary(), overlap=2,
                              topics=topics, documents=docs, pool=pool)
        tokens = {n: store.add_annotator(session, campaign="c", name=n, role=r)
                  for n, r in (("ann1", "annotator"), ("ann2", "annotator"), ("boss", "admin"))}
        store.import_judgments(session, campaign="c", source="human", frame=pd.DataFrame(
            labels, columns=["annotator", "topic", "doc", "label"]))
    qrels_path = tmp_path / "c.qrels"
    assert main(["export", "--campaign", "c", "--db", url, "-o", str(qrels_path)]) == 0
    return {"token": tokens["boss"], "qrels": qrels_path}


def _runs(folder: Path) -> dict[str, Path]:
    """alpha: ann1's relevant documents first; beta: d12 down to d01; HOSTILE: eight unjudged
    documents on top, nothing for topic 3, and a topic the qrels do not have (99)."""
    rows = {
        "alpha": [(t, d, 100.0 - i + 50 * _label(t, d)) for t in TOPICS
                  for i, d in enumerate(DOCS)],
        "beta": [(t, d, float(i)) for t in TOPICS for i, d in enumerate(DOCS)],
        HOSTILE: [(t, d, 20.0 - i) for t in ("1", "2", "99")
                  for i, d in enumerate([f"u{j}" for j in range(8)] + DOCS[:4])],
    }
    folder.mkdir()
    paths = {}
    for name, run in rows.items():
        paths[name] = folder / name
        write_run(pd.DataFrame(run, columns=["topic", "doc", "score"]), paths[name], tag="t")
    return paths


@pytest.fixture
def uploads(monkeypatch) -> list[Upload]:
    """The files the page's run uploader returns (append to the list before running)."""
    files: list[Upload] = []
    real = st.file_uploader

    def fake(label, *args, key=None, **kwargs):
        if key == keys.EVAL_RUNS:
            return list(files)
        return real(label, *args, key=key, **kwargs)

    monkeypatch.setattr(st, "file_uploader", fake)
    return files


@pytest.fixture
def open_evaluate(open_page):
    """``open_evaluate(token, depth=None)``: the evaluation page, with the bias table's pool
    depth set when given."""
    def open_(token: str, depth: int | None = None) -> AppTest:
        at = open_page(token, "evaluate", timeout=60)
        if depth is not None:
            at.number_input(key=POOL_DEPTH).set_value(depth).run()
            assert not at.exception, [e.value for e in at.exception]
        return at
    return open_


def _sections(at: AppTest) -> dict[str, dict[str, list]]:
    """Subheader text -> the dataframes, images and expanders that follow it, in page order."""
    found: dict[str, dict[str, list]] = {}
    current: dict[str, list] | None = None
    for node in at.main:
        if node.type == "subheader":
            current = found.setdefault(node.value, {"dataframe": [], "image": [],
                                                    "expander": []})
        elif current is not None and node.type in current:
            current[node.type].append(node)
    return found


def _direct(qrels: Path, paths: dict[str, Path], measures, **options) -> pd.DataFrame:
    """run × measure means from pooljudge.metrics.evaluate on the exported qrels and the run
    files."""
    tidy = metrics.evaluate(str(qrels), [str(p) for p in paths.values()], measures,
                            per_topic=False, **options)
    return tidy.pivot(index="run", columns="measure", values="value")


def _upload(uploads: list[Upload], paths: dict[str, Path]) -> None:
    uploads += [Upload(path.name, path.read_bytes()) for path in paths.values()]


def test_page_shows_the_report_views_with_the_numbers_of_metrics(
        campaign, uploads, tmp_path, open_evaluate):
    paths = _runs(tmp_path / "runs")
    _upload(uploads, paths)
    at = open_evaluate(campaign["token"])
    assert not at.error
    assert at.caption[0].value.startswith("Current qrels: 36 judged pairs over 3 topics")
    assert at.caption[1].value == md_escape("campaign c; qrels: majority of the latest labels; "
                                            "3 topics, 3 runs, pool depth 10")
    views = _sections(at)
    titles = ["Warnings", "Means per run", "RBP intervals (p=0.8)",
              "Pool bias (leave one run out)", "Precision–recall curves", "Per-topic scores"]
    assert list(views) == [md_escape(t) for t in titles]
    qrels = campaign["qrels"]
    assert read_qrels(qrels).query("topic == '1' and doc == 'd02'")["label"].tolist() == [0]

    means = views[md_escape("Means per run")]["dataframe"][0].value
    assert list(means.index) == list(paths)  # HOSTILE literally, in upload order
    direct = _direct(qrels, paths, metrics.DEFAULT_MEASURES)
    condensed = _direct(qrels, paths, HEADLINE, judged_only=True)
    for measure in HEADLINE:
        np.testing.assert_allclose(means[measure], direct.loc[list(paths), measure])
        np.testing.assert_allclose(means[f"{measure} condensed"],
                                   condensed.loc[list(paths), measure])
    np.testing.assert_allclose(means[UNJUDGED], 1 - direct.loc[list(paths), "Judged@10"])
    # HOSTILE: 2 of its top 10 judged in topics 1 and 2; topic 3, which it skips, counts 0
    assert means.loc[HOSTILE, UNJUDGED] == pytest.approx(1 - (0.2 + 0.2 + 0) / 3)

    rbp = views[md_escape("RBP intervals (p=0.8)")]
    intervals = rbp["dataframe"][0].value
    rbp_direct = _direct(qrels, paths, ["RBP(p=0.8)", "RBPResidual(p=0.8)"])
    np.testing.assert_allclose(intervals["low"], rbp_direct.loc[list(paths), "RBP"])
    np.testing.assert_allclose(intervals["high"] - intervals["low"],
                               rbp_direct.loc[list(paths), "RBPResidual"])
    assert len(rbp["image"]) == 1

    pr = views[md_escape("Precision–recall curves")]
    curves = pr["dataframe"][0].value
    iprec = _direct(qrels, paths, ["IPrec@0.0", "IPrec@0.5"])
    np.testing.assert_allclose(curves["0.0"], iprec.loc[list(paths), "IPrec@0.0"])
    np.testing.assert_allclose(curves["0.5"], iprec.loc[list(paths), "IPrec@0.5"])
    # alpha puts ann1's relevant documents first; in topic 1 the first, d02, tied and became 0,
    # so its best precision there is 3/4 (rank 4), 1 in topics 2 and 3
    assert curves.loc["alpha", "0.0"] == pytest.approx((0.75 + 1 + 1) / 3)
    assert len(pr["image"]) == 1

    topics = views[md_escape("Per-topic scores")]["expander"]
    assert [e.label for e in topics] == [md_escape(m) for m in
                                         (*HEADLINE, "Judged@10", "RBP", "RBPResidual")]
    ndcg = topics[HEADLINE.index("nDCG@10")].dataframe[0].value
    tidy = metrics.evaluate(str(qrels), [str(p) for p in paths.values()], ["nDCG@10"])
    expected = tidy[tidy["topic"] != "all"].pivot(index="topic", columns="run", values="value")
    assert list(ndcg.index) == list(TOPICS) and list(ndcg.columns) == list(paths)
    np.testing.assert_allclose(ndcg.to_numpy(), expected.loc[list(TOPICS), list(paths)])


def test_warnings_name_the_runs_escaped(campaign, uploads, tmp_path, open_evaluate):
    paths = _runs(tmp_path / "runs")
    _upload(uploads, paths)
    at = open_evaluate(campaign["token"])
    shown = [w.value for w in at.warning]
    judged = (0.2 + 0.2 + 0) / 3
    expected = [
        "only 3 topics: fewer than 25 are too few to rank systems reliably",
        f"{HOSTILE}: 1 topic(s) not in the qrels were ignored",
        f"{HOSTILE}: returned nothing for 1 qrels topic(s), which score 0",
        f"{HOSTILE}: only {judged:.0%} of the top 10 is judged; its scores are lower bounds "
        "(see the condensed columns and RBP intervals)",
    ]
    for text in expected:
        assert md_escape(text) in shown
    assert not any("alpha: only" in w or "beta: only" in w for w in shown)
    assert all("<b>" not in w and "$" not in w.replace("\\$", "") for w in shown)


def _top(path: Path, depth: int) -> set[tuple[str, str]]:
    run = pd.read_csv(path, sep=" ", header=None, names=["topic", "q", "doc", "rank", "s", "t"],
                      dtype={"topic": str})
    return set(map(tuple, run[run["rank"] <= depth][["topic", "doc"]].to_numpy()))


def _ap_in_pool(qrels: Path, path: Path, pool: set) -> float:
    frame = read_qrels(qrels)
    kept = frame[[(t, d) in pool for t, d in frame[["topic", "doc"]].to_numpy()]]
    return metrics.evaluate(kept, {"x": str(path)}, ["AP"], per_topic=False)["value"].iat[0]


def test_bias_table_follows_the_pool_depth_chosen_on_the_page(
        campaign, uploads, tmp_path, open_evaluate):
    paths = _runs(tmp_path / "runs")
    _upload(uploads, paths)
    at = open_evaluate(campaign["token"], depth=3)
    title = md_escape("Pool bias (leave one run out)")
    bias = _sections(at)[title]["dataframe"][0].value
    assert list(bias.index) == list(paths)  # a row per run
    tops = {name: _top(path, 3) for name, path in paths.items()}
    everyone = set().union(*tops.values())
    for name, path in paths.items():
        others = set().union(*(top for n, top in tops.items() if n != name))
        with_run = _ap_in_pool(campaign["qrels"], path, everyone)
        without = _ap_in_pool(campaign["qrels"], path, others)
        assert bias.loc[name, "AP with"] == pytest.approx(with_run)
        assert bias.loc[name, "AP without"] == pytest.approx(without)
    assert bias.loc["alpha", "AP difference"] < -0.05 * bias.loc["alpha", "AP with"]
    drop = (f"alpha: AP on the qrels restricted to the depth-3 pool falls from "
            f"{bias.loc['alpha', 'AP with']:.4f} to {bias.loc['alpha', 'AP without']:.4f} "
            "without its own pool contribution; on all the qrels (means table) ")
    assert any(w.value.startswith(md_escape(drop)) for w in at.warning)
    at.number_input(key=POOL_DEPTH).set_value(0).run()
    assert title not in _sections(at) and not at.exception
    assert "pool depth" not in at.caption[1].value


def test_an_unreadable_upload_shows_its_line_and_nothing_else(
        campaign, uploads, tmp_path, open_evaluate):
    paths = _runs(tmp_path / "runs")
    _upload(uploads, paths)
    uploads.append(Upload("bad.run", b"1 Q0 d01 1 2.0 t\n1 Q0 d02\n"))
    at = open_evaluate(campaign["token"])
    assert len(at.error) == 1 and not at.dataframe and not at.warning
    assert at.error[0].value.endswith(md_escape(
        "bad.run:2: expected 6 whitespace-separated fields, found 3: '1 Q0 d02'"))
