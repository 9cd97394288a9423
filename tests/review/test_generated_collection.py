"""Generated review collections: the counts asked for, deterministic, readable back."""
from __future__ import annotations

import pandas as pd
import pytest
from pooljudge.pooling.generated_collection import generate_collection

from pooljudge.errors import UsageError
from pooljudge.formats.collection import read_documents, read_topics, write_collection
from pooljudge.formats.trec import read_qrels, write_qrels


def test_each_topic_gets_its_relevant_count_and_its_own_words():
    made = generate_collection(3000, [1, 5, 300], seed=3)
    assert made.documents["id"].is_unique and len(made.documents) == 3000
    assert made.topics["id"].tolist() == ["1", "2", "3"]
    counts = made.qrels.groupby("topic").size()
    assert counts.to_dict() == {"1": 1, "2": 5, "3": 300}
    assert (made.qrels["label"] == 1).all() and not made.qrels.duplicated(["topic", "doc"]).any()
    text = made.documents.set_index("id")["text"]
    for topic, docs in made.qrels.groupby("topic")["doc"]:
        # every relevant document carries a word of its topic; most others do not
        assert text[docs].str.contains(f"k{topic}[a-f]", regex=True).all()
        others = text.drop(docs.to_numpy())
        assert others.str.contains(f"k{topic}[a-f]", regex=True).mean() < 0.1


def test_the_same_seed_makes_the_same_collection():
    one, two = generate_collection(500, [3, 7], seed=9), generate_collection(500, [3, 7], seed=9)
    pd.testing.assert_frame_equal(one.documents, two.documents)
    pd.testing.assert_frame_equal(one.qrels, two.qrels)
    assert not generate_collection(500, [3, 7], seed=10).qrels.equals(one.qrels)


def test_written_files_read_back(tmp_path):
    made = generate_collection(200, [2, 20], seed=1)
    docs, topics = write_collection(made.documents, made.topics, tmp_path / "out")
    write_qrels(made.qrels, tmp_path / "out" / "qrels")
    back = read_documents([docs])
    assert back["id"].tolist() == made.documents["id"].tolist()
    assert back["text"].tolist() == made.documents["text"].tolist()
    assert read_topics(topics)["title"].tolist() == made.topics["title"].tolist()
    assert len(read_qrels(tmp_path / "out" / "qrels")) == 22


@pytest.mark.parametrize(("documents", "relevant", "message"), [
    (0, [1], "at least one document"), (10, [0], "1..10"), (10, [11], "1..10")])
def test_impossible_requests_are_refused(documents, relevant, message):
    with pytest.raises(UsageError, match=message):
        generate_collection(documents, relevant)
