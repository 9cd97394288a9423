"""Model pre-assignment under the anchoring control: the judge named by ``calibrate suggest``
is the one whose labels are suggested, a person's label keeps the suggestion shown with it
(SQLite and PostgreSQL), and the anchoring table (with and without a suggestion shown) equals
scikit-learn's kappa; ``nuggets agree`` reports it."""

from __future__ import annotations

import json
import math
import uuid
import warnings

import numpy as np
import pandas as pd
import pytest
from pooljudge.annotate import store
from pooljudge.annotate.nugget_agreement import ANCHORING_COLUMNS, anchoring
from pooljudge.annotate.records import NUGGET_LABELS
from pooljudge.annotate.store import Credential, session_scope
from sklearn.metrics import cohen_kappa_score

from pooljudge.cli import main
from pooljudge.errors import InputError
from pooljudge.formats.nugget_assignments import AssignmentRow
from tests.support.nugget_campaign import make_nugget_campaign, nugget_text


def _generated(seed: int) -> pd.DataFrame:
    """Cells of a model and three people (one of whom is not a person: ``other``), the people
    shown the model's label on about half of theirs and following it more often then."""
    rng = np.random.default_rng(seed)
    rows = []
    for answer in range(int(rng.integers(5, 40))):
        for nugget in range(3):
            model = NUGGET_LABELS[int(rng.integers(3))]
            rows.append((f"a{answer}", f"n{nugget}", "gpt", model, None))
            for person in ("ann", "bob", "other"):
                if rng.random() < 0.3:
                    continue
                shown = rng.random() < 0.5
                label = model if rng.random() < (0.8 if shown else 0.4) else NUGGET_LABELS[
                    int(rng.integers(3))]
                rows.append((f"a{answer}", f"n{nugget}", person, label,
                             model if shown else None))
    return pd.DataFrame(rows, columns=["answer", "nugget", "assessor", "label", "suggested"])


def _kappa(a, b) -> float:
    if len(a) == 0 or len(set(a) | set(b)) < 2:
        return math.nan
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return float(cohen_kappa_score(a, b, labels=list(NUGGET_LABELS), weights="linear"))


@pytest.mark.parametrize("seed", range(20))
def test_the_anchoring_table_equals_sklearn_on_each_subset(seed):
    cells = _generated(seed)
    table = anchoring(cells, judge="gpt", people={"ann", "bob"}).set_index("subset")
    assert list(table.reset_index().columns) == list(ANCHORING_COLUMNS)
    model = cells[cells["assessor"] == "gpt"].set_index(["answer", "nugget"])["label"]
    people = cells[cells["assessor"].isin(["ann", "bob"])]
    truth = model.reindex(pd.MultiIndex.from_frame(people[["answer", "nugget"]])).to_numpy()
    shown = people["suggested"].notna().to_numpy()
    for subset, keep in (("all", np.ones(len(people), bool)), ("no suggestion shown", ~shown),
                         ("suggestion shown", shown)):
        ours, theirs = people["label"].to_numpy()[keep], truth[keep]
        row = table.loc[subset]
        assert row["n"] == keep.sum()
        assert row["agreement"] == pytest.approx((ours == theirs).mean())
        expected = _kappa(ours, theirs)
        assert (math.isnan(row["weighted_kappa_linear"]) and math.isnan(expected)) or \
            row["weighted_kappa_linear"] == pytest.approx(expected)
    followed = (people["label"] == people["suggested"])[shown].mean()
    assert table.loc["suggestion shown", "followed"] == pytest.approx(followed)
    assert math.isnan(table.loc["all", "followed"])


def test_no_shared_cells_give_empty_subsets():
    cells = pd.DataFrame([("a", "n", "ann", "support", None)],
                         columns=["answer", "nugget", "assessor", "label", "suggested"])
    table = anchoring(cells, judge="gpt", people={"ann"})
    assert table["n"].tolist() == [0, 0, 0]
    assert table[["agreement", "weighted_kappa_linear", "followed"]].isna().all(axis=None)


@pytest.fixture
def campaign(engine):
    """Topic 301 with three nuggets and answers r1/301, r2/301; gpt labelled r1/301's first two
    nuggets (support, then not_support, then support again for the first: the latest wins)."""
    name = f"c-{uuid.uuid4().hex[:8]}"
    tokens = make_nugget_campaign(engine, name, topics=1, nuggets=3, people=(
        ("ann", "annotator"), ("bob", "annotator")))
    rows = [AssignmentRow("301", "r1", "r1/301", nugget_text("301", i), label, "gpt", line=n)
            for n, (i, label) in enumerate([(1, "not_support"), (2, "not_support"),
                                            (1, "support")], start=1)]
    with session_scope(engine) as session:
        store.import_nugget_assignments(session, campaign=name, rows=rows,
                                        label_sources={"gpt"})
    return name, tokens


def test_suggestions_come_only_from_the_judge_calibrate_suggest_names(engine, campaign):
    name, tokens = campaign
    with session_scope(engine) as session:
        assert store.nugget_suggestions(session, campaign=name, answer="r1/301") == {}
        store.set_suggest_from(session, campaign=name, name="gpt")
        assert store.nugget_suggestions(session, campaign=name, answer="r1/301") == {
            "301-1": ("support", "gpt"), "301-2": ("not_support", "gpt")}
        assert store.nugget_suggestions(session, campaign=name, answer="r2/301") == {}
        ann = Credential("token", tokens["ann"])
        store.record_nugget_assignment(session, credential=ann, campaign=name,
                                       answer="r1/301", nugget="301-1", label="partial_support",
                                       suggested="support")
        with pytest.raises(InputError, match=r"a label is one of .* not 'yes'"):
            store.record_nugget_assignment(session, credential=ann, campaign=name,
                                           answer="r1/301", nugget="301-2", label="support",
                                           suggested="yes")
    with session_scope(engine, readonly=True) as session:
        cells = store.nugget_cells(session, campaign=name, with_suggested=True)
        plain = store.nugget_cells(session, campaign=name)
    assert "suggested" not in plain.columns
    mine = cells[cells["assessor"] == "ann"]
    assert mine[["nugget", "label", "suggested"]].to_numpy().tolist() == [
        ["301-1", "partial_support", "support"]]
    assert cells.loc[cells["assessor"] == "gpt", "suggested"].isna().all()


def test_nuggets_agree_reports_the_anchoring_control(engine, db_url, campaign, capsys):
    name, tokens = campaign
    command = ["nuggets", "agree", "--campaign", name, "--db", db_url, "--resamples", "0",
               "--format", "json"]
    assert main(command) == 0
    assert json.loads(capsys.readouterr().out)["anchoring"] is None
    with session_scope(engine) as session:
        store.set_suggest_from(session, campaign=name, name="gpt")
        for person, nugget, label, suggested in (("ann", "301-1", "support", "support"),
                                                 ("bob", "301-2", "support", None)):
            store.record_nugget_assignment(session, credential=Credential(
                "token", tokens[person]), campaign=name, answer="r1/301", nugget=nugget,
                label=label, suggested=suggested)
    assert main(command) == 0
    report = json.loads(capsys.readouterr().out)["anchoring"]
    assert report["judge"] == "gpt"
    assert [(r["subset"], r["n"], r["agreement"], r["followed"]) for r in report["subsets"]] == [
        ("all", 2, 0.5, None), ("no suggestion shown", 1, 0.0, None),
        ("suggestion shown", 1, 1.0, 1.0)]
    assert main(command[:-2]) == 0
    assert "Model pre-assignment: people against gpt" in capsys.readouterr().out
