"""``pooljudge trec_eval``: trec_eval 10.0's own golden files byte for byte (its ``make
quicktest``), its full-precision outputs on real and generated runs, and each option by hand.

The references are trec_eval 10.0's: ``suite/`` holds its golden files (printed as it prints
them), ``robust03/`` and ``edge/`` its ``-q -c -m all_trec`` outputs at full precision, against
which the printed ``%6.4f`` values are compared (to the half unit of the fourth decimal that
rounding allows). Small cases are computed by hand in the comments.
"""

from __future__ import annotations

import gzip
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from pooljudge.cli import main

CONSOLE = Path(sys.executable).with_name("pooljudge")
ROUNDING = 0.5e-4 + 1e-9  # a %6.4f value lies within half a unit of its fourth decimal
NOT_ORACLES = {"rbp"}  # trec_eval 10's rbp reads uninitialised gain bounds
COUNTS = {"num_q", "num_ret", "num_rel", "num_rel_ret", "num_nonrel_judged_ret"}
TEXTS = {"runid", "relstring"}
EDGE_RUNS = ("random", "short")


def pooljudge(*args: object, stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    """``pooljudge trec_eval ARGS`` through the installed console script."""
    assert CONSOLE.exists(), f"no console script at {CONSOLE}"
    return subprocess.run([str(CONSOLE), "trec_eval", *map(str, args)], input=stdin,
                          capture_output=True, check=False, timeout=300)


def lines_of(text: str) -> list[tuple[str, str, str]]:
    """(measure, topic, value) per output line; the measure without its padding."""
    rows = []
    for line in text.splitlines():
        name, topic, value = line.split("\t")
        rows.append((name.rstrip(), topic, value))
    return rows


def read_reference(path: Path) -> list[tuple[str, str, str]]:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt") as handle:
        return lines_of(handle.read())


def family(name: str) -> str:
    """The trec_eval measure a printed name belongs to (``P_5`` -> ``P``)."""
    for prefix in ("iprec_at_recall", "Rprec_mult", "relative_P", "ndcg_cut", "map_cut",
                   "relstring", "success", "recall", "unj", "P"):
        if name == prefix or name.startswith(prefix + "_"):
            return prefix
    return name


def assert_same_values(got: list[tuple[str, str, str]], want: list[tuple[str, str, str]],
                       *, exact_reference: bool = False) -> None:
    """The same lines in the same order; values equal, or within rounding of a full-precision
    reference value (``-nan`` as trec_eval prints its 0/0)."""
    assert [(m, t) for m, t, _ in got] == [(m, t) for m, t, _ in want]
    wrong = []
    for (measure, topic, mine), (_, _, theirs) in zip(got, want, strict=True):
        kind = family(measure)
        if kind in NOT_ORACLES:
            continue
        if kind in TEXTS or exact_reference:
            ok = mine == theirs
        elif kind in COUNTS:
            ok = int(mine) == float(theirs)
        elif theirs in ("-nan", "nan"):
            ok = mine == "  -nan"
        else:
            ok = mine != "  -nan" and abs(float(mine) - float(theirs)) <= ROUNDING
        if not ok:
            wrong.append((measure, topic, mine, theirs))
    assert wrong == [], wrong[:10]


# --- trec_eval's make quicktest ---------------------------------------------------------------


def quicktest_commands(suite: Path) -> list[tuple[str, list[str], Path]]:
    """(command line, pooljudge trec_eval arguments, golden file) for each line of
    quicktest.txt, with the suite folder in place of test/."""
    commands = []
    for line in (suite / "quicktest.txt").read_text().splitlines():
        line = line.strip()
        if not line.startswith("./trec_eval "):
            continue
        command, _, check = line.partition("|")
        assert shlex.split(check)[:2] == ["diff", "-"], line
        args = [str(suite / arg.removeprefix("test/")) if arg.startswith("test/") else arg
                for arg in shlex.split(command)[1:]]
        golden = suite / shlex.split(check)[-1].removeprefix("test/")
        commands.append((line, args, golden))
    return commands


def test_every_quicktest_command_prints_trec_eval_10s_golden_file(shared_data):
    suite = shared_data / "trec_eval10" / "suite"
    commands = quicktest_commands(suite)
    assert len(commands) == 9
    failed = []
    for line, args, golden in commands:
        done = pooljudge(*args)
        if done.returncode != 0 or done.stderr or done.stdout != golden.read_bytes():
            failed.append((line, done.returncode, done.stderr.decode()[-300:]))
    assert failed == []


# --- trec_eval 10's full-precision outputs ----------------------------------------------------


@pytest.mark.parametrize("run", ["input.InexpC2", "input.NLPR03vb10"])
def test_all_trec_values_match_trec_eval_10_on_robust03(shared_data, run):
    reference = shared_data / "trec_eval10" / "robust03" / f"{run}.all_trec.gz"
    done = pooljudge("-q", "-c", "-m", "all_trec", shared_data / "robust03" / "qrels.txt",
                     shared_data / "robust03" / "runs" / f"{run}.gz")
    assert done.returncode == 0, done.stderr
    assert_same_values(lines_of(done.stdout.decode()), read_reference(reference))


@pytest.mark.parametrize("level", ["1", "2", "3"])
def test_num_rel_summary_under_c_ignores_l_as_trec_eval_10_on_robust03(shared_data, level):
    """C1 of the outside check against trec_eval 10 built from source: under ``-c -l 2``,
    robust03's ``num_rel`` summary is 6,074 (every label > 0 over the qrels), not 407 (labels
    >= 2); ``te_calc_avg_num_rel`` recounts under ``-c`` whatever ``-l`` says."""
    done = pooljudge("-c", "-l", level, "-m", "num_rel", shared_data / "robust03" / "qrels.txt",
                     shared_data / "robust03" / "runs" / "input.InexpC2.gz")
    assert done.returncode == 0, done.stderr
    assert done.stdout.decode() == "num_rel               \tall\t6074\n"


@pytest.mark.parametrize("judged_only", [False, True], ids=["c", "cJ"])
@pytest.mark.parametrize("run", EDGE_RUNS)
def test_all_trec_values_match_trec_eval_10_on_edge_cases(shared_data, run, judged_only):
    """Skipped and run-only topics, graded and negative labels; with -J, empty rankings whose
    interpolated precision trec_eval prints as -nan (0/0), per topic and in the summary."""
    edge = shared_data / "trec_eval10" / "edge"
    suffix = ".J" if judged_only else ""
    done = pooljudge("-q", "-c", *(["-J"] if judged_only else []), "-m", "all_trec",
                     edge / "qrels.txt", edge / f"{run}.run")
    assert done.returncode == 0, done.stderr
    want = read_reference(edge / f"{run}{suffix}.all_trec")
    assert_same_values(lines_of(done.stdout.decode()), want)
    if judged_only:
        assert any(value == "-nan" for _, _, value in want)


# --- each option on a case computed by hand ---------------------------------------------------

QRELS = """\
1 0 d1 2
1 0 d2 0
1 0 d3 1
1 0 d4 -1
2 0 e1 1
3 0 f1 0
4 0 g1 1
"""
RUN = """\
1 Q0 d2 1 3.0 tagA
1 Q0 d1 2 2.0 tagA
1 Q0 dx 3 2.0 tagA
1 Q0 d3 4 1.0 tagA
1 Q0 d4 5 0.5 tagA
3 Q0 f1 1 1.0 tagA
4 Q0 zz 1 1.0 tagA
9 Q0 z 1 1.0 tagB
"""
TOPIC_2 = "2 Q0 e9 1 1.0 tagA\n"
# Topic 1 ranks d2 (0), then the 2.0 tie by doc id descending: dx (no judgment), d1 (2); then
# d3 (1), d4 (-1): relstring '0-21.'; R = 2 (d1, d3) at ranks 3 and 4: AP = (1/3 + 2/4) / 2.
# Topic 2 is not in RUN (``case`` adds TOPIC_2, e9 without a judgment; ``skipping`` does not);
# topic 3 ranks f1 (0), R = 0; topic 4 ranks zz (no judgment), R = 1; topic 9 is only in the
# run. The run id is the tag of the last line: tagB.


@pytest.fixture
def case(tmp_path):
    """Qrels and a run that has every qrels topic."""
    qrels, run = tmp_path / "qrels.txt", tmp_path / "run.txt"
    qrels.write_text(QRELS)
    run.write_text(TOPIC_2 + RUN)
    return qrels, run


@pytest.fixture
def skipping(tmp_path):
    """Qrels and a run that skips qrels topic 2."""
    qrels, run = tmp_path / "qrels.txt", tmp_path / "skipping.txt"
    qrels.write_text(QRELS)
    run.write_text(RUN)
    return qrels, run


def trec_eval(capsys, *args: object) -> dict[tuple[str, str], str]:
    """Run in process; (measure, topic) -> printed value, checking the line layout."""
    assert main(["trec_eval", *map(str, args)]) == 0
    out = capsys.readouterr().out
    for line in out.splitlines():
        name = line.split("\t")[0]
        assert len(name) >= 22 and (len(name) == 22 or not name.endswith(" ")), line
    return {(m, t): v for m, t, v in lines_of(out)}


def test_default_is_official_averaged_over_the_qrels_topics(case, capsys):
    out = trec_eval(capsys, *case)
    assert out[("runid", "all")] == "tagB"
    assert out[("num_q", "all")] == "4"  # topics 1 to 4; 9 is not in the qrels
    assert out[("num_ret", "all")] == "8"
    assert out[("num_rel", "all")] == "4"
    assert out[("num_rel_ret", "all")] == "2"
    assert out[("map", "all")] == f"{(1 / 3 + 2 / 4) / 2 / 4:6.4f}"
    assert out[("P_5", "all")] == f"{2 / 5 / 4:6.4f}"
    assert not [key for key in out if key[1] != "all"]


def test_c_averages_over_every_qrels_topic(skipping, capsys):
    out = trec_eval(capsys, "-c", *skipping)
    assert out[("num_q", "all")] == "4"
    assert out[("num_rel", "all")] == "4"
    assert out[("map", "all")] == f"{(1 / 3 + 2 / 4) / 2 / 4:6.4f}"


def test_q_prints_topics_in_byte_order_then_the_summary(case, capsys):
    assert main(["trec_eval", "-q", "-m", "map", "-m", "num_ret", *map(str, case)]) == 0
    rows = [(m, t) for m, t, _ in lines_of(capsys.readouterr().out)]
    assert rows == [("num_ret", "1"), ("map", "1"), ("num_ret", "2"), ("map", "2"),
                    ("num_ret", "3"), ("map", "3"), ("num_ret", "4"), ("map", "4"),
                    ("num_ret", "all"), ("map", "all")]


@pytest.mark.parametrize(("options", "strings"), [
    ([], {"1": "'0-21.'", "2": "'-'", "3": "'0'", "4": "'-'"}),
    (["-J"], {"1": "'021'", "2": "''", "3": "'0'", "4": "''"}),
    (["-M2"], {"1": "'0-'", "2": "'-'", "3": "'0'", "4": "'-'"}),
])
def test_relstring_shows_the_ranked_labels(case, capsys, options, strings):
    out = trec_eval(capsys, "-q", "-m", "relstring", *options, *case)
    assert out == {("relstring", topic): text for topic, text in strings.items()}


def test_relstring_length_is_a_parameter_and_names_the_measure(case, capsys):
    out = trec_eval(capsys, "-q", "-mrelstring.2", *case)
    assert out[("relstring_2", "1")] == "'0-'"


def test_l_sets_the_relevance_level(case, capsys):
    out = trec_eval(capsys, "-q", "-l2", "-m", "map", "-m", "num_rel", *case)
    assert out[("num_rel", "1")] == "1"  # only d1 (label 2)
    assert out[("map", "1")] == f"{1 / 3:6.4f}"


def test_n_drops_the_summary(case, capsys):
    assert trec_eval(capsys, "-n", *case) == {}
    assert {t for _, t in trec_eval(capsys, "-n", "-q", "-m", "map", *case)} == {"1", "2", "3",
                                                                                 "4"}


def test_m_limits_each_ranking_to_its_top_documents(case, capsys):
    out = trec_eval(capsys, "-q", "-M2", "-m", "num_ret", "-m", "map", *case)
    assert out[("num_ret", "1")] == "2"
    assert out[("map", "1")] == "0.0000"  # d2 and dx: nothing relevant


def test_empty_rankings_print_trec_eval_nan(case, capsys):
    """-J empties topics 2 and 4 (their only document has no judgment). trec_eval's interpolated
    precision there starts from 0/0: NaN at recall 0 (lround(0 * 1) = 0) and so in 11pt_avg,
    0 at recall 0.5 (lround(0.5 * 1) = 1 relevant document never reached); the summary of a
    NaN is NaN. Topic 1 (judged ranking d2, d1, d3): the first relevant document at rank 2
    (1/2), the second at rank 3 (2/3)."""
    out = trec_eval(capsys, "-q", "-J", "-m", "iprec_at_recall.0,.5", "-m", "11pt_avg", *case)
    assert out[("iprec_at_recall_0.00", "4")] == "  -nan"
    assert out[("iprec_at_recall_0.50", "4")] == "0.0000"
    assert out[("11pt_avg", "4")] == "  -nan"
    assert out[("iprec_at_recall_0.00", "all")] == "  -nan"
    assert out[("11pt_avg", "all")] == "  -nan"
    assert out[("iprec_at_recall_0.50", "1")] == f"{2 / 3:6.4f}"
    assert out[("iprec_at_recall_0.50", "all")] == f"{2 / 3 / 4:6.4f}"  # topic 2 empty: 0


def test_m_zero_empties_every_ranking(case, capsys):
    out = trec_eval(capsys, "-q", "-M0", "-m", "num_ret", "-m", "iprec_at_recall.0", *case)
    assert out[("num_ret", "all")] == "0"
    assert out[("iprec_at_recall_0.00", "1")] == "  -nan"


def test_big_n_is_the_collection_size_of_utility(case, capsys):
    """utility = a*relret + b*(ret - relret) + c*(R - relret) + d*(N + relret - ret - R); topic 1
    with (1, -1, 0, 1) and N = 100: 2 - 3 + 0 + 95 = 94."""
    out = trec_eval(capsys, "-q", "-N", "100", "-m", "utility.1,-1,0,1", *case)
    assert out[("utility_1,-1,0,1", "1")] == "94.0000"


@pytest.mark.parametrize(("glued", "separate"), [
    (["-M2"], ["-M", "2"]),
    (["-l2"], ["-l", "2"]),
    (["-mP.2"], ["-m", "P.2"]),
    (["-qc"], ["-q", "-c"]),
    (["-qcmP.2"], ["-q", "-c", "-m", "P.2"]),
    (["-N10", "-mutility"], ["-N", "10", "-m", "utility"]),
    (["--measure=P.2"], ["-m", "P.2"]),
    (["--Max_retrieved_per_topic=2"], ["-M", "2"]),
    (["--query_eval_wanted", "--complete_rel_info_wanted", "--Judged_docs_only"],
     ["-q", "-c", "-J"]),
    (["--level_for_rel", "2", "--nosummary", "-q"], ["-l", "2", "-n", "-q"]),
])
def test_glued_and_long_forms_equal_the_separate_short_ones(case, capsys, glued, separate):
    assert trec_eval(capsys, *glued, *case) == trec_eval(capsys, *separate, *case)


def test_options_may_follow_the_files(case, capsys):
    assert trec_eval(capsys, *case, "-q", "-m", "P.2") == trec_eval(capsys, "-q", "-mP.2", *case)


def test_the_run_may_be_gzip_or_standard_input(case, tmp_path):
    qrels, run = case
    packed = tmp_path / "run.gz"
    packed.write_bytes(gzip.compress(run.read_bytes()))
    plain = pooljudge("-q", "-c", qrels, run)
    assert plain.returncode == 0 and plain.stdout
    for other in (pooljudge("-q", "-c", qrels, packed),
                  pooljudge("-q", "-c", qrels, "-", stdin=run.read_bytes()),
                  pooljudge("-q", "-c", qrels, "-", stdin=packed.read_bytes())):
        assert (other.returncode, other.stdout, other.stderr) == (0, plain.stdout, b"")


def test_help_prints_a_help_text(capsys):
    for flag in ("-h", "--help"):
        assert main(["trec_eval", flag]) == 0
        assert "trec_eval" in capsys.readouterr().out


# --- errors: one line, exit 2 -------------------------------------------------------------------


@pytest.mark.parametrize(("argv", "fragment"), [
    (["-x"], "unrecognized arguments: -x"),
    (["-m", "no_such"], "unknown trec_eval measure 'no_such'"),
    (["-m", "P_10"], "did you mean P.10?"),
    (["-m", "P.0,5"], "positive"),
    (["-m", "utility.1,2"], "4 coefficients"),
    (["-m", "all_prefs"], "not supported"),
    (["-M", "-1"], "-M/--Max_retrieved_per_topic: must be at least 0"),
    (["-l", "0"], "-l/--level_for_rel: must be at least 1"),
    (["-l", "two"], "expected an integer"),
    (["-N", "x"], "expected an integer"),
    (["-R", "prefs"], "only the qrels rel_info format"),
    (["-Z", "zscores.txt"], "-Z: z-scores are not supported"),
    (["-o"], "-o: the old output format is not supported"),
])
def test_bad_options_are_one_line_usage_errors(case, capsys, argv, fragment):
    assert main(["trec_eval", *argv, *map(str, case)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith("pooljudge: error: ") and captured.err.count("\n") == 1
    assert fragment in captured.err


def test_bad_files_name_path_and_line(case, capsys, tmp_path):
    qrels, _ = case
    bad = tmp_path / "bad.run"
    bad.write_text("1 Q0 d1 1 1.0 t\n1 Q0 d2 1 high t\n")
    for argv, fragment in (([qrels, tmp_path / "missing"], "missing: no such file"),
                           ([qrels, bad], f"{bad}:2: score is not a number"),
                           ([bad, bad], f"{bad}:1: expected 4")):
        assert main(["trec_eval", *map(str, argv)]) == 2
        err = capsys.readouterr().err
        assert err.startswith("pooljudge: error: ") and err.count("\n") == 1, err
        assert fragment in err


def test_standard_input_errors_name_stdin(case):
    done = pooljudge(case[0], "-", stdin=b"1 Q0 d1 1 1.0 t\n1 Q0 d1 2 0.5 t\n")
    assert done.returncode == 2
    assert done.stderr.decode() == ("pooljudge: error: <stdin>:2: document listed twice for "
                                    "topic 1: d1\n")


def test_a_run_without_any_qrels_topic_stops_at_the_first_unless_c(case, capsys, tmp_path):
    other = tmp_path / "other.run"
    other.write_text("9 Q0 z 1 1.0 t\n")
    assert main(["trec_eval", "-q", str(case[0]), str(other)]) == 4
    assert capsys.readouterr() == ("", "trec_eval: result qid '1' not found in qrels\n")
    out = trec_eval(capsys, "-c", "-m", "num_q", case[0], other)
    assert out == {("num_q", "all"): "4"}


# --- trec_eval 10.0's flow for a topic the run lacks (issue #30) -------------------------------


@pytest.mark.parametrize(("options", "stdout"), [
    ([], ""),
    (["-q"], f"{'map':<22}\t1\t{(1 / 3 + 2 / 4) / 2:6.4f}\n"),
    (["-q", "-n"], f"{'map':<22}\t1\t{(1 / 3 + 2 / 4) / 2:6.4f}\n"),
])
def test_without_c_a_missing_qrels_topic_stops_trec_eval_with_status_4(skipping, options,
                                                                        stdout):
    """trec_eval 10.0 loops over the qrels topics in byte order: topic 1 is printed (-q), then
    topic 2, which the run lacks, ends it: no summary, its message, exit status 4."""
    done = pooljudge(*options, "-m", "map", *skipping)
    assert (done.returncode, done.stdout.decode(), done.stderr.decode()) == (
        4, stdout, "trec_eval: result qid '2' not found in qrels\n")


@pytest.mark.parametrize("run", EDGE_RUNS)
def test_without_c_trec_eval_10s_topics_before_the_first_missing_one(shared_data, run):
    """On the generated edge collection: the per-topic lines are trec_eval 10's (-c) lines of
    the qrels topics before the first one (byte order) the run lacks, then the stop."""
    edge = shared_data / "trec_eval10" / "edge"
    qrels_topics = {line.split()[0] for line in (edge / "qrels.txt").read_text().splitlines()
                    if line.strip() and not line.startswith("#")}
    run_topics = {line.split()[0] for line in (edge / f"{run}.run").read_text().splitlines()}
    first = min(qrels_topics - run_topics, key=lambda t: t.encode())
    before = {t for t in qrels_topics if t.encode() < first.encode()}
    want = [row for row in read_reference(edge / f"{run}.all_trec") if row[1] in before]
    assert want, "the case needs topics before the missing one"
    done = pooljudge("-q", "-m", "all_trec", edge / "qrels.txt", edge / f"{run}.run")
    assert done.returncode == 4
    assert done.stderr.decode() == f"trec_eval: result qid '{first}' not found in qrels\n"
    assert_same_values(lines_of(done.stdout.decode()), want)


def test_c_num_rel_summary_counts_positive_labels_whatever_l(skipping, capsys):
    """te_calc_avg_num_rel: with -c the summary is the qrels lines with a label > 0 (d1, d3, e1,
    g1), not the sum of the per-topic values at -l 2 (d1 only)."""
    out = trec_eval(capsys, "-q", "-c", "-l2", "-m", "num_rel", *skipping)
    assert [out[("num_rel", t)] for t in "1234"] == ["1", "0", "0", "0"]
    assert out[("num_rel", "all")] == "4"


def test_without_c_num_rel_summary_is_the_sum_at_l(case, capsys):
    assert trec_eval(capsys, "-l2", "-m", "num_rel", *case) == {("num_rel", "all"): "1"}


def test_c_num_rel_summary_on_robust03(shared_data):
    """The same rule on robust03 at -l 2: the summary counts every label > 0 in the file."""
    qrels = shared_data / "robust03" / "qrels.txt"
    positive = sum(int(line.split()[3]) > 0 for line in qrels.read_text().splitlines()
                   if line.strip())
    done = pooljudge("-c", "-l2", "-m", "num_rel", qrels,
                     shared_data / "robust03" / "runs" / "input.InexpC2.gz")
    assert done.returncode == 0, done.stderr
    assert done.stdout.decode() == f"{'num_rel':<22}\tall\t{positive}\n"


@pytest.mark.parametrize(("options", "name", "kept", "reset"), [
    # The sentinel is retrieved (ret 1) and not relevant (relret 0), R = 1 for topic 2:
    # utility = b + c*R + d*(N - R - 1).
    (["-m", "utility.2,-1,0,0"], "utility_2,-1,0,0", "-1.0000", None),
    (["-m", "utility"], None, None, "utility"),
    (["-N", "5000", "-m", "utility.1,-2,3,-4"], "utility_1,-2,3,-4",
     f"{-2 + 3 * 1 - 4 * (5000 - 1 - 1):.4f}", None),
    (["-m", "relstring.7"], "relstring_7", "'-'", None),
    (["-m", "relstring"], None, None, "relstring"),
    # rbp_resid: 0 of rbp, (1 - p) for the unjudged sentinel at rank 1, p^1 for the tail.
    (["-m", "rbp_resid.p=0.95"], "rbp_resid_p=0.95", "1.0000", None),
    (["-m", "rbp_resid"], None, None, "rbp_resid"),
])
def test_c_skipped_topic_keeps_the_sentinels_parameterised_values(skipping, capsys, options,
                                                                    name, kept, reset):
    """trec_eval 10 ranks ceci_nest_pas_un_docno for topic 2 and resets only the names
    num_ret, utility, relstring, rbp_resid and unj*: utility_..., relstring_N and rbp_resid_p=
    keep the sentinel's values."""
    out = trec_eval(capsys, "-q", "-c", "-m", "num_ret", "-m", "unj", *options, *skipping)
    assert out[("num_ret", "2")] == "0" and out[("unj_5", "2")] == "0.0000"
    if name is not None:
        assert out[(name, "2")] == kept
    if reset is not None:
        assert out[(reset, "2")] == ("''" if reset == "relstring" else "0.0000")


def test_c_parameterised_utility_summary_averages_the_sentinel_value(skipping, capsys):
    """(2, -1, 0, 0): topic 1 2*2 - 3 = 1, topic 2 (sentinel) -1, topics 3 and 4 -1 each."""
    out = trec_eval(capsys, "-c", "-m", "utility.2,-1,0,0", *skipping)
    assert out == {("utility_2,-1,0,0", "all"): f"{(1 - 1 - 1 - 1) / 4:6.4f}"}


def test_c_qrels_judging_the_sentinel_count_it_as_retrieved(skipping, capsys):
    """Qrels that judge ceci_nest_pas_un_docno relevant for topic 2 give it P_5 = 1/5 (as
    trec_eval does), with num_ret still reset to 0."""
    qrels, run = skipping
    qrels.write_text(QRELS + "2 0 ceci_nest_pas_un_docno 1\n")
    out = trec_eval(capsys, "-q", "-c", "-m", "P.5", "-m", "num_ret", "-m", "num_rel_ret",
                    qrels, run)
    assert (out[("P_5", "2")], out[("num_ret", "2")], out[("num_rel_ret", "2")]) == (
        "0.2000", "0", "1")


@pytest.mark.parametrize("blank", [b"\n", b"  \t\n", b"\r\n"])
def test_a_blank_qrels_line_is_refused_as_trec_eval_refuses_it(skipping, blank):
    qrels, run = skipping
    lines = QRELS.encode().splitlines(keepends=True)
    qrels.write_bytes(b"".join(lines[:2]) + blank + b"".join(lines[2:]))
    done = pooljudge("-c", qrels, run)
    assert (done.returncode, done.stdout) == (2, b"")
    assert done.stderr.decode() == (f"pooljudge: error: {qrels}:3: blank line (trec_eval "
                                    "refuses it; remove it)\n")


def test_a_blank_last_qrels_line_is_refused(skipping):
    qrels, run = skipping
    for tail, line in ((b"\n", 8), (b"   ", 8)):
        qrels.write_bytes(QRELS.encode() + tail)
        done = pooljudge("-c", qrels, run)
        assert done.returncode == 2 and f"{qrels}:{line}: blank line" in done.stderr.decode()


OPTION_MATRIX = [[], ["-q"], ["-q", "-c"], ["-c", "-l2"], ["-q", "-c", "-l2", "-m", "num_rel"],
                 ["-q", "-c", "-J"], ["-q", "-c", "-M1"], ["-q", "-c", "-n"],
                 ["-q", "-c", "-m", "utility.2,-1,0,0", "-m", "relstring.3",
                  "-m", "rbp_resid.p=0.5"]]


@pytest.mark.parametrize("options", OPTION_MATRIX, ids=" ".join)
def test_option_matrix_reads_plain_gzip_and_standard_input_alike(skipping, tmp_path, options):
    """Each option set on the run that skips topic 2, from a file, a gzip file and standard
    input (plain and gzip): the same status, output and messages."""
    qrels, run = skipping
    packed = tmp_path / "run.gz"
    packed.write_bytes(gzip.compress(run.read_bytes()))
    plain = pooljudge(*options, qrels, run)
    assert plain.returncode in (0, 4) and (plain.returncode == 4) == ("-c" not in options)
    for other in (pooljudge(*options, qrels, packed),
                  pooljudge(*options, qrels, "-", stdin=run.read_bytes()),
                  pooljudge(*options, qrels, "-", stdin=packed.read_bytes())):
        assert (other.returncode, other.stdout, other.stderr) == (
            plain.returncode, plain.stdout, plain.stderr)
