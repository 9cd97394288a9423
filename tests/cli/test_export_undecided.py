"""``pooljudge export``: the pairs each rule settled, on standard error, and ``--undecided``
(tie-rule, skip, refuse) on the campaign of :mod:`tests.support.undecided`, on SQLite and
PostgreSQL."""

from __future__ import annotations

import uuid

import pytest

from pooljudge.cli import main
from pooljudge.formats.trec import read_qrels
from tests.support.undecided import ADJUDICATED, UNANIMOUS, UNDECIDED, make_tie_campaign

SETTLED = "settled by rule: adjudicated: 1, unanimous: 14, majority: 0, " \
          "majority tie → lower label: 10"


@pytest.fixture
def campaign(engine, db_url) -> tuple[str, str]:
    """(database URL, campaign name): a fresh tie campaign on each backend."""
    name = f"tie-{uuid.uuid4().hex[:8]}"
    make_tie_campaign(engine, name)
    return db_url, name


def _export(capsys, url: str, name: str, *argv: str) -> tuple[int, list[str]]:
    status = main(["export", "--campaign", name, "--db", url, *argv])
    return status, capsys.readouterr().err.splitlines()


def test_the_default_keeps_the_tie_rule_and_says_so(campaign, capsys, tmp_path) -> None:
    url, name = campaign
    output = tmp_path / "q.txt"
    status, err = _export(capsys, url, name, "-o", str(output), "--policy", "adjudicated")
    assert status == 0
    labels = {d: lab for _, d, lab in read_qrels(output).itertuples(index=False)}
    assert len(labels) == 25 and all(labels[d] == 0 for d in UNDECIDED)
    assert labels[ADJUDICATED] == 1
    assert err[0].startswith("25 judged pairs written by policy adjudicated (ties: lower)")
    assert err[1] == SETTLED
    assert err[2] == "10 undecided pairs (their most frequent labels tie; settled as the " \
                     "majority tie above):"
    assert err[3:] == [f"  topic 8  document {d}  votes ann1=1 ann2=0" for d in UNDECIDED]


def test_skip_leaves_the_undecided_pairs_out(campaign, capsys, tmp_path) -> None:
    url, name = campaign
    output = tmp_path / "q.txt"
    status, err = _export(capsys, url, name, "-o", str(output), "--policy", "adjudicated",
                          "--undecided", "skip")
    assert status == 0
    labels = {d: lab for _, d, lab in read_qrels(output).itertuples(index=False)}
    assert sorted(labels) == sorted([*UNANIMOUS, ADJUDICATED])
    assert "15 judged pairs written" in err[0] and "10 left out" in err[0]
    assert err[1] == SETTLED.replace("lower label", "left out")
    provenance = (tmp_path / "q.txt.provenance.tsv").read_text().splitlines()
    assert sum(line.endswith("no adjudication; majority tie, skipped")
               for line in provenance) == 10


@pytest.mark.parametrize("extra", [(), ("--format", "hf")])
def test_refuse_writes_nothing_and_names_the_count(campaign, capsys, tmp_path, extra) -> None:
    url, name = campaign
    output = tmp_path / "q.txt"
    target = ("-o", str(output)) if not extra else (*extra, str(tmp_path / "ds"))
    status, err = _export(capsys, url, name, *target, "--policy", "adjudicated",
                          "--undecided", "refuse")
    assert status == 2
    assert err == [f"pooljudge: error: campaign {name}: 10 undecided pairs (their most "
                   "frequent labels tie): adjudicate them (pooljudge adjudication list), or "
                   "choose --undecided tie-rule or skip"]
    assert not output.exists() and not (tmp_path / "ds").exists()
    assert not [p for p in tmp_path.iterdir() if not p.name.startswith("store.db")]


def test_refuse_passes_when_nothing_is_undecided(campaign, capsys, tmp_path) -> None:
    url, name = campaign
    output = tmp_path / "q.txt"
    status, err = _export(capsys, url, name, "-o", str(output), "--policy", "max",
                          "--undecided", "refuse")
    assert status == 0 and len(read_qrels(output)) == 25
    assert err[1] == "settled by rule: unanimous: 14, highest of differing votes: 11"
    assert len(err) == 2


def test_majority_counts_the_adjudicated_pair_as_a_tie(campaign, capsys) -> None:
    url, name = campaign
    status, err = _export(capsys, url, name, "-o", "-")
    assert status == 0
    assert err[1] == "settled by rule: unanimous: 14, majority: 0, " \
                     "majority tie → lower label: 11"
    assert err[3] == f"  topic 8  document {ADJUDICATED}  votes ann1=1 ann2=0"
