"""AppTest over every admin page: a heading naming the campaign, human column headers (no
underscore, no raw column name) and no raw missing value in any table cell ("None", "nan",
"NaT", "<NA>"), on a campaign where values are missing: an annotator with no judgment (no
kappa, no median time), imported labels (no time at all), disagreements not adjudicated (no
adjudicator), pairs left out of the qrels, people who have not read the guidelines, topics
without highlight terms. Guidelines are edited on the People page."""

from __future__ import annotations

import json

import pandas as pd
import pytest
import streamlit as st
from pooljudge.annotate.ui import keys
from pooljudge.annotate.ui.tables import MISSING
from streamlit.testing.v1 import AppTest

from pooljudge.formats.trec import write_run
from tests.support.undecided import DOCS, make_tie_campaign
from tests.support.uploads import Upload

ADMIN_PAGES = ("overview", "agreement", "export", "adjudicate", "evaluate", "people", "terms")
TITLES = {"overview": "Overview", "agreement": "Agreement", "export": "Export",
          "adjudicate": "Adjudicate", "evaluate": "Evaluate runs", "people": "People",
          "terms": "Highlight terms"}
RAW = {"None", "nan", "NaN", "NaT", "<NA>", "null"}


@pytest.fixture
def tokens(app_db) -> dict[str, str]:
    return make_tie_campaign(app_db, "c")


@pytest.fixture
def runs(monkeypatch, tmp_path) -> None:
    """The evaluation page's uploader returns one run over the campaign's documents."""
    path = tmp_path / "r1"
    rows = [(topic, doc, float(25 - i)) for i, (doc, topic) in enumerate(DOCS.items())]
    write_run(pd.DataFrame(rows, columns=["topic", "doc", "score"]), path, tag="r1")
    upload = Upload("r1", path.read_bytes())
    real = st.file_uploader

    def fake(label, *args, key=None, **kwargs):
        return [upload] if key == keys.EVAL_RUNS else real(label, *args, key=key, **kwargs)

    monkeypatch.setattr(st, "file_uploader", fake)


def raw_internals(at: AppTest) -> list[str]:
    """What a reader would see of the code in the page's tables: a header (as configured, else
    the column's name) with an underscore, a missing value drawn as "None" (no placeholder),
    a cell whose text is a raw missing value."""
    found = []
    for table in at.dataframe:
        frame, config = table.value, json.loads(table.proto.columns or "{}")
        names = [str(c) for c in frame.columns]
        if frame.index.name is not None:
            names.append(str(frame.index.name))
        for name in names:
            header = config.get(name, {}).get("label") or name
            if "_" in header:
                found.append(f"header {header!r}")
        if frame.isna().to_numpy().any() and table.proto.placeholder in ("", "None"):
            found.append(f"a missing value drawn as None in {names}")
        text = frame.astype(object).where(frame.notna(), "").astype(str).to_numpy().ravel()
        found += [f"cell {cell!r} in {names}" for cell in text if cell in RAW]
    return found


@pytest.mark.parametrize("page", ADMIN_PAGES)
def test_admin_tables_show_no_raw_internals(tokens, runs, page, open_page) -> None:
    at = open_page(tokens["boss"], page, timeout=60)
    assert [t.value for t in at.title] == [f"{TITLES[page]} · c"]   # the heading names it
    if page == "export":
        at.selectbox(key=keys.EXPORT_POLICY).select("adjudicated").run()
        at.radio(key=keys.EXPORT_UNDECIDED).set_value(
            "leave them out of the qrels").run()            # missing labels in the provenance
    assert not at.exception, [e.value for e in at.exception]
    tables = {"overview": 4, "agreement": 4, "export": 2, "adjudicate": 0, "people": 2,
              "terms": 1}
    if page in tables:
        assert len(at.dataframe) == tables[page]
    else:
        assert len(at.dataframe) >= 1                        # the evaluation of run r1
    assert raw_internals(at) == []


def test_the_missing_values_are_there_and_drawn_as_a_dash(tokens, runs, open_page) -> None:
    """The check above is not empty-handed: the campaign has missing values to draw."""
    at = open_page(tokens["boss"], "overview")
    summary = next(t for t in at.dataframe if "Mean kappa" in t.value.columns)
    assert summary.value.set_index("Annotator")["Mean kappa"].isna().to_dict() == {
        "ann1": False, "ann2": False, "boss": True, "idle": True, "referee": True}
    assert summary.value["Median seconds"].isna().all()     # imported labels: no times
    assert summary.proto.placeholder == MISSING
    assert "no pair labelled with another annotator" in json.loads(
        summary.proto.columns)["Mean kappa"]["help"]


def test_the_check_finds_raw_internals() -> None:
    """Negative control: a raw table is reported."""
    def raw() -> None:
        import pandas as pd
        import streamlit as st

        st.dataframe(pd.DataFrame({"co_judged": [1, None], "who": ["x", "None"]}))

    found = raw_internals(AppTest.from_function(raw).run())
    assert found == ["header 'co_judged'", "a missing value drawn as None in "
                     "['co_judged', 'who']", "cell 'None' in ['co_judged', 'who']"]
