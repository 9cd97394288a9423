"""``pooljudge compare-stages``: the summary table, TSV/JSON against the API, per-query ids as
literal text, per-group regressions, and bad manifests (exit 2, one line, nothing written)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from pooljudge.metrics.stages import compare_stages

from pooljudge.cli import main

ODD = "<i>n&amp;1</i>"  # untrusted ids stay literal text


def _folder(tmp_path):
    """qrels, three stages of pipeline A and two of B in runs/, and a manifest beside them."""
    (tmp_path / "qrels").write_text(
        f"q1 0 r1 1\nq1 0 r2 2\nq1 0 r3 1\nq1 0 {ODD} 1\nq1 0 n1 0\n"
        "q2 0 s1 1\nq2 0 s2 1\nq3 0 t1 1\n")
    runs = {
        "ret": "q1 Q0 n1 1 9 x\nq1 Q0 r1 2 8 x\nq1 Q0 n2 3 7 x\nq1 Q0 r2 4 7 x\nq1 Q0 r3 5 5 x\n"
               "q2 Q0 x1 1 5 x\nq2 Q0 s1 2 5 x\nq2 Q0 x2 3 3 x\nq2 Q0 s2 4 2 x\n"
               "q3 Q0 u1 1 3 x\nq3 Q0 t1 2 2 x\n",
        "rerank": f"q1 Q0 r2 1 9 x\nq1 Q0 {ODD} 2 8 x\nq1 Q0 n1 3 7 x\nq1 Q0 r1 4 6 x\n"
                  "q3 Q0 t1 1 5 x\n",
        "context": f"q1 Q0 r2 1 2 x\nq1 Q0 {ODD} 2 1 x\nq2 Q0 s2 1 1 x\nq3 Q0 t1 1 1 x\n",
        "rerank-b": "q1 Q0 r1 1 9 x\nq1 Q0 r3 2 8 x\nq2 Q0 s1 1 3 x\nq2 Q0 s2 2 2 x\n"
                    "q3 Q0 t1 1 1 x\n",
    }
    (tmp_path / "runs").mkdir()
    for name, text in runs.items():
        (tmp_path / "runs" / name).write_text(text)
    (tmp_path / "manifest.tsv").write_text(
        "run\tstage\tpipeline\treranker\n"
        "runs/ret\tretrieve\tA\t\nruns/rerank\trerank\tA\tbge\nruns/context\tcontext\tA\tbge\n"
        "runs/ret\tretrieve\tB\t\nruns/rerank-b\trerank\tB\tcohere\n")
    return tmp_path


def _tsv(text: str) -> list[dict[str, str]]:
    lines = text.splitlines()
    header = lines[0].split("\t")
    return [dict(zip(header, line.split("\t"), strict=True)) for line in lines[1:]]


def _argv(folder, *extra):
    return ["compare-stages", str(folder / "qrels"), "--manifest", str(folder / "manifest.tsv"),
            "-k", "3", "--resamples", "200", *extra]


def test_table_names_every_step_with_numret_and_fewer_than_k(tmp_path, capsys):
    folder = _folder(tmp_path)
    assert main(_argv(folder)) == 0
    captured = capsys.readouterr()
    lines = captured.out.splitlines()
    for column in ("queries", "before", "after", "delta", "t_p", "perm_p", "rel_in", "rel_out",
                   "numret_before", "numret_after", "fewer_than_k_before",
                   "fewer_than_k_after"):
        assert column in lines[0].split()
    assert [line.split()[:3] for line in lines[1:]] == [
        ["A", "retrieve->rerank", "P@3"], ["A", "retrieve->rerank", "nDCG@3"],
        ["A", "rerank->context", "P@3"], ["A", "rerank->context", "nDCG@3"],
        ["B", "retrieve->rerank", "P@3"], ["B", "retrieve->rerank", "nDCG@3"]]
    assert "run runs/rerank: nothing returned for 1 qrels topic(s), e.g. q2" in captured.err


def test_tsv_and_json_carry_the_api_numbers(tmp_path, capsys):
    folder = _folder(tmp_path)
    assert main([*_argv(folder), "-m", "AP", "-m", "P@3", "--format", "tsv"]) == 0
    rows = _tsv(capsys.readouterr().out)
    api = compare_stages(folder / "qrels", folder / "manifest.tsv", k=3, measures=["AP", "P@3"],
                         n_resamples=200).summary
    assert len(rows) == len(api) == 6
    for row, want in zip(rows, api.to_dict("records"), strict=True):
        assert (row["pipeline"], row["step"], row["measure"]) == (
            want["pipeline"], want["step"], want["measure"])
        for column in ("before", "after", "delta", "t_p", "perm_p"):
            assert row[column] == ("nan" if np.isnan(want[column]) else repr(want[column]))
        assert int(row["rel_in"]) == want["rel_in"]
    first = rows[1]  # A retrieve->rerank, P@3
    assert (first["rel_in"], first["rel_out"], first["rel_kept"]) == ("1", "2", "2")
    assert (first["numret_before"], first["numret_after"]) == ("11", "5")
    assert (first["fewer_than_k_before"], first["fewer_than_k_after"]) == ("1", "2")
    assert main([*_argv(folder), "--format", "json"]) == 0
    records = json.loads(capsys.readouterr().out)
    assert records[0]["before_run"] == "runs/ret" and records[0]["after_run"] == "runs/rerank"


def test_per_query_lists_moved_ids_as_literal_text(tmp_path, capsys):
    folder = _folder(tmp_path)
    assert main([*_argv(folder), "--per-query", "--format", "tsv"]) == 0
    rows = {(r["pipeline"], r["step"], r["topic"]): r for r in _tsv(capsys.readouterr().out)}
    q1 = rows[("A", "retrieve->rerank", "q1")]
    assert (q1["moved_in"], q1["moved_out"]) == (ODD, "r1")  # r2 won its tie with n2: kept
    assert (q1["rel_in"], q1["rel_out"], q1["rel_kept"]) == ("1", "1", "1")
    assert (q1["P@3 before"], q1["P@3 after"]) == (repr(2 / 3), repr(2 / 3))
    q2 = rows[("A", "retrieve->rerank", "q2")]
    assert (q2["moved_in"], q2["moved_out"], q2["numret_after"]) == ("", "s1", "0")
    assert q2["fewer_than_k_after"] == "True"
    b = rows[("B", "retrieve->rerank", "q2")]
    assert b["moved_in"] == "s2" and b["moved_out"] == ""
    assert main([*_argv(folder), "--per-query"]) == 0
    assert ODD in capsys.readouterr().out
    assert main([*_argv(folder), "--per-query", "--format", "json"]) == 0
    records = json.loads(capsys.readouterr().out)
    context = next(r for r in records if r["step"] == "rerank->context" and r["topic"] == "q2")
    assert context["moved_in"] == ["s2"] and context["moved_out"] == []


def test_rel_threshold_and_output_file(tmp_path, capsys):
    folder = _folder(tmp_path)
    out = folder / "summary.tsv"
    assert main([*_argv(folder), "--rel", "2", "--format", "tsv", "-o", str(out)]) == 0
    assert capsys.readouterr().out == ""
    rows = _tsv(out.read_text())
    assert {r["measure"] for r in rows} == {"P(rel=2)@3", "nDCG@3"}
    first = rows[0]  # only r2 (label 2) counts: kept by the reranker
    assert (first["rel_in"], first["rel_out"], first["rel_kept"]) == ("0", "0", "1")


def test_topic_groups_flag_a_stage_that_lost_in_one_group(tmp_path, capsys):
    rng = np.random.default_rng(5)
    topics = [(f"t{i:02d}", "faq" if i < 12 else "docs") for i in range(24)]
    qrels, ret, rerank = [], [], []
    for topic, group in topics:
        for d in range(10):
            qrels.append(f"{topic} 0 d{d} {int(d < 3)}\n")
            score = rng.uniform()
            ret.append(f"{topic} Q0 d{d} 0 {score:.6f} x\n")
            shift = (0.6 if group == "docs" else -0.6) + rng.normal(0, 0.2) if d < 3 else 0.0
            rerank.append(f"{topic} Q0 d{d} 0 {score + shift:.6f} x\n")
    (tmp_path / "qrels").write_text("".join(qrels))
    (tmp_path / "ret").write_text("".join(ret))
    (tmp_path / "rr").write_text("".join(rerank))
    (tmp_path / "m.tsv").write_text("run\tstage\nret\tretrieve\nrr\trerank\n")
    (tmp_path / "g").write_text("".join(f"{t} {g}\n" for t, g in topics) + "t00 all-faq-docs\n")
    assert main(["compare-stages", str(tmp_path / "qrels"), "--manifest", str(tmp_path / "m.tsv"),
                 "-m", "AP", "--topic-groups", str(tmp_path / "g"), "--resamples", "500",
                 "--format", "tsv"]) == 0
    captured = capsys.readouterr()
    rows = {r["group"]: r for r in _tsv(captured.out)}
    assert list(rows) == ["all", "faq", "docs", "all-faq-docs"]
    assert {g: r["regression"] for g, r in rows.items()} == {
        "all": "False", "faq": "True", "docs": "False", "all-faq-docs": "False"}
    assert float(rows["faq"]["delta"]) < 0 < float(rows["docs"]["delta"])
    assert "warning: regression in group 'faq' (pipeline (all runs), step retrieve->rerank, " \
           "measure AP)" in captured.err


BAD_MANIFESTS = {
    "unknown-stage": ("run\tstage\nruns/ret\trank\n", 2, "unknown stage 'rank'"),
    "missing-run": ("run\tstage\nruns/gone\tretrieve\n", 2, "run 'runs/gone' is not a file"),
    "duplicate": ("run\tstage\tpipeline\nruns/ret\tretrieve\tA\nruns/rerank\tretrieve\tA\n", 3,
                  "pipeline 'A' has two retrieve runs (first on line 2)"),
    "no-stage-column": ("run\tpipeline\nruns/ret\tA\n", 1, "the header has no stage column"),
    "single-stages": ("run\tstage\tpipeline\nruns/ret\tretrieve\tA\nruns/rerank\trerank\tB\n",
                      None, "no pipeline has two stages: nothing to compare"),
}


@pytest.mark.parametrize("case", list(BAD_MANIFESTS))
@pytest.mark.parametrize("per_query", [False, True], ids=["summary", "per-query"])
def test_bad_manifests_exit_2_with_one_line_and_write_nothing(tmp_path, capsys, case, per_query):
    folder = _folder(tmp_path)
    text, line, message = BAD_MANIFESTS[case]
    manifest = folder / "bad.tsv"
    manifest.write_text(text)
    out = folder / "out.tsv"
    argv = ["compare-stages", str(folder / "qrels"), "--manifest", str(manifest), "-o", str(out)]
    assert main(argv + (["--per-query"] if per_query else [])) == 2
    err = capsys.readouterr().err
    where = manifest if line is None else f"{manifest}:{line}"
    assert err.startswith(f"pooljudge: error: {where}: {message}")
    assert err.count("\n") == 1 and "Traceback" not in err
    assert not out.exists()


@pytest.mark.parametrize(("extra", "message"), [
    (["-k", "0"], "-k: must be at least 1, got 0"),
    (["--rel", "0"], "--rel: must be at least 1, got 0"),
    (["-m", "Precision@3"], "-m/--measure: unknown measure 'Precision@3'"),
    (["--resamples", "0"], "--resamples: must be at least 1, got 0"),
    (["--per-query", "--topic-groups", "groups"],
     "--per-query and --topic-groups cannot be combined"),
])
def test_bad_options_exit_2(tmp_path, capsys, extra, message):
    folder = _folder(tmp_path)
    assert main([*_argv(folder), *extra]) == 2
    assert capsys.readouterr().err.startswith(f"pooljudge: error: {message}")


def test_a_bad_run_names_its_file_and_line(tmp_path, capsys):
    folder = _folder(tmp_path)
    (folder / "runs" / "rerank").write_text("q1 Q0 r1 1 high x\n")
    assert main(_argv(folder)) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"pooljudge: error: {folder / 'runs' / 'rerank'}:1:")
    assert err.count("\n") == 1


def test_python_api_takes_frames_by_name(tmp_path):
    folder = _folder(tmp_path)
    runs = {name: pd.read_csv(folder / "runs" / name, sep=" ", header=None,
                              names=["topic", "q0", "doc", "rank", "score", "tag"])
            for name in ("ret", "rerank")}
    manifest = pd.DataFrame({"run": ["ret", "rerank"], "stage": ["retrieve", "rerank"]})
    result = compare_stages(folder / "qrels", manifest, runs, k=3, n_resamples=100)
    from_files = compare_stages(folder / "qrels", folder / "manifest.tsv", k=3, n_resamples=100)
    got = result.per_query.drop(columns=["pipeline", "before_run", "after_run"])
    want = from_files.per_query[(from_files.per_query["pipeline"] == "A")
                                & (from_files.per_query["step"] == "retrieve->rerank")]
    pd.testing.assert_frame_equal(got.reset_index(drop=True),
                                  want.drop(columns=["pipeline", "before_run", "after_run"])
                                  .reset_index(drop=True))


def test_a_step_that_changes_nothing_is_named_as_left_out_of_holm(tmp_path, capsys):
    """A rerank returning exactly the retrieval: every delta 0, no t-test p-value; the warning
    names the step instead of leaving it out of Holm's correction silently."""
    folder = _folder(tmp_path)
    (folder / "runs" / "same").write_text((folder / "runs" / "ret").read_text())
    (folder / "m.tsv").write_text("run\tstage\tpipeline\nruns/ret\tretrieve\tC\n"
                                  "runs/same\trerank\tC\n")
    assert main(["compare-stages", str(folder / "qrels"), "--manifest", str(folder / "m.tsv"),
                 "-k", "3", "--resamples", "50", "-m", "P@3"]) == 0
    err = capsys.readouterr().err
    assert ("P@3: 1 comparison(s) have no t-test p-value (equal differences on every topic, or "
            "fewer than 2 topics; e.g. C retrieve->rerank): left out of Holm's correction over "
            "the other 0") in err
