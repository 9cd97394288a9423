"""``pooljudge export`` on a campaign built by the store: majority and adjudicated qrels, their
provenance, and errors that leave every file untouched."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from pooljudge.cli import main
from pooljudge.formats.trec import read_qrels
from tests.support import graded_campaign as graded
from tests.support.graded_campaign import adjudicate, run

campaign = graded.campaign  # the fixture: alice, bob, carol and adjudicator dave


def test_export_majority_writes_qrels_and_provenance(campaign, capsys, tmp_path):
    url, name = campaign
    output = tmp_path / "qrels.txt"
    status, _, err = run(capsys, "export", "--campaign", name, "--db", url, "-o", str(output),
                         "--ties", "skip")
    assert status == 0
    qrels = read_qrels(output)
    got = {(t, d): label for t, d, label in qrels.itertuples(index=False)}
    # t0/d0: 0 0 2 -> 0; t0/d1: 1 2 1 -> 1; t0/d2: 2 2 2 -> 2; t1/d0: 0; t1/d1: 2;
    # t1/d2: 1 0 2 -> three-way tie, skipped.
    assert got == {("t0", "d0"): 0, ("t0", "d1"): 1, ("t0", "d2"): 2, ("t1", "d0"): 0,
                   ("t1", "d1"): 2}
    provenance = pd.read_csv(str(output) + ".provenance.tsv", sep="\t", dtype=str,
                             keep_default_na=False)
    assert list(provenance.columns) == ["topic", "doc", "votes", "n_votes", "decided", "label",
                                        "rule"]
    skipped = provenance[(provenance["topic"] == "t1") & (provenance["doc"] == "d2")].iloc[0]
    assert skipped["votes"] == "alice=1 bob=0 carol=2"
    assert (skipped["label"], skipped["rule"]) == ("", "majority tie, skipped")
    assert "5 judged pairs written by policy majority" in err and "1 left out" in err


def test_export_adjudicated_and_binarized(campaign, capsys, tmp_path):
    url, name = campaign
    adjudicate(url, "t1", "d2", 1)
    output = tmp_path / "q.txt"
    status, _, _ = run(capsys, "export", "--campaign", name, "--db", url, "-o", str(output),
                       "--policy", "adjudicated", "--binarize", "2")
    assert status == 0
    got = {(t, d): label for t, d, label in read_qrels(output).itertuples(index=False)}
    assert got[("t1", "d2")] == 0 and got[("t0", "d2")] == 1 and got[("t0", "d1")] == 0
    provenance = (output.parent / "q.txt.provenance.tsv").read_text()
    assert "adjudicated by dave; binarized: >= 2 -> 1" in provenance


def test_export_to_stdout_writes_no_provenance_file(campaign, capsys, tmp_path, monkeypatch):
    url, name = campaign
    monkeypatch.chdir(tmp_path)
    status, out, _ = run(capsys, "export", "--campaign", name, "--db", url, "--policy", "max")
    assert status == 0
    assert out.splitlines()[0] == "t0 0 d0 2"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["campaign.db"]


def test_export_errors_leave_files_untouched(campaign, capsys, tmp_path):
    url, name = campaign
    output = tmp_path / "qrels.txt"
    output.write_text("old qrels\n")
    status, _, err = run(capsys, "export", "--campaign", name, "--db", url, "-o", str(output),
                         "--policy", "annotator:zed")
    assert status == 2 and "no judgments by an annotator named 'zed'" in err
    status, _, err = run(capsys, "export", "--campaign", name, "--db", url, "-o", str(output),
                         "--provenance", str(tmp_path / "missing" / "p.tsv"))
    assert status == 2 and "no such directory" in err
    status, _, err = run(capsys, "export", "--campaign", name, "--db", url, "--policy", "median")
    assert status == 2 and "unknown policy" in err
    assert output.read_text() == "old qrels\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["campaign.db", "qrels.txt"]


def test_a_failure_while_writing_leaves_neither_file(campaign, capsys, tmp_path, monkeypatch):
    import pooljudge.formats.trec
    from pooljudge.formats.files import atomic_writer

    def broken_write(qrels, path):
        with atomic_writer(path) as handle:
            handle.write("1 0 half")
            raise OSError("disk full")

    monkeypatch.setattr(pooljudge.formats.trec, "write_qrels", broken_write)
    url, name = campaign
    target = tmp_path / "q.txt"
    assert main(["export", "--campaign", name, "--db", url, "-o", str(target)]) == 2
    assert capsys.readouterr().err == f"pooljudge: error: {target}: cannot write: disk full\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["campaign.db"]


def test_export_of_an_unjudged_campaign_is_refused(tmp_path, collection, capsys):
    from pooljudge.annotate.records import LabelScale
    from pooljudge.annotate.store import create_campaign, open_engine, session_scope

    url = f"sqlite:///{tmp_path / 'empty.db'}"
    engine = open_engine(url)
    with session_scope(engine) as session:
        create_campaign(session, name="e", scale=LabelScale.binary(), **collection(1, 2))
    engine.dispose()
    output = Path(tmp_path / "q.txt")
    status, _, err = run(capsys, "export", "--campaign", "e", "--db", url, "-o", str(output))
    assert status == 2 and "no judgments to export" in err and not output.exists()
