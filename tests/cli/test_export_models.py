"""``pooljudge export --policy ds|ds1|glad|mace``: hard qrels by the argmax of the posterior,
soft qrels and competence beside them, gold seeding, and the refusals."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from pooljudge.cli import main
from pooljudge.formats.soft_qrels import read_soft_qrels
from pooljudge.formats.trec import read_qrels
from tests.annotate.conftest import small_collection
from tests.support.crowds import crowd

N_PAIRS = 42


@pytest.fixture(scope="module")
def campaign(tmp_path_factory):
    """Campaign ``c`` (scale 0-2) judged by a generated crowd; (db url, judgments)."""
    from pooljudge.annotate.records import LabelScale
    from pooljudge.annotate.store import (
        add_annotator,
        create_campaign,
        import_judgments,
        open_engine,
        session_scope,
    )

    judgments, _ = crowd(11, scale=(0, 1, 2), n_pairs=N_PAIRS)
    url = f"sqlite:///{tmp_path_factory.mktemp('models') / 'c.db'}"
    engine = open_engine(url)
    with session_scope(engine) as session:
        create_campaign(session, name="c", scale=LabelScale.range(0, 2), overlap=5,
                        **small_collection(7, N_PAIRS))
        for name in sorted(set(judgments["annotator"])):
            add_annotator(session, campaign="c", name=name)
        add_annotator(session, campaign="c", name="dave", role="adjudicator")
        import_judgments(session, campaign="c",
                         frame=judgments.assign(label=judgments["label"].astype(str)))
    engine.dispose()
    return url, judgments


@pytest.mark.parametrize("model", ["ds", "ds1", "glad", "mace"])
def test_hard_qrels_are_the_argmax_of_the_soft_ones(campaign, tmp_path, capsys, model):
    url, judgments = campaign
    out, soft, comp = tmp_path / "q", tmp_path / "soft.tsv", tmp_path / "comp.tsv"
    status = main(["export", "--db", url, "--campaign", "c", "--policy", model, "-o", str(out),
                   "--soft-qrels", str(soft), "--competence", str(comp)])
    assert status == 0, capsys.readouterr().err
    qrels = read_qrels(out)
    posterior = read_soft_qrels(soft)
    wide = posterior.pivot(index=["topic", "doc"], columns="label", values="probability")
    assert len(wide) == len(qrels) == judgments[["topic", "doc"]].drop_duplicates().shape[0]
    decided = pd.Series(wide.columns.to_numpy()[np.argmax(wide.to_numpy(), axis=1)],
                        index=wide.index)
    mine = qrels.set_index(["topic", "doc"])["label"]
    assert (decided.reindex(mine.index).to_numpy() == mine.to_numpy()).all()
    competence = pd.read_csv(comp, sep="\t")
    assert sorted(competence["annotator"]) == sorted(set(judgments["annotator"]))
    provenance = pd.read_csv(str(out) + ".provenance.tsv", sep="\t")
    assert provenance["rule"].str.startswith(f"{model}: posterior ").all()


def test_gold_adjudication_decides_its_pair(campaign, tmp_path, capsys):
    from pooljudge.annotate.store import import_judgments, open_engine, session_scope

    url, judgments = campaign
    first = judgments.iloc[0]
    plain = tmp_path / "plain"
    assert main(["export", "--db", url, "--campaign", "c", "--policy", "ds",
                 "-o", str(plain)]) == 0
    before = read_qrels(plain).set_index(["topic", "doc"])["label"]
    flipped = 2 if before[(first["topic"], first["doc"])] == 0 else 0
    engine = open_engine(url)
    with session_scope(engine) as session:
        import_judgments(session, campaign="c", frame=pd.DataFrame(
            [("dave", first["topic"], first["doc"], str(flipped), "adjudication")],
            columns=["annotator", "topic", "doc", "label", "kind"]))
    engine.dispose()
    seeded = tmp_path / "seeded"
    assert main(["export", "--db", url, "--campaign", "c", "--policy", "ds", "--gold",
                 "adjudicated", "-o", str(seeded)]) == 0
    after = read_qrels(seeded).set_index(["topic", "doc"])["label"]
    assert after[(first["topic"], first["doc"])] == flipped
    named = tmp_path / "named"
    assert main(["export", "--db", url, "--campaign", "c", "--policy", "mace", "--gold",
                 "annotator:good0", "-o", str(named)]) == 0
    theirs = judgments[judgments["annotator"] == "good0"].set_index(["topic", "doc"])["label"]
    got = read_qrels(named).set_index(["topic", "doc"])["label"]
    assert (got.reindex(theirs.index).to_numpy() == theirs.to_numpy()).all()
    capsys.readouterr()


@pytest.mark.parametrize(("argv", "message"), [
    (["--policy", "majority", "--soft-qrels", "x"], "--soft-qrels: only with a model policy"),
    (["--policy", "majority", "--gold", "adjudicated"], "--gold seeds a model policy"),
    (["--policy", "ds", "--gold", "someone"], "--gold must be adjudicated or annotator:NAME"),
    (["--policy", "ds", "--gold", "annotator:nobody"], "no judgments by an annotator named"),
])
def test_refusals(campaign, tmp_path, capsys, argv, message):
    status = main(["export", "--db", campaign[0], "--campaign", "c", "-o",
                   str(tmp_path / "q"), *argv])
    err = capsys.readouterr().err
    assert status == 2 and message in err and err.count("\n") == 1
    assert not (tmp_path / "q").exists()
