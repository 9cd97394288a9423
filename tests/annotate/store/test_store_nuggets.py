"""Nugget banks, their history, RAG answers and assignments in the store (both backends)."""

from __future__ import annotations

import re

import pytest
from pooljudge.annotate import store
from pooljudge.annotate.store import Credential, NotAllowed, session_scope

from pooljudge.errors import InputError
from pooljudge.formats.nugget_assignments import AssignmentRow
from pooljudge.formats.nuggets import NuggetRow
from pooljudge.formats.rag_answers import AnswerRow, Sentence


@pytest.fixture
def campaign(engine, make_campaign):
    """A campaign (topics t0, t1) with a model's bank of t0, two answers and two people; and
    another campaign with its own person. Returns (name, other, tokens)."""
    name, other = make_campaign(), make_campaign()
    with session_scope(engine) as session:
        tokens = {"ann": store.add_annotator(session, campaign=name, name="ann"),
                  "bob": store.add_annotator(session, campaign=name, name="bob"),
                  "eve": store.add_annotator(session, campaign=other, name="eve")}
        store.import_nuggets(session, campaign=name, path="bank.jsonl", rows=[
            NuggetRow("t0", "Python is interpreted", "vital", sources=("d0",),
                      prompt_sha256="ab" * 32, author="gpt", line=1),
            NuggetRow("t0", "It has \"dynamic\" typing", "okay", line=1),
            NuggetRow("t1", "Späť ✓", "vital", key="custom", author_kind="person",
                      author="ann", line=2)])
        store.import_rag_answers(session, campaign=name, path="answers.jsonl", answers=[
            AnswerRow("r1/t0", "t0", "r1", ("d0", "d1"),
                      (Sentence("Python is interpreted.", (0,)), Sentence("Typed.", (0, 1)))),
            AnswerRow("r2/t0", "t0", "r2", (), (Sentence("No idea.", ()),))])
    return name, other, tokens


def _bank(engine, name, states=("active",)):
    with session_scope(engine, readonly=True) as session:
        return store.nugget_bank(session, campaign=name, states=states)


def test_imported_banks_read_back_in_order_with_keys_sources_and_authors(engine, campaign):
    name, _, _ = campaign
    bank = _bank(engine, name)
    assert [(n.key, n.topic, n.position, n.text, n.importance, n.sources, n.author_kind,
             n.author, n.prompt_sha256, n.state) for n in bank] == [
        ("t0-1", "t0", 0, "Python is interpreted", "vital", ("d0",), "model", "gpt",
         "ab" * 32, "active"),
        ("t0-2", "t0", 1, 'It has "dynamic" typing', "okay", (), "model", "nuggetizer", None,
         "active"),
        ("custom", "t1", 0, "Späť ✓", "vital", (), "person", "ann", None, "active")]
    with session_scope(engine, readonly=True) as session:
        history = store.nugget_history(session, campaign=name)
        assert list(history["action"]) == ["created"] * 3
        assert history["before"].isna().all()
        assert history.loc[2, "after"]["text"] == "Späť ✓"


@pytest.mark.parametrize(("row", "message"), [
    (NuggetRow("t9", "x", "vital", line=7), "bank.jsonl:7: campaign '{c}' has no topic 't9'"),
    (NuggetRow("t0", "Python is interpreted", "okay", line=8),
     "bank.jsonl:8: topic 't0' already has a nugget 'Python is interpreted'"),
    (NuggetRow("t1", "new", "okay", key="t0-1", line=9),
     "bank.jsonl:9: nugget id 't0-1' is already used"),
])
def test_a_bad_bank_row_stores_nothing(engine, campaign, row, message):
    name, _, _ = campaign
    good = NuggetRow("t1", "a good one", "okay", line=6)
    with pytest.raises(InputError, match=re.escape(message.format(c=name))), \
            session_scope(engine) as session:
        store.import_nuggets(session, campaign=name, rows=[good, row], path="bank.jsonl")
    assert len(_bank(engine, name)) == 3


def test_people_add_edit_merge_and_delete_with_history(engine, campaign):
    name, _, tokens = campaign
    ann, bob = Credential("token", tokens["ann"]), Credential("token", tokens["bob"])
    with session_scope(engine) as session:
        added = store.add_nugget(session, credential=ann, campaign=name, topic="t0",
                                 text="  Created by Guido  ", importance="okay",
                                 sources=["d2"])
        assert (added.key, added.text, added.position, added.author_kind, added.author) == (
            "t0-3", "Created by Guido", 2, "person", "ann")
    with session_scope(engine) as session:
        edited = store.edit_nugget(session, credential=bob, campaign=name, key="t0-2",
                                   importance="vital")
        assert (edited.importance, edited.text) == ("vital", 'It has "dynamic" typing')
        merged = store.merge_nuggets(session, credential=bob, campaign=name, keys=["t0-3"],
                                     into="t0-1")
        assert merged.sources == ("d0", "d2")
        store.delete_nugget(session, credential=ann, campaign=name, key="t0-2")
    assert [n.key for n in _bank(engine, name)] == ["t0-1", "custom"]
    everything = {n.key: n for n in _bank(engine, name, ("active", "merged", "deleted"))}
    assert (everything["t0-3"].state, everything["t0-3"].merged_into) == ("merged", "t0-1")
    assert everything["t0-2"].state == "deleted"
    with session_scope(engine, readonly=True) as session:
        history = store.nugget_history(session, campaign=name)
    later = history.iloc[3:]
    assert list(zip(later["key"], later["action"], later["actor"], strict=True)) == [
        ("t0-3", "created", "ann"), ("t0-2", "edited", "bob"), ("t0-3", "merged", "bob"),
        ("t0-1", "edited", "bob"), ("t0-2", "deleted", "ann")]
    edit = later.iloc[1]
    assert (edit["before"]["importance"], edit["after"]["importance"]) == ("okay", "vital")
    assert later.iloc[2]["after"] == {"text": "Created by Guido", "importance": "okay",
                                      "sources": ["d2"], "state": "merged",
                                      "merged_into": "t0-1"}


@pytest.mark.parametrize(("change", "error", "message"), [
    (lambda s, c, n: store.add_nugget(s, credential=c, campaign=n, topic="t0",
                                      text="Python is interpreted", importance="okay"),
     InputError, "already has a nugget"),
    (lambda s, c, n: store.add_nugget(s, credential=c, campaign=n, topic="t0", text="x",
                                      importance="high"), InputError, "importance must be"),
    (lambda s, c, n: store.add_nugget(s, credential=c, campaign=n, topic="t0", text="  ",
                                      importance="okay"), InputError, "empty nugget text"),
    (lambda s, c, n: store.edit_nugget(s, credential=c, campaign=n, key="t0-1",
                                       text='It has "dynamic" typing'),
     InputError, "already has a nugget"),
    (lambda s, c, n: store.merge_nuggets(s, credential=c, campaign=n, keys=["custom"],
                                         into="t0-1"), InputError, "another topic"),
    (lambda s, c, n: store.merge_nuggets(s, credential=c, campaign=n, keys=["t0-1"],
                                         into="t0-1"), InputError, "into itself"),
    (lambda s, c, n: store.delete_nugget(s, credential=c, campaign=n, key="nope"),
     InputError, "no active nugget 'nope'"),
])
def test_a_refused_change_writes_nothing(engine, campaign, change, error, message):
    name, _, tokens = campaign
    with pytest.raises(error, match=re.escape(message)), session_scope(engine) as session:
        change(session, Credential("token", tokens["ann"]), name)
    assert len(_bank(engine, name)) == 3
    with session_scope(engine, readonly=True) as session:
        assert len(store.nugget_history(session, campaign=name)) == 3


def test_every_write_is_authorised_in_its_transaction(engine, campaign):
    name, _, tokens = campaign
    for credential in (Credential("token", tokens["eve"]), Credential("token", "forged"),
                       Credential("session", "")):
        with pytest.raises(NotAllowed), session_scope(engine) as session:
            store.add_nugget(session, credential=credential, campaign=name, topic="t0",
                             text="sneaky", importance="okay")
        with pytest.raises(NotAllowed), session_scope(engine) as session:
            store.record_nugget_assignment(session, credential=credential, campaign=name,
                                           answer="r1/t0", nugget="t0-1", label="support")
    with session_scope(engine) as session:
        store.remove_annotator(session, campaign=name, name="bob")
    with pytest.raises(NotAllowed), session_scope(engine) as session:
        store.delete_nugget(session, credential=Credential("token", tokens["bob"]),
                            campaign=name, key="t0-1")
    assert len(_bank(engine, name)) == 3
    with session_scope(engine, readonly=True) as session:
        assert store.nugget_cells(session, campaign=name).empty


def test_answers_read_back_with_sentences_and_citations(engine, campaign):
    name, _, _ = campaign
    with session_scope(engine, readonly=True) as session:
        answers = store.answer_texts(session, campaign=name)
        frame = store.rag_answers_frame(session, campaign=name)
    assert answers[0] == AnswerRow("r1/t0", "t0", "r1", ("d0", "d1"), (
        Sentence("Python is interpreted.", (0,)), Sentence("Typed.", (0, 1))))
    assert answers[1].sentences == (Sentence("No idea.", ()),)
    assert frame.values.tolist() == [["r1/t0", "t0", "r1"], ["r2/t0", "t0", "r2"]]


@pytest.mark.parametrize(("answer", "message"), [
    (AnswerRow("r1/t0", "t0", "r1", (), (), line=4), "a.jsonl:4: answer 'r1/t0' is already"),
    (AnswerRow("x", "t7", "r1", (), (), line=5), "a.jsonl:5: campaign '{c}' has no topic 't7'"),
])
def test_a_bad_answer_stores_nothing(engine, campaign, answer, message):
    name, _, _ = campaign
    with pytest.raises(InputError, match=re.escape(message.format(c=name))), \
            session_scope(engine) as session:
        store.import_rag_answers(session, campaign=name, path="a.jsonl", answers=[
            AnswerRow("new", "t1", "r3", (), (), line=3), answer])
    with session_scope(engine, readonly=True) as session:
        assert len(store.answer_texts(session, campaign=name)) == 2


def test_assignments_latest_version_decides_and_inactive_nuggets_drop_out(engine, campaign):
    name, _, tokens = campaign
    ann = Credential("token", tokens["ann"])
    with session_scope(engine) as session:
        assert store.import_nugget_assignments(session, campaign=name, path="x.jsonl",
                                               assessor="gpt", label_sources=["gpt"], rows=[
            AssignmentRow("t0", "r1", None, "Python is interpreted", "support", None, 1),
            AssignmentRow("t0", "r1", "r1/t0", 'It has "dynamic" typing', "partial_support",
                          None, 1),
            AssignmentRow("t0", "r2", None, "Python is interpreted", "not_support", "gpt", 2),
        ]) == 3
        assert store.record_nugget_assignment(session, credential=ann, campaign=name,
                                              answer="r1/t0", nugget="t0-1",
                                              label="partial_support", seconds=2.5) == 1
        assert store.record_nugget_assignment(session, credential=ann, campaign=name,
                                              answer="r1/t0", nugget="t0-1",
                                              label="support") == 2
    with session_scope(engine, readonly=True) as session:
        cells = store.nugget_cells(session, campaign=name)
    assert cells[["answer", "nugget", "assessor", "label"]].values.tolist() == [
        ["r1/t0", "t0-1", "ann", "support"], ["r1/t0", "t0-1", "gpt", "support"],
        ["r1/t0", "t0-2", "gpt", "partial_support"], ["r2/t0", "t0-1", "gpt", "not_support"]]
    with session_scope(engine) as session:
        store.delete_nugget(session, credential=ann, campaign=name, key="t0-2")
        cells = store.nugget_cells(session, campaign=name)
    assert "t0-2" not in set(cells["nugget"])


@pytest.mark.parametrize(("row", "message"), [
    (AssignmentRow("t0", "r9", None, "Python is interpreted", "support", "gpt", 3),
     "x.jsonl:3: run 'r9' has no answers to topic 't0'"),
    (AssignmentRow("t0", "r1", "r2/t0", "Python is interpreted", "support", "gpt", 4),
     "x.jsonl:4: answer 'r2/t0' is run 'r2''s answer"),
    (AssignmentRow("t0", "r1", "zz", "Python is interpreted", "support", "gpt", 5),
     "x.jsonl:5: no answer 'zz'"),
    (AssignmentRow("t0", "r1", None, "Unknown fact", "support", "gpt", 6),
     "x.jsonl:6: topic 't0' has no active nugget 'Unknown fact'"),
    (AssignmentRow("t0", "r1", None, "Python is interpreted", "support", "mallory", 7),
     "x.jsonl:7: campaign '{c}' has no annotator 'mallory'"),
    (AssignmentRow("t0", "r1", None, "Python is interpreted", "support", None, 8),
     "x.jsonl:8: no assessor"),
])
def test_a_bad_assignment_stores_nothing(engine, campaign, row, message):
    name, _, _ = campaign
    good = AssignmentRow("t0", "r1", None, "Python is interpreted", "support", "gpt", 2)
    with pytest.raises(InputError, match=re.escape(message.format(c=name))), \
            session_scope(engine) as session:
        store.import_nugget_assignments(session, campaign=name, rows=[good, row],
                                        path="x.jsonl", label_sources=["gpt"])
    with session_scope(engine, readonly=True) as session:
        assert store.nugget_cells(session, campaign=name).empty
        assert "gpt" not in set(store.list_annotators(session, campaign=name)["name"])


def test_a_person_cannot_label_an_unknown_cell(engine, campaign):
    name, _, tokens = campaign
    ann = Credential("token", tokens["ann"])
    for answer, nugget, label in (("r1/t0", "custom", "support"), ("zz", "t0-1", "support"),
                                  ("r1/t0", "t0-1", "maybe")):
        with pytest.raises(InputError), session_scope(engine) as session:
            store.record_nugget_assignment(session, credential=ann, campaign=name,
                                           answer=answer, nugget=nugget, label=label)


def test_post_editing_counts_what_people_made_of_a_model_bank(engine, campaign):
    from pooljudge.annotate.post_editing import post_editing

    name, _, tokens = campaign
    ann = Credential("token", tokens["ann"])
    with session_scope(engine) as session:
        store.import_nuggets(session, campaign=name, rows=[
            NuggetRow("t1", "kept as it was", "okay"), NuggetRow("t1", "to merge", "okay"),
            NuggetRow("t1", "to edit", "vital")])
        store.add_nugget(session, credential=ann, campaign=name, topic="t0", text="mine",
                         importance="vital")
        store.merge_nuggets(session, credential=ann, campaign=name, keys=["t1-3"],
                            into="custom")
        store.edit_nugget(session, credential=ann, campaign=name, key="t1-4", text="edited")
        store.edit_nugget(session, credential=ann, campaign=name, key="t0-2", text="again")
        store.delete_nugget(session, credential=ann, campaign=name, key="t0-2")
        history = store.nugget_history(session, campaign=name)
    table = post_editing(history).set_index("topic")
    assert table.drop(columns="kept_share").to_dict("index") == {
        "t0": {"model_nuggets": 2, "kept": 1, "edited": 0, "merged": 0, "deleted": 1,
               "added": 1},
        "t1": {"model_nuggets": 3, "kept": 1, "edited": 1, "merged": 1, "deleted": 0,
               "added": 1},
        "all": {"model_nuggets": 5, "kept": 2, "edited": 1, "merged": 1, "deleted": 1,
                "added": 2}}
    assert table["kept_share"].tolist() == [0.5, 1 / 3, 0.4]
