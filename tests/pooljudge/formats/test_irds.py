"""pooljudge.formats.irds: topics, qrels and documents from ir_datasets, offline only."""

from __future__ import annotations

import socket
import uuid

import pandas as pd
import pandas.testing as pdt
import pytest

from pooljudge.errors import InputError
from pooljudge.formats.collection import DOCUMENT_COLUMNS, TOPIC_COLUMNS
from pooljudge.formats.irds import load_dataset
from pooljudge.formats.trec import read_qrels

ir_datasets = pytest.importorskip("ir_datasets")
from tests.support import irds  # noqa: E402

get_many_calls = irds.get_many_calls  # the fixture, shared with the other ir_datasets tests

TOPIC_FILE = """<top>
<num> Number: 301
<title> International Organized Crime
<desc> Description:
Identify organizations that participate in international criminal activity.
<narr> Narrative:
A relevant document must name the organization.
</top>
"""


def write_local_dataset(folder, *, docs: int = 20) -> None:
    """docs.tsv (d00..d19), queries.tsv (3 queries) and TREC qrels in ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "docs.tsv").write_text(
        "".join(f"d{i:02d}\ttext of document {i}\n" for i in range(docs)), encoding="utf-8")
    (folder / "queries.tsv").write_text("q1\tblack holes\nq2\tpolio vaccine\nq3\t<b>&amp;</b>\n",
                                        encoding="utf-8")
    (folder / "qrels").write_text("q1 0 d01 1\nq1 0 d02 0\nq2 0 d05 2\nq3 0 d07 1\n",
                                  encoding="utf-8")


def register(dataset) -> str:
    """Register ``dataset`` under a fresh ID (the registry is process-wide)."""
    name = f"pooljudge-test/{uuid.uuid4().hex[:10]}"
    ir_datasets.registry.register(name, dataset)
    return name


def test_a_local_folder_gives_topics_qrels_and_only_the_asked_documents(tmp_path,
                                                                        get_many_calls):
    write_local_dataset(tmp_path / "data")
    dataset = load_dataset(tmp_path / "data")
    topics = dataset.topics()
    assert list(topics.columns) == list(TOPIC_COLUMNS)
    assert list(topics["id"]) == ["q1", "q2", "q3"]
    assert list(topics["title"]) == ["black holes", "polio vaccine", "<b>&amp;</b>"]  # literal
    assert (topics[["description", "narrative"]] == "").all().all()
    pdt.assert_frame_equal(dataset.qrels(), read_qrels(tmp_path / "data" / "qrels"))
    documents = dataset.documents(["d07", "nope", "d01", "d07"])
    assert list(documents.columns) == list(DOCUMENT_COLUMNS)
    assert list(documents["id"]) == ["d07", "d01"]
    assert list(documents["text"]) == ["text of document 7", "text of document 1"]
    assert get_many_calls == [["d07", "nope", "d01"]]


def test_a_dataset_object_is_taken_as_it_is(tmp_path):
    write_local_dataset(tmp_path, docs=3)
    made = ir_datasets.create_dataset(docs_tsv=tmp_path / "docs.tsv")
    dataset = load_dataset(made, name="mine")
    assert list(dataset.documents(["d02"])["text"]) == ["text of document 2"]
    with pytest.raises(InputError, match="dataset mine has no queries"):
        dataset.topics()


def test_no_ids_fetch_nothing(tmp_path, get_many_calls):
    write_local_dataset(tmp_path)
    assert dataset_documents_empty(load_dataset(tmp_path).documents([]))
    assert get_many_calls == []


def dataset_documents_empty(frame: pd.DataFrame) -> bool:
    return frame.empty and list(frame.columns) == list(DOCUMENT_COLUMNS)


def test_trec_topics_keep_title_description_and_narrative(tmp_path):
    from ir_datasets.formats import TrecQueries
    from ir_datasets.util import LocalDownload

    (tmp_path / "topics.txt").write_text(TOPIC_FILE, encoding="utf-8")
    name = register(ir_datasets.Dataset(TrecQueries(LocalDownload(tmp_path / "topics.txt"))))
    topic = load_dataset(name).topics().iloc[0]
    assert topic["id"] == "301" and topic["title"] == "International Organized Crime"
    assert topic["description"].startswith("Identify organizations")
    assert topic["narrative"] == "A relevant document must name the organization."


def test_an_unknown_id_names_its_registered_neighbours():
    with pytest.raises(InputError, match=r"no such ir_datasets dataset \(registered IDs of "
                                         r"msmarco-passage: msmarco-passage"):
        load_dataset("msmarco-passage/no-such-split")
    with pytest.raises(InputError, match="`ir_datasets list` names them"):
        load_dataset("no-such-collection-at-all")


def test_a_folder_without_dataset_files_is_refused(tmp_path):
    with pytest.raises(InputError, match=r"a local dataset needs one of docs\.tsv"):
        load_dataset(tmp_path)


def test_files_not_in_the_cache_are_never_downloaded(tmp_path, monkeypatch):
    """A dataset whose files would come from the network: an InputError saying what is
    missing and how to download it; no connection is ever opened."""
    from ir_datasets.formats import TsvDocs, TsvQueries
    from ir_datasets.util import Download, RequestsDownload

    def no_network(*args, **kwargs):
        raise AssertionError("a connection was opened")

    monkeypatch.setattr(socket.socket, "connect", no_network)
    monkeypatch.setattr(socket, "create_connection", no_network)
    url = "http://127.0.0.1:9/queries.tsv"
    queries = Download([RequestsDownload(url)], cache_path=str(tmp_path / "q.tsv"))
    docs = Download([RequestsDownload("http://127.0.0.1:9/a"),
                     RequestsDownload("http://127.0.0.1:9/b")], cache_path=str(tmp_path / "d"))
    name = register(ir_datasets.Dataset(TsvQueries(queries), TsvDocs(docs)))
    dataset = load_dataset(name)
    with pytest.raises(InputError) as caught:
        dataset.topics()
    message = str(caught.value)
    assert f"dataset {name}: its queries are not in the local ir_datasets cache" in message
    assert f"missing: {url}" in message and f"ir_datasets export {name} queries" in message
    with pytest.raises(InputError, match="its docs are not in the local ir_datasets cache"):
        dataset.documents(["a"])
    with pytest.raises(InputError, match=f"dataset {name} has no qrels"):
        dataset.qrels()
    assert not (tmp_path / "q.tsv").exists()


def test_the_guard_is_lifted_afterwards(tmp_path):
    from ir_datasets.util import RequestsDownload

    stream = RequestsDownload.stream
    write_local_dataset(tmp_path)
    load_dataset(tmp_path).topics()
    assert RequestsDownload.stream is stream


def test_a_local_file_gone_missing_is_named(tmp_path):
    write_local_dataset(tmp_path)
    dataset = load_dataset(tmp_path)
    (tmp_path / "queries.tsv").unlink()
    with pytest.raises(InputError, match=r"its queries file is missing: .*queries\.tsv"):
        dataset.topics()


def test_qrels_judging_a_pair_twice_are_refused(tmp_path):
    write_local_dataset(tmp_path)
    (tmp_path / "qrels").write_text("q1 0 d01 1\nq1 0 d01 0\n", encoding="utf-8")
    with pytest.raises(InputError, match="qrels judge document d01 twice for topic q1"):
        load_dataset(tmp_path).qrels()


def test_a_query_listed_twice_is_refused(tmp_path):
    write_local_dataset(tmp_path)
    (tmp_path / "queries.tsv").write_text("q1\ta\nq1\tb\n", encoding="utf-8")
    with pytest.raises(InputError, match="query q1 listed twice"):
        load_dataset(tmp_path).topics()


@pytest.mark.parametrize(("file", "text", "read", "message"), [
    ("queries.tsv", "q1\n", lambda d: d.topics(), "its queries cannot be read: expected 2"),
    ("qrels", "q1 0 d01\n", lambda d: d.qrels(), "its qrels cannot be read: expected 4"),
    ("docs.tsv", "d01 no tab\n", lambda d: d.documents(["d01"]),
     "its docs cannot be read: expected 2"),
])
def test_a_malformed_local_file_is_an_input_error(tmp_path, file, text, read, message):
    write_local_dataset(tmp_path)
    (tmp_path / file).write_text(text, encoding="utf-8")
    with pytest.raises(InputError, match=message):
        read(load_dataset(tmp_path))
