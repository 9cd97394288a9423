"""H3, H4, P1: ids that no written file could carry are refused where they are read (with
``path:line``), a NUL in a text is refused on both backends, and every file pooljudge writes
reads back identically for ids with quotes, commas, ``#``, ``NA``, ``null``, ``1e5``, ``007``
and any Unicode (hypothesis)."""

from __future__ import annotations

import json
import string
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pooljudge.formats.ids import id_problem
from pooljudge.formats.prels import read_prels, write_prels
from pooljudge.formats.trec import (
    read_pool,
    read_qrels,
    read_run,
    write_pool,
    write_qrels,
    write_run,
)
from tests.hostile.conftest import GOOD, run_inprocess, snapshot
from tests.hostile.test_hostile_inputs import COMMANDS, HEADER_KINDS, _check, _setup
from tests.support.postgres import PG_SERVER, create_pg_database, drop_pg_database

# --- refused at the input ----------------------------------------------------------------------

# kind -> {case: bad line (after the good first line; the error names the line after)}
BAD_IDS: dict[str, dict[str, str]] = {
    "docs": {"blank-inside": '{"id": "d 9", "text": "x"}\n',
             "nbsp": '{"id": "d\\u00a09", "text": "x"}\n',
             "tab": '{"id": "d\\t9", "text": "x"}\n',
             "newline": '{"id": "d\\n9", "text": "x"}\n',
             "escape": '{"id": "d\\u001b9", "text": "x"}\n',
             "nul": '{"id": "d\\u00009", "text": "x"}\n',
             "c1": '{"id": "d\\u00859", "text": "x"}\n',
             "bom": '{"id": "\\ufeffd9", "text": "x"}\n'},
    "topics": {"blank-inside": "4 x\tfour\td\tn\n", "hash": "#4\tfour\td\tn\n",
               "escape": "4\x1b\tfour\td\tn\n", "nbsp": "4\u00a0x\tfour\td\tn\n"},
    "pool": {"blank-inside": "3\td 9\t3\t3\trun_a\n", "hash-topic": "#3\td9\t3\t3\trun_a\n",
             "escape": "3\td\x1b9\t3\t3\trun_a\n", "vertical-tab": "3\td\x0b9\t3\t3\trun_a\n"},
    "run": {"vertical-tab": "1 Q0 d\x0b9 7 2.0 tag\n", "escape": "1 Q0 d\x1b9 7 2.0 tag\n",
            "nul": "1 Q0 d\x009 7 2.0 tag\n", "lone-cr": "1 Q0 d\r9 7 2.0 tag\n",
            "form-feed": "1\x0cQ0 d9 7 2.0 tag\n", "del": "1 Q0 d\x7f9 7 2.0 tag\n"},
    "qrels": {"vertical-tab": "1 0 d\x0b9 1\n", "escape": "1 0 d\x1b9 1\n",
              "nul": "1 0 d\x009 1\n", "lone-cr": "1 0 d\r9 1\n"},
    "units": {"escape": "d\x1b9 D9\n", "nul": "d\x009 D9\n"},
}
ID_CASES = [pytest.param(command, case, id=f"{command}|{case}")
            for command, (kind, _) in COMMANDS.items() for case in BAD_IDS.get(kind, {})]


def _bad_file(kind: str, bad_line: str) -> tuple[bytes, int]:
    lines = GOOD[kind].splitlines(keepends=True)
    keep = 2 if kind in HEADER_KINDS else 1
    return ("".join(lines[:keep]) + bad_line).encode(), keep + 1


@pytest.mark.parametrize(("command", "case"), ID_CASES)
def test_an_id_that_cannot_be_written_back_is_refused(command, case, good, campaign_db,
                                                      tmp_path, capsys):
    kind = COMMANDS[command][0]
    argv, bad, _line, written = _setup(command, "empty", good, campaign_db, tmp_path)
    content, line = _bad_file(kind, BAD_IDS[kind][case])
    Path(bad).write_bytes(content)
    before = snapshot(written)
    capsys.readouterr()
    status = run_inprocess(argv)
    err = capsys.readouterr().err
    _check(status, err, bad, line, before, written)
    assert "\x1b" not in err


def test_the_issue_example_d_9_is_refused_at_init(good, tmp_path, capsys):
    """H3: ``init`` used to accept ``d 9`` and ``export`` then wrote ``1 0 d 9 1``."""
    docs = tmp_path / "docs.jsonl"
    docs.write_text('{"id": "d 9", "text": "x"}\n')
    status = run_inprocess(["init", "c", "--topics", f"{good}/topics", "--docs", str(docs),
                            "--pool", f"{good}/pool", "--db", f"sqlite:///{tmp_path}/c.db"])
    err = capsys.readouterr().err
    assert status == 2, err
    assert f"{docs}:1: whitespace ' ' in document id 'd 9'" in err
    assert not (tmp_path / "c.db").exists()


# --- H4: NUL in a text, on both backends -------------------------------------------------------

@pytest.fixture(params=["sqlite", "postgresql"])
def empty_db(request, tmp_path):
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path}/nul.db"
        return
    name = create_pg_database("pooljudge_hostile_nul")
    try:
        yield PG_SERVER.format(database=name)
    finally:
        drop_pg_database(name)


@pytest.mark.parametrize(("kind", "content"), [
    ("docs", '{"id": "d1", "title": "t", "text": "a\\u0000b"}\n'),
    ("docs", '{"id": "d1", "title": "t\\u0000", "text": "ab"}\n'),
    ("topics", "id\ttitle\tdescription\tnarrative\n1\tone\x00\td\tn\n"),
])
def test_a_nul_character_in_a_text_is_refused(kind, content, empty_db, good, tmp_path, capsys):
    bad = tmp_path / f"bad.{kind}"
    bad.write_text(content)
    files = {"topics": f"{good}/topics", "docs": f"{good}/docs", kind: str(bad)}
    status = run_inprocess(["init", "c", "--topics", files["topics"], "--docs", files["docs"],
                            "--pool", f"{good}/pool", "--db", empty_db])
    err = capsys.readouterr().err
    assert status == 2, err
    line = 2 if kind == "topics" else 1
    assert err == f"pooljudge: error: {bad}:{line}: NUL character in text\n"
    if empty_db.startswith("sqlite"):
        assert not Path(empty_db.removeprefix("sqlite:///")).exists()


def test_a_nul_in_a_judgment_rationale_is_refused(good, campaign_db, tmp_path, capsys):
    bad = tmp_path / "j.tsv"
    bad.write_text("annotator\ttopic\tdoc\tlabel\trationale\nbob\t2\td2\t1\twhy\x00\n")
    before = snapshot(Path(campaign_db.removeprefix("sqlite:///")))
    status = run_inprocess(["judgments", "import", str(bad), "--campaign", "demo", "--db",
                            campaign_db])
    assert status == 2
    assert f"{bad}:2: NUL character in text" in capsys.readouterr().err
    assert snapshot(Path(campaign_db.removeprefix("sqlite:///"))) == before


# --- round trips -------------------------------------------------------------------------------

AWKWARD = ['"', '""', 'a"b', '"a', "'", ",", "a,b", "#", "x#y", "NA", "N/A", "null", "None",
           "nan", "NaN", "inf", "1e5", "007", "-0", "+1", "TRUE", "\\", "\\t", "é", "文書",
           "🙂", "ﬁ", "\u200b", "<b>", "&amp;", "%s", "{}"]
_letters = st.characters(blacklist_categories=("Cs", "Cc", "Zs", "Zl", "Zp"))


def ids(what: str) -> st.SearchStrategy[str]:
    """Ids every reader accepts (:func:`id_problem` finds nothing), many of them awkward."""
    return st.one_of(st.sampled_from(AWKWARD),
                     st.text(_letters, min_size=1, max_size=6),
                     st.lists(st.sampled_from(AWKWARD), min_size=2, max_size=3).map("".join)
                     ).filter(lambda value: id_problem(value, what) is None)


pairs = st.lists(st.tuples(ids("topic"), ids("document")), min_size=1, max_size=12,
                 unique=True)
SETTINGS = settings(max_examples=60, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture])


@SETTINGS
@given(pairs, st.sampled_from(["qrels", "run"]))
def test_qrels_and_runs_read_back_identically(tmp_path_factory, pairs, kind):
    values = [float(len(pairs) - i) / 3 for i in range(len(pairs))]
    if kind == "qrels":
        values = [(i % 7) - 2 for i in range(len(pairs))]
    column = "label" if kind == "qrels" else "score"
    frame = pd.DataFrame({"topic": [t for t, _ in pairs], "doc": [d for _, d in pairs],
                          column: values})
    path = tmp_path_factory.mktemp(kind) / kind
    if kind == "qrels":
        write_qrels(frame, path)
    else:
        write_run(frame, path, tag="t")
    back = (read_qrels if kind == "qrels" else read_run)(path)
    assert _rows(back, column) == _rows(frame, column)


@SETTINGS
@given(pairs)
def test_pools_read_back_identically_and_are_never_quoted(tmp_path_factory, pairs):
    frame = pd.DataFrame({"topic": [t for t, _ in pairs], "doc": [d for _, d in pairs],
                          "order": range(1, len(pairs) + 1), "best_rank": [1] * len(pairs),
                          "runs": ["a,b"] * len(pairs)})
    path = tmp_path_factory.mktemp("p") / "pool.tsv"
    write_pool(frame, path)
    lines = path.read_text(encoding="utf-8").splitlines()[1:]
    assert [line.split("\t")[:2] for line in lines] == [[t, d] for t, d in pairs]  # no quotes
    back = read_pool(path)
    assert back[["topic", "doc"]].values.tolist() == [[t, d] for t, d in pairs]


@SETTINGS
@given(pairs)
def test_prels_read_back_identically(tmp_path_factory, pairs):
    frame = pd.DataFrame({"topic": [t for t, _ in pairs], "doc": [d for _, d in pairs],
                          "label": pd.array([1, None] * (len(pairs) // 2) + [0] * (len(pairs) % 2),
                                            dtype="Int64"),
                          "stratum": [1] * len(pairs), "inclusion": [0.5] * len(pairs)})
    path = tmp_path_factory.mktemp("pr") / "prels"
    write_prels(frame, path)
    back = read_prels(path)
    assert sorted(back[["topic", "doc"]].values.tolist()) == sorted(map(list, pairs))


def _rows(frame: pd.DataFrame, value: str) -> list:
    return sorted(zip(frame["topic"], frame["doc"], frame[value].tolist(), strict=True))


@SETTINGS
@given(pairs)
def test_soft_qrels_read_back_identically(tmp_path_factory, pairs):
    from pooljudge.formats.soft_qrels import read_soft_qrels, write_soft_qrels

    rows = [(t, d, label, p) for t, d in pairs for label, p in ((0, 0.25), (1, 0.75))]
    frame = pd.DataFrame(rows, columns=["topic", "doc", "label", "probability"])
    path = tmp_path_factory.mktemp("soft") / "soft.tsv"
    write_soft_qrels(frame, path)
    back = read_soft_qrels(path)
    assert list(back.itertuples(index=False, name=None)) == rows


# One campaign through the command line: pool -> init --pool -> judgments import -> export
# (qrels) and judgments export, each read back by pooljudge's own readers.
campaign_pairs = st.lists(st.tuples(ids("topic"), ids("document")), min_size=1, max_size=6,
                          unique_by=lambda p: p[1])


@settings(max_examples=12, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(campaign_pairs)
def test_a_campaign_of_awkward_ids_round_trips_through_the_command_line(tmp_path_factory,
                                                                        pairs):
    from pooljudge.cli.judgments_cmd import read_judgments

    folder = tmp_path_factory.mktemp("c")
    db = f"sqlite:///{folder}/c.db"
    run = folder / "run_x"
    run.write_text("".join(f"{t} Q0 {d} {i + 1} {10 - i} x\n" for i, (t, d) in enumerate(pairs)),
                   encoding="utf-8")
    topics = sorted({t for t, _ in pairs})
    (folder / "topics.jsonl").write_text("".join(
        json.dumps({"id": t, "title": f"title {i}"}) + "\n" for i, t in enumerate(topics)),
        encoding="utf-8")
    (folder / "docs.jsonl").write_text("".join(
        json.dumps({"id": d, "text": string.ascii_lowercase}) + "\n" for _, d in pairs),
        encoding="utf-8")
    assert run_inprocess(["pool", str(run), "--depth", "10", "-o", f"{folder}/pool.tsv"]) == 0
    assert run_inprocess(["init", "c", "--topics", f"{folder}/topics.jsonl", "--docs",
                          f"{folder}/docs.jsonl", "--pool", f"{folder}/pool.tsv",
                          "--db", db]) == 0
    judgments = folder / "j.jsonl"
    judgments.write_text("".join(json.dumps({"annotator": "bob", "topic": t, "doc": d,
                                             "label": 1}) + "\n" for t, d in pairs),
                         encoding="utf-8")
    assert run_inprocess(["judgments", "import", str(judgments), "--campaign", "c",
                          "--new-annotator", "bob", "--db", db]) == 0
    assert run_inprocess(["export", "--campaign", "c", "-o", f"{folder}/qrels",
                          "--db", db]) == 0
    assert sorted(read_qrels(folder / "qrels")[["topic", "doc"]].values.tolist()) == sorted(
        map(list, pairs))
    assert run_inprocess(["judgments", "export", "--campaign", "c", "-o", f"{folder}/j.tsv",
                          "--db", db]) == 0
    frame, _lines = read_judgments(str(folder / "j.tsv"))
    assert sorted(frame[["topic", "doc"]].values.tolist()) == sorted(map(list, pairs))
