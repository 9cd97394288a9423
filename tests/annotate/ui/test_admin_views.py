"""AppTest (no browser): what the overview, export, agreement and adjudication pages show.

Campaign ``c``: binary scale, overlap 2, topic 7 (d1..d4) and topic 8 (d5, d6). ``ann1`` judged
all six documents and later changed d4 from 0 to 1 (a version 2); ``ann2`` judged all but d4.
They agree on d1, d5 and d6 and disagree on d2 and d3 (ann1 says 1, ann2 says 0); the
adjudicator ``referee`` already decided d2 = 1. Judgment times are fixed (see ``JUDGED``), so
every expected number below follows from this table.
"""

from __future__ import annotations

import io
import zlib

import pandas as pd
import pytest
from markdown_it import MarkdownIt
from pooljudge.annotate import store
from pooljudge.annotate.agreement import agreement_report
from pooljudge.annotate.consensus import Policy, consensus_qrels, disagreements
from pooljudge.annotate.records import Label, LabelScale
from pooljudge.annotate.store import PACE, session_scope, time_left
from pooljudge.annotate.ui import keys
from pooljudge.annotate.ui.admin import hourly_rates
from pooljudge.annotate.ui.agreement_view import (
    DISAGREEMENT_LABELS,
    PAIR_LABELS,
    confusion,
    confusion_view,
    kappa_heat,
)
from pooljudge.annotate.ui.render import JOINER, md_escape
from sklearn.metrics import cohen_kappa_score
from streamlit.dataframe_util import convert_arrow_bytes_to_pandas_df
from streamlit.testing.v1 import AppTest
from streamlit.testing.v1.element_tree import UnknownElement

DOCS = {"d1": "7", "d2": "7", "d3": "7", "d4": "7", "d5": "8", "d6": "8"}
SCALE = LabelScale.binary()
# (annotator, doc, label, time, kind, comment); rows in import order.
JUDGED = [
    ("ann1", "d1", 1, "2026-01-01T10:05:00Z", "judgment", ""),
    ("ann1", "d2", 1, "2026-01-01T10:10:00Z", "judgment", ""),
    ("ann1", "d3", 1, "2026-01-01T10:20:00Z", "judgment", ""),
    ("ann1", "d4", 0, "2026-01-01T11:05:00Z", "judgment", ""),
    ("ann1", "d5", 0, "2026-01-01T11:30:00Z", "judgment", ""),
    ("ann1", "d6", 1, "2026-01-01T11:59:00Z", "judgment", ""),
    ("ann2", "d1", 1, "2026-01-01T09:15:00Z", "judgment", ""),
    ("ann2", "d2", 0, "2026-01-01T11:15:00Z", "judgment", ""),
    ("ann2", "d3", 0, "2026-01-01T11:45:00Z", "judgment", "only a passing mention"),
    ("ann2", "d5", 0, "2025-12-30T08:00:00Z", "judgment", ""),   # older than 24 hours
    ("ann2", "d6", 1, "2026-01-01T10:30:00Z", "judgment", ""),
    ("referee", "d2", 1, "2026-01-01T11:50:00Z", "adjudication", ""),
]
CHANGED = ("ann1", "d4", 1, "2026-01-01T11:58:00Z", "judgment", "second look")  # version 2


def _import(session, campaign: str, rows: list[tuple]) -> None:
    frame = pd.DataFrame(rows, columns=["annotator", "doc", "label", "time", "kind", "comment"])
    store.import_judgments(session, campaign=campaign, frame=frame.assign(
        topic=frame["doc"].map(DOCS)), source="human")


@pytest.fixture
def db(app_db):
    return app_db


@pytest.fixture
def tokens(db, collection) -> dict[str, str]:
    with session_scope(db) as session:
        store.create_campaign(session, name="c", scale=SCALE, overlap=2,
                              **collection(DOCS, "body of"))
        found = {n: store.add_annotator(session, campaign="c", name=n, role=r)
                 for n, r in (("ann1", "annotator"), ("ann2", "annotator"),
                              ("referee", "adjudicator"), ("boss", "admin"))}
        _import(session, "c", JUDGED)
    with session_scope(db) as session:   # a separate import: a second version of ann1's d4
        _import(session, "c", [CHANGED])
    return found


def _frame(engine, latest_only: bool = True) -> pd.DataFrame:
    with session_scope(engine, readonly=True) as session:
        return store.judgments_frame(session, campaign="c", latest_only=latest_only)


def _walk(node):
    """Every Vega-Lite chart element under ``node``."""
    for child in getattr(node, "children", {}).values():
        if isinstance(child, UnknownElement) and child.type == "vega_lite_chart":
            yield child
        yield from _walk(child)


def _charts(at: AppTest) -> list[pd.DataFrame]:
    """The data of every Vega-Lite chart on the page (one dataset each)."""
    frames = []
    for chart in _walk(at.main):
        (dataset,) = chart.proto.datasets
        frames.append(convert_arrow_bytes_to_pandas_df(dataset.data.data))
    return frames


def _selectbox(at: AppTest, label: str):
    (found,) = [s for s in at.selectbox if s.label == label]
    return found


def _literal(markdown: str, text: str) -> None:
    """``markdown`` holds ``text`` escaped, and renders it as plain text: no link, no image."""
    assert md_escape(text) in markdown
    rendered = MarkdownIt("commonmark").render(markdown).replace(JOINER, "")
    assert "<a " not in rendered and "<img" not in rendered and text in rendered


# --- overview -----------------------------------------------------------------------------------

def test_overview_tables_metrics_and_hourly_chart(db, tokens, open_page) -> None:
    at = open_page(tokens["boss"], "overview")
    assert [s.value for s in at.subheader] == [
        "By topic", "By annotator", "Judgments per hour (last 24 hours of activity)",
        "Annotators"]
    # needed: 4 pairs x 2 and 2 pairs x 2; done: first judgments of ann1 and ann2 per topic.
    assert {m.label: m.value for m in at.metric} == {
        "Judgments done": "11 / 12", "Complete": "92%",
        # first judgments from 10:59 to 11:59: ann1's d4, d5, d6; ann2's d2, d3 (not ann1's
        # change of d4 at 11:58, nor the referee's adjudication)
        "Last active hour": "5",
        "Time left": "12 min"}                   # 1 judgment left / 5 per hour
    topics = at.dataframe[0].value
    assert topics[["Topic", "Pairs", "Judgments needed", "Judgments done"]].to_numpy().tolist() \
        == [["7", 4, 8, 7], ["8", 2, 4, 4]]
    assert topics["Done"].tolist() == pytest.approx([7 / 8, 1.0])
    people = at.dataframe[1].value
    assert people.index.tolist() == ["ann1", "ann2", "Total"]
    assert people.columns.tolist() == ["7", "8", "Total"]
    assert people.to_numpy().tolist() == [[4, 2, 6], [3, 2, 5], [7, 4, 11]]
    chart, _drift = _charts(at)                          # then the annotators' drift chart
    with session_scope(db, readonly=True) as session:
        times = store.judgment_times(session, campaign="c")
    rates = hourly_rates(times, pd.Timestamp("2026-01-01 11:59"))
    expected = [(pd.Timestamp(f"2026-01-01 {h}:00"), a, n) for h, a, n in
                [("09", "ann2", 1), ("10", "ann1", 3), ("10", "ann2", 1), ("11", "ann1", 3),
                 ("11", "ann2", 2)]]
    assert list(rates.itertuples(index=False, name=None)) == expected   # the 2025 row is out
    assert len(times) == 10  # first judgments within 24 h of the newest: not the 2025 one
    shown = chart[["hour", "Annotator", "judgments"]].sort_values(["hour", "Annotator"])
    assert list(shown.itertuples(index=False, name=None)) == expected
    (spec,) = [c.proto.spec for c in _walk(at.main) if '"hour"' in c.proto.spec]
    assert '"title": "Hour"' in spec.replace('":"', '": "') and "Judgments" in spec


@pytest.mark.parametrize("first", ["overview", "judge"])
def test_the_judge_page_and_the_overview_show_the_same_time_left(first, db, tokens,
                                                                 open_page) -> None:
    # 12 needed - 11 done = 1 left; 5 first judgments from 10:59 to 11:59 (not ann1's change
    # of d4 at 11:58, nor the referee's adjudication): 1 / 5 h = 12 min, on both pages.
    with session_scope(db, readonly=True) as session:
        left = time_left(session, campaign="c", remaining=1)
    assert (left.remaining, left.last_hour, left.hours) == (1, 5, 0.2)
    shown = {}
    for page in (first, *({"overview", "judge"} - {first})):
        if page == "overview":
            metrics = {m.label: m.value for m in open_page(tokens["boss"], "overview").metric}
            shown[page] = metrics["Time left"]
        else:
            at = open_page(tokens["ann2"])
            (caption,) = [c.value for c in at.caption if PACE in c.value]
            shown[page] = caption.removeprefix("You judged 5 pairs. Time left for the "
                                               f"campaign {PACE}: ").removesuffix(".")
    assert shown == {"overview": "12 min", "judge": "12 min"}


def test_time_left_counts_first_judgments_of_the_last_active_hour(engine, collection) -> None:
    """On SQLite and PostgreSQL: the hour ends at the newest first judgment (11:00, not the
    later change or adjudication); 10:30, 10:45 and 11:00 count, 09:00 does not."""
    rows = [("ann1", "d1", 1, "2026-01-01T09:00:00Z", "judgment", ""),
            ("ann1", "d2", 1, "2026-01-01T10:30:00Z", "judgment", ""),
            ("ann2", "d1", 0, "2026-01-01T10:45:00Z", "judgment", ""),
            ("ann2", "d2", 0, "2026-01-01T11:00:00Z", "judgment", ""),
            ("referee", "d1", 1, "2026-01-01T11:40:00Z", "adjudication", "")]
    with session_scope(engine) as session:
        store.create_campaign(session, name="c", scale=SCALE, overlap=2,
                              **collection(DOCS, "body of"))
        for name, role in (("ann1", "annotator"), ("ann2", "annotator"),
                           ("referee", "adjudicator")):
            store.add_annotator(session, campaign="c", name=name, role=role)
        _import(session, "c", rows)
    with session_scope(engine) as session:
        _import(session, "c", [("ann1", "d2", 0, "2026-01-01T11:30:00Z", "judgment", "")])
    with session_scope(engine, readonly=True) as session:
        left = time_left(session, campaign="c", remaining=6)
    assert (left.remaining, left.last_hour, left.hours) == (6, 3, 2.0)


def test_a_bulk_import_is_nobodys_pace(engine, collection) -> None:
    """Labels imported from a file (source import) never count: only people's first labels."""
    with session_scope(engine) as session:
        store.create_campaign(session, name="bulk", scale=SCALE, overlap=2,
                              **collection(DOCS, "body of"))
        store.add_annotator(session, campaign="bulk", name="ann1")
        frame = pd.DataFrame({"annotator": "ann1", "doc": ["d1", "d2"], "label": [1, 0],
                              "time": "2026-01-01T10:00:00Z", "kind": "judgment"})
        store.import_judgments(session, campaign="bulk", source="import",
                               frame=frame.assign(topic=frame["doc"].map(DOCS)))
    with session_scope(engine, readonly=True) as session:
        left = time_left(session, campaign="bulk", remaining=6)
    assert (left.last_hour, left.hours) == (0, None)


def test_time_left_without_activity_is_unknown_and_zero_when_done(db, collection) -> None:
    with session_scope(db) as session:
        store.create_campaign(session, name="quiet", scale=SCALE, **collection(DOCS, "b"))
        unknown = time_left(session, campaign="quiet", remaining=6)
        done = time_left(session, campaign="quiet", remaining=0)
    assert (unknown.last_hour, unknown.hours) == (0, None)
    assert done.hours == 0.0


def test_hourly_rates_without_judgments_is_empty() -> None:
    empty = pd.DataFrame(columns=["annotator", "created_at", "seconds"])
    assert hourly_rates(empty, pd.Timestamp("2026-01-01")).columns.tolist() == [
        "hour", "annotator", "judgments"]


# --- export -------------------------------------------------------------------------------------

def test_export_offers_qrels_provenance_and_every_row(db, tokens, downloads, open_page) -> None:
    at = open_page(tokens["boss"], "export")
    latest, every = _frame(db), _frame(db, latest_only=False)
    assert (len(latest), len(every)) == (12, 13)
    assert at.main.caption[0].value == "6 judged pairs in the qrels; 13 judgment rows in total."
    qrels, provenance = consensus_qrels(latest, SCALE.values, Policy.parse("majority"))
    # majority, ties to the lower label: d2 and d3 tie (1 vs 0) -> 0; d4 is ann1's version 2.
    assert downloads["c.qrels"].decode() == "".join(
        f"{t} 0 {d} {lab}\n" for t, d, lab in qrels.to_numpy()) == (
        "7 0 d1 1\n7 0 d2 0\n7 0 d3 0\n7 0 d4 1\n8 0 d5 0\n8 0 d6 1\n")
    shown = _read_tsv(downloads["c.provenance.tsv"])
    assert shown.columns.tolist() == provenance.columns.tolist()
    assert shown.astype(str).to_numpy().tolist() == provenance.astype(str).to_numpy().tolist()
    assert at.dataframe[1].value.astype(str).to_numpy().tolist() == \
        provenance.astype(str).to_numpy().tolist()
    rows = _read_tsv(downloads["c.judgments.tsv"])
    assert rows.columns.tolist() == every.columns.tolist()
    columns = ["annotator", "topic", "doc", "label", "version", "kind", "source", "comment"]
    assert rows[columns].to_numpy().tolist() == \
        every[columns].fillna("").astype(str).to_numpy().tolist()
    assert rows[["annotator", "doc", "label", "version", "comment"]].iloc[-1].tolist() == \
        ["ann1", "d4", "1", "2", "second look"]


def test_export_follows_the_chosen_policy(db, tokens, downloads, open_page) -> None:
    at = open_page(tokens["boss"], "export")
    at.selectbox(key=keys.EXPORT_POLICY).select("adjudicated").run()
    qrels, _ = consensus_qrels(_frame(db), SCALE.values, Policy.parse("adjudicated"))
    assert qrels.loc[qrels["doc"] == "d2", "label"].tolist() == [1]      # the referee's label
    assert downloads["c.qrels"].decode() == "".join(
        f"{t} 0 {d} {lab}\n" for t, d, lab in qrels.to_numpy())
    assert downloads["c.qrels"].decode().splitlines()[1] == "7 0 d2 1"


def _read_tsv(data: bytes) -> pd.DataFrame:
    return pd.read_csv(io.BytesIO(data), sep="\t", dtype=str, keep_default_na=False)


# --- agreement ----------------------------------------------------------------------------------

def test_agreement_tables_heat_map_confusion_and_disagreements(db, tokens, open_page) -> None:
    at = open_page(tokens["boss"], "agreement")
    latest = _frame(db)
    votes = latest[latest["kind"] == "judgment"]
    report = agreement_report(votes, SCALE.values)
    pairs = at.dataframe[0].value
    assert {"Kappa CI low", "Kappa CI high"} <= set(pairs.columns)
    assert pairs.columns.tolist() == [PAIR_LABELS[c] for c in report.pairs.columns]
    assert pairs.astype(str).to_numpy().tolist() == report.pairs.astype(str).to_numpy().tolist()
    # ann1 (1, 1, 1, 0, 1) and ann2 (1, 0, 0, 0, 1) on d1, d2, d3, d5, d6
    kappa = cohen_kappa_score([1, 1, 1, 0, 1], [1, 0, 0, 0, 1])
    assert float(pairs["Cohen's kappa"].iat[0]) == pytest.approx(kappa, abs=1e-12)
    # both topics mix labels, so every resample of topics has a kappa: a finite interval
    low, high = float(pairs["Kappa CI low"].iat[0]), float(pairs["Kappa CI high"].iat[0])
    assert -1 <= low <= kappa <= high <= 1 and low < high
    (heat,) = _charts(at)
    assert heat[["a", "b"]].to_numpy().tolist() == [["ann1", "ann2"], ["ann2", "ann1"]]
    assert heat["cohen_kappa"].tolist() == pytest.approx([kappa, kappa])
    assert kappa_heat(report.pairs).equals(heat[["a", "b", "cohen_kappa"]])
    assert "Confusion matrix: ann1 × ann2" in [s.value for s in at.subheader]
    matrix = at.dataframe[1].value
    assert matrix.to_numpy().tolist() == [[1, 0], [2, 2]]   # rows ann1, columns ann2
    assert matrix.index.tolist() == ["ann1: 0 · Not relevant", "ann1: 1 · Relevant"]
    assert matrix.columns.tolist() == ["ann2: 0 · Not relevant", "ann2: 1 · Relevant"]
    assert matrix.index.name == "rows: ann1 · columns: ann2"
    assert matrix.to_numpy().tolist() == confusion(latest, "ann1", "ann2", (0, 1)).to_numpy(
        ).tolist()
    worst = at.dataframe[2].value
    expected = disagreements(latest, SCALE.values)
    assert worst.columns.tolist() == [DISAGREEMENT_LABELS[c] for c in expected.columns]
    assert worst[["Topic", "Document", "Votes", "Votes cast", "Spread"]].to_numpy().tolist() == [
        ["7", "d2", "ann1=1 ann2=0", 2, 1], ["7", "d3", "ann1=1 ann2=0", 2, 1]]
    assert worst["Adjudicator"].tolist()[0] == "referee" and pd.isna(worst["Adjudicator"].iat[1])
    assert at.dataframe[2].proto.placeholder == "—"        # not adjudicated yet: a dash
    assert worst.astype(str).to_numpy().tolist() == expected.astype(str).to_numpy().tolist()


def test_the_confusion_matrix_follows_the_chosen_annotators(tokens, open_page) -> None:
    at = open_page(tokens["boss"], "agreement")
    _selectbox(at, "Annotator A").select("ann2")
    _selectbox(at, "Annotator B").select("ann1")
    at.run()
    assert "Confusion matrix: ann2 × ann1" in [s.value for s in at.subheader]
    assert at.dataframe[1].value.to_numpy().tolist() == [[1, 2], [0, 2]]


def test_confusion_keeps_the_whole_scale() -> None:
    latest = pd.DataFrame({"annotator": ["a", "b", "a", "b"], "topic": "7",
                           "doc": ["d1", "d1", "d2", "d2"], "label": [2, 2, 0, 2],
                           "kind": "judgment"})
    table = confusion(latest, "a", "b", (0, 1, 2))
    assert table.index.tolist() == table.columns.tolist() == [0, 1, 2]
    assert table.to_numpy().tolist() == [[0, 0, 1], [0, 0, 0], [0, 0, 1]]
    assert (table.index.name, table.columns.name) == ("a", "b")


def test_the_confusion_view_names_both_axes_with_annotator_and_label() -> None:
    table = pd.DataFrame([[1, 0], [2, 3]], index=pd.Index([0, 1], name="ann [x](http://e)"),
                         columns=pd.Index([0, 1], name="ann2"))
    scale = LabelScale((Label(0, "no"), Label(1, "yes <b>")))
    view = confusion_view(table, scale)
    assert view.index.tolist() == ["ann [x](http://e): 0 · no", "ann [x](http://e): 1 · yes <b>"]
    assert view.columns.tolist() == ["ann2: 0 · no", "ann2: 1 · yes <b>"]
    assert view.index.name == "rows: ann [x](http://e) · columns: ann2"
    assert view.to_numpy().tolist() == table.to_numpy().tolist()


# --- adjudication -------------------------------------------------------------------------------

def test_an_adjudicator_decides_the_remaining_disagreement(db, tokens, open_page) -> None:
    at = open_page(tokens["referee"], "adjudicate")
    assert at.session_state[keys.USER].role == "adjudicator"
    html = [h.value for h in at.get("html")]
    assert '<div class="pj-caption">1 disagreements wait for a decision.</div>' in html
    assert '<div class="pj-caption">Votes: ann1=1 ann2=0</div>' in html
    assert '<div class="pj-caption pj-doc-id">Document d3</div>' in "".join(html)
    assert '<div class="pj-text">Comments:\nann2: only a passing mention</div>' in html
    item = zlib.crc32(b"7\td3")
    assert [at.button(key=keys.adjudicate_key(item, v)).label for v in (0, 1)] == [
        "0 · Not relevant", "1 · Relevant"]
    at.button(key=keys.adjudicate_key(item, 0)).click().run()
    decided = _frame(db).query("kind == 'adjudication'")
    assert decided[["annotator", "topic", "doc", "label", "source"]].to_numpy().tolist() == [
        ["referee", "7", "d2", 1, "human"], ["referee", "7", "d3", 0, "human"]]
    html = [h.value for h in at.get("html")]
    # one status line (so nothing below it moves when a decision adds its confirmation)
    assert ('<div class="pj-caption">0 disagreements wait for a decision. Decided 0 for topic 7, '
            'document d3.</div>') in html
    assert "No disagreement waits" in at.success[0].value and not at.main.button


# --- names from uploads are never Markdown ------------------------------------------------------

EVIL = "[x](http://evil) ![i](http://evil/i.png)"


def test_annotator_and_label_names_render_literally_on_admin_pages(
        db, open_page, collection) -> None:
    scale = LabelScale((Label(0, f"no {EVIL}"), Label(1, "yes")))
    with session_scope(db) as session:
        store.create_campaign(session, name="c", scale=scale, overlap=2,
                              **collection(DOCS, "body of"))
        found = {n: store.add_annotator(session, campaign="c", name=n, role=r)
                 for n, r in ((EVIL, "annotator"), ("ann2", "annotator"),
                              ("referee", "adjudicator"), ("boss", "admin"))}
        _import(session, "c", [(EVIL, "d1", 1, "", "judgment", ""),
                               ("ann2", "d1", 0, "", "judgment", "")])
    at = open_page(found["boss"], "agreement")
    (heading,) = [s.value for s in at.subheader if s.value.startswith("Confusion matrix")]
    _literal(heading, EVIL)
    assert _selectbox(at, "Annotator A").value == EVIL   # options are plain text: unescaped
    at = open_page(found["referee"], "adjudicate")
    _literal(at.button(key=keys.adjudicate_key(zlib.crc32(b"7\td1"), 0)).label, f"no {EVIL}")


def test_a_sampled_campaign_exports_minus_one_lines_and_its_prels(db, collection, downloads,
                                                                    open_page, tmp_path) -> None:
    """The Export page gives what ``pooljudge export`` writes for a sampled pool, byte for
    byte: the qrels with every pooled-but-unsampled pair at -1 and the prels of every pooled
    pair."""
    from pooljudge.annotate.campaigns import CampaignSettings, create_campaign

    from pooljudge.cli import main

    data = collection({"d1": "7", "d2": "7", "d3": "7", "d5": "8", "d6": "8"}, "body of")
    data["pool"] = data["pool"].assign(stratum=[1, 1, 2, 1, 1],
                                       inclusion=[1.0, 1.0, 1 / 3, 0.5, 0.5],
                                       sampled=[1, 1, 0, 1, 0])
    settings = CampaignSettings(name="s", scale=SCALE, overlap=1,
                                people=(("ann1", "annotator"), ("boss", "admin")))
    people = {p.name: p.token for p in create_campaign(db, settings, **data).people}
    with session_scope(db) as session:
        _import(session, "s", [row for row in JUDGED if row[0] == "ann1"
                               and row[1] in {"d1", "d2", "d5"}])
    at = open_page(people["boss"], "export")
    assert not at.exception
    assert downloads["s.qrels"].decode() == "7 0 d1 1\n7 0 d2 1\n7 0 d3 -1\n8 0 d5 0\n8 0 d6 -1\n"
    assert at.main.caption[0].value.startswith("3 judged pairs in the qrels")
    assert any("2 pooled-but-unsampled pairs with label -1" in c.value for c in at.main.caption)
    prels = downloads["s.prels.tsv"].decode()
    assert prels.splitlines()[0] == "topic\tdoc\tlabel\tstratum\tinclusion"
    assert prels.splitlines()[3] == f"7\td3\t\t2\t{1 / 3!r}"
    assert "\tnan\t" not in prels
    assert main(["export", "--campaign", "s", "-o", str(tmp_path / "s.qrels"),
                 "--db", str(db.url)]) == 0
    assert (tmp_path / "s.qrels").read_bytes() == downloads["s.qrels"]
    assert (tmp_path / "s.qrels.prels.tsv").read_bytes() == downloads["s.prels.tsv"]
