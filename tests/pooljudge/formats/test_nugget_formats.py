"""Nugget banks, RAG answers and assignments as files: autojudge-base's own loaders read what
pooljudge writes, and every malformed record is refused at its ``path:line``."""

from __future__ import annotations

import io
import json
import re
from dataclasses import replace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pooljudge.errors import InputError
from pooljudge.formats.nugget_assignments import (
    AssignmentRow,
    read_nuggetizer_assignments,
    write_nugget_qrels,
)
from pooljudge.formats.nuggets import (
    NuggetRow,
    read_nugget_banks,
    read_nuggetizer_nuggets,
    write_nugget_banks,
    write_nuggetizer_nuggets,
)
from pooljudge.formats.rag_answers import (
    AnswerRow,
    Sentence,
    read_rag_answers,
    write_rag_answers,
    write_reports,
)


@pytest.fixture(scope="module")
def autojudge(tmp_path_factory):
    """autojudge-base's nugget_data, imported offline: the package fetches NLTK's stop words
    when imported (its document chunker, unused here); an empty English list stands in."""
    nltk = pytest.importorskip("nltk")
    data = tmp_path_factory.mktemp("nltk_data")
    (data / "corpora" / "stopwords").mkdir(parents=True)
    (data / "corpora" / "stopwords" / "english").write_text("")
    (data / "tokenizers" / "punkt").mkdir(parents=True)
    nltk.data.path.insert(0, str(data))
    from autojudge_base import nugget_data

    return nugget_data


# Text a nugget may hold: any Unicode but surrogates and NUL, stripped, not empty.
_TEXT = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"),
                min_size=1, max_size=30).map(str.strip).filter(bool)
_ID = st.text(st.characters(whitelist_categories=("L", "N"), whitelist_characters="-_.'\"#"),
              min_size=1, max_size=8)
_AUTHOR = st.one_of(
    st.tuples(st.just("person"), _TEXT, st.none()),
    st.tuples(st.just("model"), _TEXT, st.one_of(st.none(), st.text("0123456789abcdef",
                                                                    min_size=64,
                                                                    max_size=64))))


@st.composite
def _banks(draw):
    topics = draw(st.lists(_ID.filter(lambda t: not t.startswith("#")), min_size=1,
                           max_size=4, unique=True))
    queries = {t: draw(st.one_of(st.just(""), _TEXT)) for t in topics}
    rows, keys = [], set()
    for topic in topics:
        for text in draw(st.lists(_TEXT, max_size=4, unique=True)):
            key = draw(_ID.filter(lambda k: k not in keys))
            keys.add(key)
            kind, author, prompt = draw(_AUTHOR)
            rows.append(NuggetRow(topic, text, draw(st.sampled_from(["vital", "okay"])),
                                  key=key, sources=tuple(draw(st.lists(_ID, max_size=3,
                                                                       unique=True))),
                                  author_kind=kind, author=author, prompt_sha256=prompt))
    return rows, queries


def _plain(rows):
    return [(r.topic, r.text, r.importance, r.key, r.sources, r.author_kind, r.author,
             r.prompt_sha256) for r in rows]


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(banks=_banks())
def test_nuggetbanks_round_trip_through_autojudge_base_loaders(autojudge, tmp_path, banks):
    rows, queries = banks
    ours, theirs = tmp_path / "ours.jsonl", tmp_path / "theirs.jsonl"
    with open(ours, "w", encoding="utf-8") as handle:
        write_nugget_banks(handle, rows, queries)
    loaded = autojudge.load_nugget_banks_from_file(ours)
    assert set(loaded.banks) == set(queries)
    for topic, bank in loaded.banks.items():
        claims = [c for c in bank.nuggets_as_list()]
        assert [c.claim for c in claims] == [r.text for r in rows if r.topic == topic]
        assert bank.title_query == queries[topic]
    autojudge.write_nugget_banks(loaded, theirs)  # their writer, read back by ours
    for path in (ours, theirs):
        read, read_queries, _ = read_nugget_banks(path)
        assert _plain(read) == _plain(rows)
        assert read_queries == queries


@settings(max_examples=30, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(banks=_banks())
def test_nuggetizer_banks_load_as_nuggetizer_nugget_banks(autojudge, tmp_path, banks):
    rows, queries = banks
    path = tmp_path / "nuggetizer.jsonl"
    with open(path, "w", encoding="utf-8") as handle:
        write_nuggetizer_nuggets(handle, rows, queries)
    loaded = autojudge.load_nugget_banks_generic(path, autojudge.NuggetizerNuggetBanks)
    assert {q: [(n.text, n.importance) for n in b.nuggets] for q, b in loaded.banks.items()} \
        == {t: [(r.text, r.importance) for r in rows if r.topic == t] for t in queries}
    read, read_queries, _ = read_nuggetizer_nuggets(path, author="m", prompt_sha256="ff")
    assert [(r.topic, r.text, r.importance, r.author, r.prompt_sha256) for r in read] == [
        (r.topic, r.text, r.importance, "m", "ff") for r in rows]
    assert read_queries == queries


def _file(tmp_path, records, name="f.jsonl"):
    path = tmp_path / name
    path.write_text("\n".join(r if isinstance(r, str) else json.dumps(r) for r in records)
                    + "\n", encoding="utf-8")
    return path


_GOOD_BANK = {"qid": "t1", "query": "q", "nuggets": [{"text": "a", "importance": "vital"}]}


@pytest.mark.parametrize(("bad", "message"), [
    ({"qid": "t2", "nuggets": [{"text": "a", "importance": "failed"}]},
     "importance must be one of vital, okay, not 'failed'"),
    ({"qid": "t2", "nuggets": [{"text": "  ", "importance": "okay"}]}, "empty nugget text"),
    ({"qid": "t2", "nuggets": [{"importance": "okay"}]}, "text must be a string"),
    ({"qid": "t2", "nuggets": "a"}, "'nuggets' must be a list"),
    ({"nuggets": []}, "missing topic id 'qid'"),
    ({"qid": "t 2", "nuggets": []}, "whitespace"),
    ({"qid": "t1", "nuggets": []}, "topic 't1' has a bank on line 1"),
    ("{not json", "not valid JSON"),
])
def test_a_bad_nuggetizer_bank_is_refused_at_its_line(tmp_path, bad, message):
    path = _file(tmp_path, [_GOOD_BANK, bad])
    with pytest.raises(InputError, match=re.escape(f"{path}:2: ")
                       + ".*" + re.escape(message)):
        read_nuggetizer_nuggets(path)


@pytest.mark.parametrize(("bad", "message"), [
    ({"query_id": "t2", "nugget_bank": {"q?": {"question": "q?"}}}, "question nuggets"),
    ({"query_id": "t2", "claim_bank": {"c": {"claim": "c", "query_id": "t3"}}},
     "claim of topic 't3' in the bank of 't2'"),
    ({"query_id": "t2", "claim_bank": [{"claim": "c", "importance": 2}]},
     "importance must be one of vital, okay, not 2"),
    ({"query_id": "t2", "claim_bank": [{"claim": "c", "importance": "okay",
                                        "claim_id": "has space"}]}, "whitespace"),
    ({"query_id": "t2", "claim_bank": [{"claim": "c", "importance": "okay",
                                        "references": [{"doc_id": ""}]}]}, "empty document id"),
])
def test_a_bad_nuggetbank_is_refused_at_its_line(tmp_path, bad, message):
    path = _file(tmp_path, [{"query_id": "t1", "claim_bank": {}}, bad])
    with pytest.raises(InputError, match=re.escape(f"{path}:2: ") + ".*" + re.escape(message)):
        read_nugget_banks(path)


def test_answers_read_with_citations_and_write_back(tmp_path):
    path = _file(tmp_path, [
        {"run_id": "r1", "topic_id": "t1", "topic": "x", "response_length": 3,
         "references": ["d1", "d2"], "answer": [{"text": "Ça \"va\".", "citations": [1, "d1"]},
                                                 {"text": "Two.", "citations": []}]},
        {"run_id": "r2", "topic_id": "t1", "answer_id": "mine", "references": [],
         "answer": []}])
    answers = read_rag_answers(path)
    assert answers == [
        AnswerRow("r1/t1", "t1", "r1", ("d1", "d2"),
                  (Sentence('Ça "va".', (1, 0)), Sentence("Two.", ())), 1),
        AnswerRow("mine", "t1", "r2", (), (), 2)]
    handle = io.StringIO()
    write_rag_answers(handle, answers)
    again = _file(tmp_path, handle.getvalue().splitlines(), "again.jsonl")
    assert read_rag_answers(again) == answers  # the same lines, each on its line


@pytest.mark.parametrize(("bad", "message"), [
    ({"run_id": "r", "topic_id": "t", "references": ["d"], "answer": [{"text": "x",
                                                                      "citations": [1]}]},
     "citation 1 is not one of the 1 references"),
    ({"run_id": "r", "topic_id": "t", "references": ["d"], "answer": [{"text": "x",
                                                                      "citations": ["e"]}]},
     "citation 'e' is not one of the 1 references"),
    ({"run_id": "r", "topic_id": "t", "answer": "text"}, "'answer' must be a list"),
    ({"topic_id": "t", "answer": []}, "missing run id 'run_id'"),
    ({"run_id": "r1", "topic_id": "t1", "answer": []}, "answer 'r1/t1' is already on line 1"),
    ({"run_id": "r", "topic_id": "t", "answer": [{"citations": []}]}, "'text' string"),
])
def test_a_bad_answer_is_refused_at_its_line(tmp_path, bad, message):
    path = _file(tmp_path, [{"run_id": "r1", "topic_id": "t1", "answer": []}, bad])
    with pytest.raises(InputError, match=re.escape(f"{path}:2: ") + ".*" + re.escape(message)):
        read_rag_answers(path)


def test_assignments_are_read_cell_by_cell(tmp_path):
    path = _file(tmp_path, [
        {"qid": "t1", "run_id": "r1", "query": "q", "answer_text": "x", "nuggets": [
            {"text": " a ", "importance": "vital", "assignment": "support"},
            {"text": "b", "importance": "okay", "assignment": "partial_support"}]},
        {"qid": "t1", "run_id": "r2", "answer_id": "A", "assessor": "gpt", "nuggets": [
            {"text": "a", "assignment": "not_support"}]}])
    assert read_nuggetizer_assignments(path).rows == [
        AssignmentRow("t1", "r1", None, "a", "support", None, 1),
        AssignmentRow("t1", "r1", None, "b", "partial_support", None, 1),
        AssignmentRow("t1", "r2", "A", "a", "not_support", "gpt", 2)]


@pytest.mark.parametrize(("nugget", "message"), [
    ({"text": "a", "assignment": "supported"}, "assignment must be one of not_support, "
                                               "partial_support, support, not 'supported'"),
    ({"text": "a", "importance": "key", "assignment": "support"}, "importance must be one of"),
    ({"assignment": "support"}, "text must be a string"),
])
def test_a_bad_assignment_is_refused_at_its_line(tmp_path, nugget, message):
    path = _file(tmp_path, [{"qid": "t", "run_id": "r", "nuggets": []},
                            {"qid": "t", "run_id": "r", "nuggets": [nugget]}])
    with pytest.raises(InputError, match=re.escape(f"{path}:2: ") + ".*" + re.escape(message)):
        read_nuggetizer_assignments(path)


def test_nugget_qrels_by_nugget_and_by_topic():
    rows = [NuggetRow("t1", "a", "okay", key="n1", sources=("d2", "d1")),
            NuggetRow("t1", "b", "vital", key="n2", sources=("d1",)),
            NuggetRow("t2", "c", "okay", key="n3")]
    by_nugget, by_topic = io.StringIO(), io.StringIO()
    assert write_nugget_qrels(by_nugget, rows, by="nugget") == 3
    assert by_nugget.getvalue() == "n1 0 d1 1\nn1 0 d2 1\nn2 0 d1 2\n"
    assert write_nugget_qrels(by_topic, rows, by="topic") == 2
    assert by_topic.getvalue() == "t1 0 d1 2\nt1 0 d2 1\n"


def test_autojudge_reports_in_their_three_citation_forms(tmp_path):
    path = _file(tmp_path, [
        {"metadata": {"team_id": "t", "run_id": "neuclir", "topic_id": "q1"},
         "responses": [{"text": "A.", "citations": ["d2", "d1"]}, {"text": "B."}]},
        {"metadata": {"team_id": "t", "run_id": "ragtime", "narrative_id": 7},
         "responses": [{"text": "C.", "citations": {"d1": 0.2, "d3": 0.9, "d2": 0.2}}]},
        {"metadata": {"team_id": "t", "run_id": "rag24", "topic_id": "q1"},
         "references": ["d5", "d6"], "answer": [{"text": "D.", "citations": [1]}]}])
    assert read_rag_answers(path) == [
        AnswerRow("neuclir/q1", "q1", "neuclir", ("d2", "d1"),
                  (Sentence("A.", (0, 1)), Sentence("B.", ())), 1),
        AnswerRow("ragtime/7", "7", "ragtime", ("d3", "d1", "d2"),
                  (Sentence("C.", (0, 1, 2)),), 2),
        AnswerRow("rag24/q1", "q1", "rag24", ("d5", "d6"), (Sentence("D.", (1,)),), 3)]


@pytest.mark.parametrize(("bad", "message"), [
    ({"metadata": {"run_id": "r"}, "responses": []}, "missing topic id 'topic_id'"),
    ({"metadata": "r", "responses": []}, "'metadata' must be an object"),
    ({"metadata": {"run_id": "r", "topic_id": "q"},
      "responses": [{"text": "x", "citations": {"d": "high"}}]}, "confidence must be a number"),
    ({"metadata": {"run_id": "r", "topic_id": "q"},
      "responses": [{"text": "x", "citations": ["a b"]}]}, "whitespace"),
])
def test_a_bad_report_is_refused_at_its_line(tmp_path, bad, message):
    path = _file(tmp_path, [{"run_id": "r1", "topic_id": "t1", "answer": []}, bad])
    with pytest.raises(InputError, match=re.escape(f"{path}:2: ") + ".*" + re.escape(message)):
        read_rag_answers(path)


def test_written_reports_load_with_autojudge_base_and_read_back(autojudge, tmp_path):
    from autojudge_base.report import load_report

    answers = [AnswerRow("r1/q1", "q1", "r1", ("d1", "d2", "d3"),
                         (Sentence('Ça "va".', (2, 0)), Sentence("", ()))),
               AnswerRow("mine", "q2", "r2", (), (Sentence("B.", ()),))]
    path = tmp_path / "reports.jsonl"
    with open(path, "w", encoding="utf-8") as handle:
        write_reports(handle, answers, team="pj")
    loaded = load_report(path)
    assert [(r.metadata.team_id, r.metadata.run_id, r.metadata.topic_id) for r in loaded] == [
        ("pj", "r1", "q1"), ("pj", "r2", "q2")]
    assert [(s.text, s.citations) for s in loaded[0].get_sentences_with_citations()] == [
        ('Ça "va".', ["d3", "d1"]), ("", [])]
    assert read_rag_answers(path) == [replace(a, line=i) for i, a in enumerate(answers, 1)]
