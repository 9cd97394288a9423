"""pooljudge.formats.hf and ``pooljudge export --format hf DIR``: a campaign as a Hugging Face
dataset on disk, read back with ``datasets.load_dataset`` and pandas."""

from __future__ import annotations

import os

import numpy as np
import pandas as pd
import pandas.testing as pdt
import pytest
import yaml

from pooljudge.cli import main
from pooljudge.errors import UsageError
from pooljudge.formats.hf import CardFacts, parquet_path, write_hf_dataset
from pooljudge.formats.trec import read_qrels

datasets = pytest.importorskip("datasets")

HOSTILE = "c\" ]] <script>alert(1)</script> | *x*\n---\nlicense: mit"
# Three annotators on topics t0, t1 and documents d0..d3 (scale 0-2); t1/d3 is left to carol.
LABELS = {
    "alice": {"t0": [0, 1, 2, 1], "t1": [0, 2, 1]},
    "bob": {"t0": [0, 2, 2, 1], "t1": [0, 2, 0]},
    "carol": {"t0": [2, 1, 2, 0], "t1": [0, 2, 2, 1]},
}


@pytest.fixture(autouse=True)
def _offline_hub(monkeypatch, tmp_path):
    """``datasets`` reads local folders only, with its cache in the test's folder."""
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_DATASETS_CACHE", str(tmp_path / "hf-cache"))


def _tables() -> dict[str, pd.DataFrame]:
    qrels = pd.DataFrame({"topic": ["t0", "t0", "t1"], "doc": ["d0", "d1", "d0"],
                          "label": np.array([2, 0, 1], dtype=np.int64)})
    topics = pd.DataFrame({"id": ["t0", "t1"], "title": ["<b>bold</b>", "x"],
                           "description": ["", "d"], "narrative": ["n", ""]})
    judgments = pd.DataFrame({
        "annotator": ["alice", "bob", "alice"], "topic": ["t0", "t0", "t1"],
        "doc": ["d0", "d0", "d0"], "label": pd.array([2, None, 1], dtype="Int64"),
        "created_at": pd.to_datetime(["2026-01-01 10:00", "2026-01-01 10:01",
                                      "2026-01-01 10:02"]),
        "seconds": [3.5, np.nan, 1.0]})
    return {"qrels": qrels, "topics": topics, "judgments": judgments}


def _facts(**changes) -> CardFacts:
    facts = {"campaign": "demo", "scale": (0, 1, 2), "policy": "majority",
             "counts": {"Topics": 2, "Pooled pairs": 3},
             "agreement": {"Fleiss' kappa": 0.4321, "Krippendorff's alpha (ordinal)": None}}
    return CardFacts(**{**facts, **changes})


def _card(folder) -> tuple[dict, str]:
    text = (folder / "README.md").read_text(encoding="utf-8")
    _, header, prose = text.split("---\n", 2)
    return yaml.safe_load(header), prose


def test_every_config_round_trips_through_load_dataset(tmp_path):
    tables = _tables()
    target = write_hf_dataset(tmp_path / "out", tables, _facts())
    for config, frame in tables.items():
        loaded = datasets.load_dataset(str(target), config, split="test").to_pandas()
        expected = frame.reset_index(drop=True)
        if config == "judgments":  # datasets hands nullable ints back as floats with NaN
            loaded["label"] = loaded["label"].astype("Int64")
            loaded["created_at"] = loaded["created_at"].astype(expected["created_at"].dtype)
        pdt.assert_frame_equal(loaded, expected, check_dtype=config != "judgments")
    default = datasets.load_dataset(str(target), split="test").to_pandas()
    pdt.assert_frame_equal(default, tables["qrels"])  # the first config is the default
    assert (target / parquet_path("qrels")).is_file()


def test_the_card_declares_configs_tags_and_prose(tmp_path):
    target = write_hf_dataset(tmp_path / "out", _tables(), _facts(license="cc-by-4.0"))
    header, prose = _card(target)
    assert [c["config_name"] for c in header["configs"]] == ["qrels", "topics", "judgments"]
    assert header["configs"][0]["default"] is True
    assert header["configs"][1]["data_files"] == [{"split": "test",
                                                   "path": "topics/test-*.parquet"}]
    assert header["license"] == "cc-by-4.0" and "text-retrieval" in header["task_categories"]
    assert header["size_categories"] == ["n<1K"]
    assert "- Label scale: 0, 1, 2" in prose and "- Topics: 2" in prose
    assert "- Fleiss' kappa: 0.432" in prose
    assert "- Krippendorff's alpha (ordinal): undefined" in prose
    assert "| qrels | 3 | `topic`, `doc`, `label` |" in prose


def test_hostile_names_stay_literal_in_the_card(tmp_path):
    target = write_hf_dataset(tmp_path / "out", _tables(), _facts(campaign=HOSTILE))
    header, prose = _card(target)
    assert header["pretty_name"] == "Relevance judgments: " + HOSTILE
    assert header["license"] == "other"
    assert "<script>" not in prose and "&lt;script&gt;" in prose
    assert "\\*x\\*" in prose and "\\]\\]" in prose and "\\|" in prose
    assert "\n---\n" not in prose


def test_an_existing_folder_is_refused_unless_forced_then_replaced_whole(tmp_path):
    target = tmp_path / "out"
    target.mkdir()
    (target / "old.txt").write_text("keep me")
    with pytest.raises(UsageError, match="not empty"):
        write_hf_dataset(target, _tables(), _facts())
    assert (target / "old.txt").read_text() == "keep me"
    write_hf_dataset(target, _tables(), _facts(), force=True)
    assert not (target / "old.txt").exists() and (target / "README.md").is_file()
    assert {p.name for p in tmp_path.iterdir()} - {"hf-cache"} == {"out"}  # no leftovers


def test_a_failed_write_leaves_the_target_untouched(tmp_path):
    target = tmp_path / "out"
    target.mkdir()
    (target / "old.txt").write_text("keep me")
    bad = _tables()
    bad["topics"] = pd.DataFrame({"id": [object()]})  # pyarrow cannot store it
    with pytest.raises(Exception, match="object"):
        write_hf_dataset(target, bad, _facts(), force=True)
    assert [p.name for p in target.iterdir()] == ["old.txt"]
    assert {p.name for p in tmp_path.iterdir()} - {"hf-cache"} == {"out"}


def test_an_empty_folder_is_written_into_and_a_file_is_refused(tmp_path):
    (tmp_path / "empty").mkdir()
    write_hf_dataset(tmp_path / "empty", _tables(), _facts())
    assert (tmp_path / "empty" / "README.md").is_file()
    (tmp_path / "file").write_text("x")
    with pytest.raises(UsageError, match="not a directory"):
        write_hf_dataset(tmp_path / "file", _tables(), _facts())


# --- pooljudge export --format hf ---------------------------------------------------------------


@pytest.fixture
def campaign(tmp_path, monkeypatch) -> str:
    """Campaign ``c`` (scale 0-2, overlap 3, "I can't judge this" offered but not used):
    LABELS imported and one adjudication; $POOLJUDGE_DB points at it."""
    from pooljudge.annotate.records import LabelScale
    from pooljudge.annotate.store import (
        add_annotator,
        create_campaign,
        import_judgments,
        open_engine,
        session_scope,
    )

    url = f"sqlite:///{tmp_path / 'c.db'}"
    monkeypatch.setenv("POOLJUDGE_DB", url)
    monkeypatch.chdir(tmp_path)
    topics = pd.DataFrame({"id": ["t0", "t1"], "title": ["black holes", "<i>polio</i>"],
                           "description": ["desc 0", "desc 1"], "narrative": ["n0", "n1"]})
    documents = pd.DataFrame({"id": [f"d{j}" for j in range(4)], "title": "",
                              "text": [f"text {j}" for j in range(4)]})
    pool = pd.DataFrame([(t, f"d{j}", j + 1, j + 1, "A") for t in ("t0", "t1") for j in range(4)],
                        columns=["topic", "doc", "order", "best_rank", "runs"])
    rows = [(name, topic, f"d{i}", str(label)) for name, by_topic in LABELS.items()
            for topic, values in by_topic.items() for i, label in enumerate(values)]
    engine = open_engine(url)
    with session_scope(engine) as session:
        create_campaign(session, name="c", scale=LabelScale.range(0, 2), overlap=3,
                        topics=topics, documents=documents, pool=pool, cannot_judge=True)
        for name in (*LABELS, "dave"):
            add_annotator(session, campaign="c", name=name,
                          role="adjudicator" if name == "dave" else "annotator")
        import_judgments(session, campaign="c", frame=pd.DataFrame(
            rows, columns=["annotator", "topic", "doc", "label"]))
        import_judgments(session, campaign="c", frame=pd.DataFrame(
            [("dave", "t0", "d1", "1", "adjudication")],
            columns=["annotator", "topic", "doc", "label", "kind"]))
    engine.dispose()
    return url


def test_export_hf_round_trips_the_trec_export(campaign, tmp_path, capsys):
    assert main(["export", "--campaign", "c", "-o", "qrels.txt"]) == 0
    assert main(["export", "--campaign", "c", "--format", "hf", "ds", "--license",
                 "cc-by-4.0"]) == 0
    err = capsys.readouterr().err
    assert "written by policy" in err and "as a Hugging Face dataset" in err
    qrels = datasets.load_dataset("ds", "qrels", split="test").to_pandas()
    pdt.assert_frame_equal(qrels, read_qrels("qrels.txt"), check_dtype=False)
    provenance = pd.read_csv("qrels.txt.provenance.tsv", sep="\t", dtype=str,
                             keep_default_na=False)
    loaded = datasets.load_dataset("ds", "provenance", split="test").to_pandas()
    assert list(loaded.columns) == list(provenance.columns)
    assert list(loaded["rule"]) == list(provenance["rule"])
    topics = pd.read_parquet(tmp_path / "ds" / parquet_path("topics"))
    assert topics.to_dict("records") == [
        {"id": "t0", "title": "black holes", "description": "desc 0", "narrative": "n0"},
        {"id": "t1", "title": "<i>polio</i>", "description": "desc 1", "narrative": "n1"}]
    judgments = datasets.load_dataset("ds", "judgments", split="test").to_pandas()
    assert len(judgments) == sum(len(v) for by_topic in LABELS.values()
                                 for v in by_topic.values()) + 1
    assert {"annotator", "kind", "source", "version", "created_at"} <= set(judgments.columns)
    assert set(judgments.loc[judgments["kind"] == "adjudication", "annotator"]) == {"dave"}
    assert set(judgments["source"]) == {"import"}
    header, prose = _card(tmp_path / "ds")
    assert header["license"] == "cc-by-4.0"
    assert "Consensus policy: majority" in prose and "- Pooled pairs: 8" in prose
    assert "- Annotators who labelled: 3" in prose and "Automatic judges" not in prose
    assert "Fleiss' kappa" in prose


@pytest.mark.parametrize(("argv", "message"), [
    (["--format", "hf"], "--format hf: give the dataset folder DIR"),
    (["--format", "hf", "ds", "-o", "q.txt"], "-o: not with --format hf"),
    (["--format", "hf", "ds", "--provenance", "p.tsv"], "--provenance: not with --format hf"),
    (["ds"], "DIR: only with --format hf"),
    (["--force"], "--force: only with --format hf"),
    (["-o", "q.txt", "--license", "mit"], "--license: only with --format hf"),
])
def test_export_option_mistakes_are_one_line(campaign, capsys, argv, message):
    assert main(["export", "--campaign", "c", *argv]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and message in err
    assert not os.path.exists("ds") and not os.path.exists("q.txt")


def test_export_hf_refuses_a_full_folder_before_reading_and_force_replaces(campaign, tmp_path,
                                                                           capsys):
    (tmp_path / "ds").mkdir()
    (tmp_path / "ds" / "mine.txt").write_text("x")
    assert main(["export", "--campaign", "c", "--format", "hf", "ds"]) == 2
    assert "the directory is not empty (--force replaces it)" in capsys.readouterr().err
    assert main(["export", "--campaign", "c", "--format", "hf", "ds", "--force"]) == 0
    assert not (tmp_path / "ds" / "mine.txt").exists()
    assert not (tmp_path / "ds" / parquet_path("cannot_judge")).exists()  # no answers: none
