"""Topic-groups file reader (path:line errors) and per-group means."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from pooljudge.metrics.groups import GROUP_COLUMNS, group_means
from scipy import stats

from pooljudge import metrics
from pooljudge.cli import main
from pooljudge.errors import InputError
from pooljudge.formats.groups import read_run_groups, read_topic_groups


def _write(tmp_path, text: str, name: str = "groups.txt"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_read_topic_groups_header_comments_spaces_and_multiple_groups(tmp_path):
    path = _write(tmp_path, "# categories\ntopic group\n\n301\tnews en-US\n302 sport\n"
                            "301 \t long \n")
    frame = read_topic_groups(path)
    assert frame.to_dict("list") == {"topic": ["301", "302", "301"],
                                     "group": ["news en-US", "sport", "long"]}


def test_read_topic_groups_keeps_ids_as_strings(tmp_path):
    frame = read_topic_groups(_write(tmp_path, "01 a\n1 b\n"))
    assert frame["topic"].tolist() == ["01", "1"]


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        pytest.param("301 a\n302\n", 2, "expected 'topic group', found only '302'", id="no-group"),
        pytest.param("301 a\n# c\n301 a\n", 3, "topic 301 listed twice in group 'a' (first on "
                     "line 1)", id="duplicate"),
    ],
)
def test_read_topic_groups_errors_name_path_and_line(tmp_path, text, line, message):
    path = _write(tmp_path, text)
    with pytest.raises(InputError) as info:
        read_topic_groups(path)
    assert str(info.value) == f"{path}:{line}: {message}"


def test_read_topic_groups_bad_bytes_and_no_pairs(tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"301 a\n302 \xff\n")
    with pytest.raises(InputError, match=r"bad.txt:2: not valid UTF-8"):
        read_topic_groups(bad)
    with pytest.raises(InputError, match="no 'topic group' lines"):
        read_topic_groups(_write(tmp_path, "# only a comment\ntopic group\n"))
    with pytest.raises(InputError, match="no such file"):
        read_topic_groups(tmp_path / "missing.txt")


def test_read_run_groups(tmp_path):
    assert read_run_groups(_write(tmp_path, "run group\nsysA-1 A\nsysA-2 A\nB1 team B\n")) == {
        "sysA-1": "A", "sysA-2": "A", "B1": "team B"}
    path = _write(tmp_path, "x A\ny B\nx B\n")
    with pytest.raises(InputError) as info:
        read_run_groups(path)
    assert str(info.value) == f"{path}:3: run x listed twice (first on line 1)"


def test_group_means_against_direct_means():
    per_topic = pd.DataFrame({
        "run": ["r1"] * 4 + ["r2"] * 4 + ["r1"],
        "topic": ["1", "2", "3", "4"] * 2 + ["all"],
        "measure": "AP",
        "value": [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.25],
    })
    groups = pd.DataFrame({"topic": ["3", "1", "2", "2", "9"],
                           "group": ["odd-ish", "odd-ish", "even", "all-two", "even"]})
    table, warnings = group_means(per_topic, groups)
    assert list(table.columns) == GROUP_COLUMNS
    got = table.set_index(["run", "group"])
    assert got.loc[("r1", "odd-ish"), "value"] == pytest.approx(0.2)
    assert got.loc[("r2", "even"), "value"] == pytest.approx(0.6)
    assert got.loc[("r2", "odd-ish"), "topics"] == 2
    assert table["group"].tolist()[:3] == ["odd-ish", "even", "all-two"]
    assert table["run"].tolist() == ["r1"] * 3 + ["r2"] * 3
    assert warnings == ["1 evaluated topic(s) belong to no group, e.g. 4",
                        "1 grouped topic(s) were not evaluated (not in the qrels), e.g. 9"]


def test_group_means_t_intervals_against_scipy():
    rng = np.random.default_rng(2)
    values = rng.uniform(0.05, 1, size=7)
    per_topic = pd.DataFrame({
        "run": "r", "topic": [str(t) for t in range(7)] * 3,
        "measure": ["AP"] * 7 + ["GMAP"] * 7 + ["NumRel"] * 7,
        "value": np.concatenate([values, values, np.arange(7.0)]),
    })
    groups = pd.DataFrame({"topic": [str(t) for t in range(6)] + ["6"],
                           "group": ["six"] * 6 + ["one"]})
    table, _ = group_means(per_topic, groups)
    got = table.set_index(["group", "measure"])
    six = values[:6]
    low, high = stats.t.interval(0.95, 5, loc=six.mean(), scale=stats.sem(six))
    assert got.loc[("six", "AP"), ["ci_low", "ci_high"]].tolist() == pytest.approx([low, high])
    logs = np.log(six)
    low, high = stats.t.interval(0.95, 5, loc=logs.mean(), scale=stats.sem(logs))
    assert got.loc[("six", "GMAP"), "value"] == pytest.approx(np.exp(logs.mean()))
    assert got.loc[("six", "GMAP"), ["ci_low", "ci_high"]].tolist() == pytest.approx(
        [np.exp(low), np.exp(high)])
    assert got.loc[("six", "NumRel"), ["ci_low", "ci_high"]].isna().all()  # a count: none
    assert got.loc[("one", "AP"), ["ci_low", "ci_high"]].isna().all()  # one topic: none


def test_group_means_ignore_missing_values_in_counts():
    per_topic = pd.DataFrame({"run": "r", "topic": ["1", "2"], "measure": "RecallDepth(r=0.95)",
                              "value": [12.0, float("nan")]})
    table, _ = group_means(per_topic, pd.DataFrame({"topic": ["1", "2"], "group": ["g", "g"]}))
    assert table[["topics", "value"]].values.tolist() == [[1, 12.0]]
    assert table[["ci_low", "ci_high"]].isna().all(axis=None)


def _small_collection(tmp_path):
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("".join(f"{t} 0 d{d} {(t + d) % 3}\n" for t in range(1, 7) for d in range(8)))
    run = tmp_path / "sys.run"
    run.write_text("".join(f"{t} Q0 d{d} {d + 1} {10 - d - (t % 2) * (d % 3)} tag\n"
                           for t in range(1, 6) for d in range(8)))
    return qrels, run


def test_group_of_every_topic_reproduces_the_all_row(tmp_path):
    qrels, run = _small_collection(tmp_path)
    tidy = metrics.evaluate(qrels, [run], ["AP", "GMAP", "NumRel", "P@5"])
    topics = sorted(set(tidy["topic"]) - {"all"})
    table, warnings = group_means(tidy, pd.DataFrame({"topic": topics, "group": "every"}))
    assert warnings == []
    expected = tidy[tidy["topic"] == "all"].set_index("measure")["value"]
    got = table.set_index("measure")["value"]
    for measure in ("AP", "GMAP", "NumRel", "P@5"):
        assert got[measure] == pytest.approx(expected[measure], rel=1e-12), measure


def test_eval_topic_groups_cli(tmp_path, capsys):
    qrels, run = _small_collection(tmp_path)
    groups = _write(tmp_path, "1 odd\n3 odd\n5 odd\n2 even\n4 even\n6 even\n")
    assert main(["eval", str(qrels), str(run), "-m", "AP", "--topic-groups", str(groups),
                 "--format", "tsv"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "run\tgroup\tmeasure\ttopics\tvalue\tci_low\tci_high"
    rows = {tuple(line.split("\t")[1:4]): float(line.split("\t")[4]) for line in out[1:]}
    tidy = metrics.evaluate(qrels, [run], ["AP"])
    ap = tidy[tidy["topic"] != "all"].set_index("topic")["value"]
    assert rows[("odd", "AP", "3")] == pytest.approx(ap[["1", "3", "5"]].mean(), abs=1e-15)
    assert rows[("even", "AP", "3")] == pytest.approx(ap[["2", "4", "6"]].mean(), abs=1e-15)


def test_eval_topic_groups_bad_file_exits_2_and_writes_nothing(tmp_path, capsys):
    qrels, run = _small_collection(tmp_path)
    groups = _write(tmp_path, "1 odd\n3\n")
    out = tmp_path / "out.tsv"
    assert main(["eval", str(qrels), str(run), "--topic-groups", str(groups),
                 "-o", str(out)]) == 2
    assert capsys.readouterr().err.strip() == (
        f"pooljudge: error: {groups}:2: expected 'topic group', found only '3'")
    assert not out.exists()


def test_eval_refuses_topic_groups_with_a_provenance_instead_of_ignoring_it(tmp_path, capsys):
    qrels, run = _small_collection(tmp_path)
    groups = _write(tmp_path, "1 odd\n2 even\n")
    provenance = tmp_path / "qrels.provenance.tsv"
    provenance.write_text("topic\tdoc\tsource\n1\td1\tautomatic\n")
    assert main(["eval", str(qrels), str(run), "--topic-groups", str(groups),
                 "--provenance", str(provenance)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("pooljudge: error: --provenance and --topic-groups cannot be combined")
    assert "\n" not in err


@pytest.mark.parametrize("command", ["eval", "compare", "compare-stages", "report"])
def test_a_group_named_all_is_refused_by_every_command(tmp_path, capsys, command):
    """``all`` is every table's row of all topics: a group of that name would overwrite it."""
    from pooljudge.cli import main

    (tmp_path / "q").write_text("1 0 a 1\n2 0 b 1\n")
    for name in ("r1", "r2"):
        (tmp_path / name).write_text("1 Q0 a 1 1 r\n2 Q0 b 1 1 r\n")
    (tmp_path / "groups").write_text("1 news\n2 all\n")
    (tmp_path / "m.tsv").write_text(f"run\tstage\n{tmp_path / 'r1'}\tretrieve\n"
                                    f"{tmp_path / 'r2'}\trerank\n")
    argv = {"compare-stages": ["compare-stages", str(tmp_path / "q"), "--manifest",
                               str(tmp_path / "m.tsv")],
            "report": ["report", str(tmp_path / "q"), str(tmp_path / "r1"), str(tmp_path / "r2"),
                       "-o", str(tmp_path / "o.html")]}.get(
        command, [command, str(tmp_path / "q"), str(tmp_path / "r1"), str(tmp_path / "r2")])
    assert main([*argv, "--topic-groups", str(tmp_path / "groups")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "groups:2: group name 'all' is reserved" in err, err
    assert not (tmp_path / "o.html").exists()
