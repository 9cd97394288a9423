"""Run manifests: header, stages, chains by pipeline or by configuration, path:line errors."""

from __future__ import annotations

import pandas as pd
import pytest

from pooljudge.errors import InputError
from pooljudge.formats.manifest import manifest_frame, read_manifest


def _runs(folder, *names):
    (folder / "runs").mkdir(exist_ok=True)
    for name in names:
        (folder / "runs" / name).write_text("1 Q0 d 1 1 x\n")


def _manifest(folder, text: str):
    path = folder / "manifest.tsv"
    path.write_text(text, encoding="utf-8")
    return path


def test_explicit_pipelines_paths_relative_to_the_manifest_and_literal_cells(tmp_path):
    _runs(tmp_path, "e5.run", "bge.run", "ctx.run", "cohere.run")
    path = _manifest(tmp_path, "# stages\nrun\tstage\tpipeline\treranker\n\n"
                               "runs/e5.run\tretrieve\tA\t\n"
                               "runs/bge.run\trerank\tA\tbge <v2>\n"
                               "runs/ctx.run\tcontext\tA\tbge <v2>\n"
                               "runs/e5.run\tretrieve\tB\t\n"
                               "runs/cohere.run\trerank\tB\tcohere\n")
    manifest = read_manifest(path)
    assert list(manifest.frame.columns) == ["pipeline", "stage", "run", "reranker"]
    assert manifest.frame["pipeline"].tolist() == ["A", "A", "A", "B", "B"]
    assert manifest.frame["reranker"].tolist() == ["", "bge <v2>", "bge <v2>", "", "cohere"]
    assert manifest.paths["runs/e5.run"] == tmp_path / "runs" / "e5.run"
    assert set(manifest.paths) == {"runs/e5.run", "runs/bge.run", "runs/ctx.run",
                                   "runs/cohere.run"}
    assert manifest.lines == (4, 5, 6, 7, 8)


def test_without_a_pipeline_column_chains_share_every_configuration_column(tmp_path):
    _runs(tmp_path, "a1", "a2", "b1", "b2")
    path = _manifest(tmp_path, "run\tstage\tembedding\tchunking\n"
                               "runs/a1\tretrieve\te5\t512\nruns/a2\trerank\te5\t512\n"
                               "runs/b1\tretrieve\te5\t256\nruns/b2\trerank\te5\t256\n")
    frame = read_manifest(path).frame
    assert frame["pipeline"].tolist() == ["embedding=e5; chunking=512"] * 2 + [
        "embedding=e5; chunking=256"] * 2


def test_runs_given_by_name_need_no_file(tmp_path):
    path = _manifest(tmp_path, "run\tstage\nbm25\tretrieve\nmonot5\trerank\n")
    manifest = read_manifest(path, names={"bm25", "monot5"})
    assert manifest.paths == {}
    assert manifest.frame["pipeline"].tolist() == ["(all runs)"] * 2


def test_a_dataframe_manifest_reports_rows_as_lines():
    frame = pd.DataFrame({"run": ["x", "y"], "stage": ["retrieve", "rerun"]})
    with pytest.raises(InputError) as info:
        manifest_frame(frame, names={"x", "y"})
    assert str(info.value) == ("manifest:3: unknown stage 'rerun' (stages: retrieve, rerank, "
                               "context)")
    checked = manifest_frame(pd.DataFrame({"run": ["x"], "stage": ["context"],
                                           "k": [float("nan")]}), names={"x"})
    assert checked.frame["k"].tolist() == [""]


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        pytest.param("run\tstage\nruns/a\tfinal\n", 2,
                     "unknown stage 'final' (stages: retrieve, rerank, context)",
                     id="unknown-stage"),
        pytest.param("run\tstage\nruns/missing\tretrieve\n", 2,
                     "run 'runs/missing' is not a file (looked for '{folder}/runs/missing')",
                     id="missing-run"),
        pytest.param("run\tstage\tpipeline\nruns/a\trerank\tP\nruns/b\trerank\tP\n", 3,
                     "pipeline 'P' has two rerank runs (first on line 2)", id="duplicate"),
        pytest.param("run\tstage\tx\nruns/a\tretrieve\t1\nruns/b\tretrieve\t1\n", 3,
                     "pipeline 'x=1' has two retrieve runs (first on line 2)",
                     id="duplicate-configuration"),
        pytest.param("run\tpipeline\nruns/a\tP\n", 1,
                     "the header has no stage column (found: run, pipeline)", id="no-stage"),
        pytest.param("stage\nretrieve\n", 1,
                     "the header has no run column (found: stage)", id="no-run"),
        pytest.param("run\tstage\trun\n", 1, "column 'run' named twice in the header",
                     id="repeated-column"),
        pytest.param("run\t\tstage\n", 1, "empty column name in the header", id="empty-column"),
        pytest.param("run\tstage\tpipeline\nruns/a\tretrieve\n", 2,
                     "expected 3 tab-separated fields (run, stage, pipeline), found 2",
                     id="short-line"),
        pytest.param("run\tstage\tpipeline\nruns/a\tretrieve\t \n", 2, "empty pipeline cell",
                     id="empty-pipeline"),
        pytest.param("run\tstage\n\trerank\n", 2, "empty run cell", id="empty-run"),
        pytest.param("run\tstage\nruns/a\x00b\tretrieve\n", 2,
                     "run 'runs/a\\x00b' is not a file (looked for '{folder}/runs/a\\x00b')",
                     id="nul-byte"),
        pytest.param("# only\nrun\tstage\n", 2, "no run listed under the header", id="no-run-rows"),
        pytest.param("run stage\nruns/a retrieve\n", 1,
                     "the header has no run and no stage column (found: run stage); columns are "
                     "separated by tabs", id="blanks-not-tabs"),
    ],
)
def test_bad_manifests_name_path_and_line(tmp_path, text, line, message):
    _runs(tmp_path, "a", "b")
    path = _manifest(tmp_path, text)
    with pytest.raises(InputError) as info:
        read_manifest(path)
    assert str(info.value) == f"{path}:{line}: {message.format(folder=tmp_path)}"


def test_unreadable_manifests(tmp_path):
    with pytest.raises(InputError, match="no such file"):
        read_manifest(tmp_path / "nope.tsv")
    bad = tmp_path / "bad.tsv"
    bad.write_bytes(b"run\tstage\nr\xff\tretrieve\n")
    with pytest.raises(InputError, match=r"bad.tsv:2: not valid UTF-8"):
        read_manifest(bad)
    with pytest.raises(InputError, match="file is empty"):
        read_manifest(_manifest(tmp_path, "\n"))
    with pytest.raises(InputError, match="no header line"):
        read_manifest(_manifest(tmp_path, "# just a comment\n"))
