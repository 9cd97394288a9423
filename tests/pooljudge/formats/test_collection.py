"""Topic and document readers: TREC, TSV and JSONL, with path:line errors."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from pooljudge.errors import InputError
from pooljudge.formats.collection import check_pool_members, read_documents, read_topics
from pooljudge.formats.trec import read_pool

TREC_TOPICS = """<top>
<num> Number: 301
<title> International Organized Crime

<desc> Description:
Identify organizations that participate in
international criminal activity.

<narr> Narrative:
A relevant document must name an organization.
</top>

<top>
<num> Number: 302 <title> Polio
<desc> Description: Is it eradicated?
<narr> Narrative: Anything.
</top>
"""

TREC_DOCS = """<DOC>
<DOCNO> FT911-1 </DOCNO>
<HEADLINE>Crime &amp; punishment</HEADLINE>
<TEXT>
Mafia groups <b>operate</b>
across borders.

Second paragraph.
</TEXT>
</DOC>
<DOC>
<DOCNO>FT911-2</DOCNO>
<TEXT>Polio vaccine.</TEXT>
<TEXT>More.</TEXT>
</DOC>
<DOC><DOCNO>LA-3</DOCNO><P>No text tag, only a paragraph.</P></DOC>
"""


def _write(tmp_path, name: str, text: str):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_trec_topics(tmp_path):
    topics = read_topics(_write(tmp_path, "topics.txt", TREC_TOPICS))
    assert topics.to_dict("records") == [
        {"id": "301", "title": "International Organized Crime",
         "description": "Identify organizations that participate in international criminal "
                        "activity.",
         "narrative": "A relevant document must name an organization."},
        {"id": "302", "title": "Polio", "description": "Is it eradicated?",
         "narrative": "Anything."},
    ]


def test_tsv_and_jsonl_topics_agree(tmp_path):
    tsv = _write(tmp_path, "t.tsv", "id\ttitle\tdescription\tnarrative\n01\ta\tb\tc\n\n2\td\t\t\n")
    jsonl = _write(tmp_path, "t.jsonl", '{"id": "01", "title": "a", "description": "b", '
                   '"narrative": "c"}\n{"id": 2, "title": "d"}\n')
    expected = [{"id": "01", "title": "a", "description": "b", "narrative": "c"},
                {"id": "2", "title": "d", "description": "", "narrative": ""}]
    assert read_topics(tsv).to_dict("records") == expected
    assert read_topics(jsonl).to_dict("records") == expected


def test_trec_documents(tmp_path):
    docs = read_documents(_write(tmp_path, "docs.trec", TREC_DOCS))
    assert docs["id"].tolist() == ["FT911-1", "FT911-2", "LA-3"]
    assert docs["title"].tolist() == ["Crime & punishment", "", ""]
    assert docs["text"].tolist() == ["Mafia groups operate across borders.\n\nSecond paragraph.",
                                     "Polio vaccine.\n\nMore.", "No text tag, only a paragraph."]


def test_documents_from_several_files(tmp_path):
    first = _write(tmp_path, "a.jsonl", json.dumps({"id": "d1", "title": "T", "text": "x"}))
    second = _write(tmp_path, "b.tsv", "id\ttext\nd2\ty\n")
    docs = read_documents([first, second])
    assert docs.to_dict("records") == [{"id": "d1", "title": "T", "text": "x"},
                                       {"id": "d2", "title": "", "text": "y"}]
    third = _write(tmp_path, "c.tsv", "id\ttext\nd3\tz\nd1\tagain\n")
    with pytest.raises(InputError, match=r"c\.tsv:3: document d1 also appears in .*a\.jsonl"):
        read_documents([first, third])


@pytest.mark.parametrize(("name", "text", "reader", "where", "message"), [
    ("dup.tsv", "id\ttitle\n1\ta\n2\tb\n1\tc\n", read_topics, 4, "topic 1 listed twice"),
    ("blank.jsonl", '{"id": "1"}\n\n{"id": " "}\n', read_topics, 3, "blank topic id"),
    ("json.jsonl", '{"id": "1"}\n{"id": \n', read_topics, 2, "not valid JSON"),
    ("noid.jsonl", '{"id": "1"}\n{"title": "x"}\n', read_documents, 2, 'with an "id"'),
    ("fields.tsv", "id\ttext\nd1\tx\ty\n", read_documents, 2, "expected 2 tab-separated"),
    ("header.tsv", "doc\ttext\nd1\tx\n", read_documents, 1, "lacks an 'id' column"),
    ("num.txt", "<top>\n<title> x\n</top>\n<top>\n<num> Number: 9\n</top>\n", read_topics, 1,
     "without <num>"),
    ("docno.trec", "<DOC>\n<DOCNO>a</DOCNO>\n</DOC>\n<DOC>\n<TEXT>x</TEXT>\n</DOC>\n",
     read_documents, 4, "without <DOCNO>"),
    ("dupdoc.trec", "<DOC><DOCNO>a</DOCNO></DOC>\n\n<DOC><DOCNO>a</DOCNO></DOC>\n",
     read_documents, 3, "document a listed twice"),
], ids=lambda v: v if isinstance(v, str) and "." in v else None)
def test_bad_files_name_path_and_line(tmp_path, name, text, reader, where, message):
    path = _write(tmp_path, name, text)
    with pytest.raises(InputError, match=message) as caught:
        reader(path)
    assert (caught.value.path, caught.value.line) == (str(path), where)


def test_pool_with_unknown_document_names_its_line(tmp_path):
    pool_path = _write(tmp_path, "pool.tsv", "topic\tdoc\torder\tbest_rank\truns\n"
                       "1\td1\t1\t1\tr\n\n1\td9\t2\t2\tr\n")
    topics = pd.DataFrame({"id": ["1"]})
    documents = pd.DataFrame({"id": ["d1"]})
    pool = read_pool(pool_path)
    with pytest.raises(InputError, match="unknown document d9") as caught:
        check_pool_members(pool, topics, documents, pool_path)
    assert caught.value.line == 4
    with pytest.raises(InputError, match="unknown topic 1"):
        check_pool_members(pool, pd.DataFrame({"id": ["2"]}), documents, pool_path)
    check_pool_members(pool, topics, pd.DataFrame({"id": ["d1", "d9"]}), pool_path)
