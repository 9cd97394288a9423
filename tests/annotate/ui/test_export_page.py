"""AppTest: the Export page states the pairs each rule settled and lists the undecided pairs
(:mod:`tests.support.undecided`: adjudicated 1, unanimous 14, 10 ties), and the admin chooses,
before downloading, what the qrels do with them."""

from __future__ import annotations

import pytest
from pooljudge.annotate.ui import keys
from pooljudge.annotate.ui.export_view import UNDECIDED_CHOICES
from streamlit.testing.v1 import AppTest

from tests.support.undecided import ADJUDICATED, UNANIMOUS, UNDECIDED, make_tie_campaign

LEAVE_OUT = next(k for k, v in UNDECIDED_CHOICES.items() if v == "skip")


@pytest.fixture
def tokens(app_db) -> dict[str, str]:
    return make_tie_campaign(app_db, "c")


def _adjudicated(at: AppTest) -> AppTest:
    return at.selectbox(key=keys.EXPORT_POLICY).select("adjudicated").run()


def _qrels(downloads: dict[str, bytes]) -> dict[str, int]:
    return {line.split()[2]: int(line.split()[3])
            for line in downloads["c.qrels"].decode().splitlines()}


def test_the_page_counts_each_rule_and_lists_the_undecided(tokens, downloads,
                                                            open_page) -> None:
    at = _adjudicated(open_page(tokens["boss"], "export"))
    captions = [c.value for c in at.main.caption]
    assert captions[0] == "25 judged pairs in the qrels; 51 judgment rows in total."
    assert captions[1] == ("Pairs settled by each rule: adjudicated: 1, unanimous: 14, "
                           "majority: 0, majority tie → lower label: 10.")
    (warning,) = at.warning
    assert warning.value.startswith("10 undecided pairs: their most frequent labels tie")
    undecided = at.dataframe[0].value
    assert undecided.columns.tolist() == ["Topic", "Document", "Votes"]
    assert undecided.to_numpy().tolist() == [["8", d, "ann1=1 ann2=0"] for d in UNDECIDED]
    (choice,) = at.radio
    assert choice.label == "The 10 undecided pairs" and choice.value == next(iter(
        UNDECIDED_CHOICES))
    labels = _qrels(downloads)                 # today's behaviour: the tie rule, lower label
    assert len(labels) == 25 and {labels[d] for d in UNDECIDED} == {0}
    assert labels[ADJUDICATED] == 1


def test_leaving_the_undecided_out_before_the_download(tokens, downloads, open_page) -> None:
    at = _adjudicated(open_page(tokens["boss"], "export"))
    at.radio(key=keys.EXPORT_UNDECIDED).set_value(LEAVE_OUT).run()
    assert not at.exception
    captions = [c.value for c in at.main.caption]
    assert captions[0] == "15 judged pairs in the qrels; 51 judgment rows in total."
    assert captions[1].endswith("majority tie → left out: 10.")
    assert sorted(_qrels(downloads)) == sorted([*UNANIMOUS, ADJUDICATED])
    table = at.dataframe[1]
    left_out = table.value[table.value["Document"].isin(UNDECIDED)]
    assert left_out["Label"].isna().all() and len(left_out) == 10
    assert table.proto.placeholder == "—"                # drawn as a dash, never "None"


def test_the_page_links_to_adjudicate_and_no_tie_means_no_choice(tokens, open_page) -> None:
    at = _adjudicated(open_page(tokens["boss"], "export"))
    (link,) = at.get("page_link")
    assert link.proto.label == "Adjudicate them"
    assert (link.proto.page, link.proto.query_string) == ("adjudicate", "campaign=c")
    at.selectbox(key=keys.EXPORT_POLICY).select("max").run()
    assert not at.radio and not at.warning and not at.get("page_link")
    assert at.main.caption[1].value == ("Pairs settled by each rule: unanimous: 14, highest of "
                                        "differing votes: 11.")
