"""pooljudge.annotate.highlight: which words terms mark (stems, prefixes, phrases), and the marked
HTML
(escape first, then mark)."""

from __future__ import annotations

import unicodedata
from html.parser import HTMLParser

import pytest
from pooljudge.annotate import highlight
from pooljudge.annotate.highlight import Matcher, spans, topic_terms
from pooljudge.annotate.ui.render import document_html
from pooljudge.annotate.ui.render import highlight as highlight_html


def _marked(text: str, terms: list[str]) -> list[str]:
    return [text[a:b] for a, b in spans(text, terms)]


@pytest.mark.parametrize(("terms", "text", "expected"), [
    pytest.param(["format"], "Formatting formats formatted format reformat form formal",
                 ["Formatting", "formats", "formatted", "format"], id="format-prefix"),
    pytest.param(["parser"], "parsing parse parses parsers parsed spar",
                 ["parsing", "parse", "parses", "parsers", "parsed"], id="parser-stem"),
    pytest.param(["parsing"], "the parser parses", ["parser", "parses"], id="parsing-stem"),
    pytest.param(["retrieval"], "retrieve retrieved retrieving", ["retrieve", "retrieved",
                                                                  "retrieving"], id="same-stem"),
    pytest.param(["FORMAT"], "FORMATTING Formatting formatting",
                 ["FORMATTING", "Formatting", "formatting"], id="case-insensitive"),
    pytest.param(["ai", "in"], "AI aim in information Ai", ["AI", "in", "Ai"], id="short-whole"),
    pytest.param(["for"], "for format forest", ["for", "format", "forest"], id="three-prefix"),
    pytest.param([], "nothing here", [], id="no-terms"),
    pytest.param(["  ", "--"], "-- anything", [], id="wordless-terms"),
])
def test_words(terms, text, expected) -> None:
    assert _marked(text, terms) == expected


@pytest.mark.parametrize(("terms", "text", "expected"), [
    pytest.param(["information retrieval"],
                 "information retrieval, Information\n\t Retrieval; information, retrieval; "
                 "information and retrieval; retrieval information",
                 ["information retrieval", "Information\n\t Retrieval"], id="adjacent-only"),
    pytest.param(['"Information Retrieval"'], "informational retrieving",
                 ["informational retrieving"], id="phrase-words-by-stem"),
    pytest.param(["node.js"], "node.js node js node . js node-js",
                 ["node.js", "node . js"], id="punctuation-as-written"),
    pytest.param(["information retrieval", "retrieval systems"],
                 "information retrieval systems", ["information retrieval systems"],
                 id="overlapping-merged"),
    pytest.param(["retrieval", "information retrieval"], "information retrieval",
                 ["information retrieval"], id="word-inside-phrase"),
    pytest.param(["a b c"], "a b a b c", ["a b c"], id="restart-inside"),
])
def test_phrases(terms, text, expected) -> None:
    assert _marked(text, terms) == expected


@pytest.mark.parametrize(("terms", "text", "expected"), [
    pytest.param(["café"], "Cafés CAFÉ cafe", ["Cafés", "CAFÉ"], id="accents"),
    pytest.param(["café"], unicodedata.normalize("NFD", "Café au lait"),
                 [unicodedata.normalize("NFD", "Café")], id="decomposed-text"),
    pytest.param(["поиск"], "Поиска и поиск", ["Поиска", "поиск"], id="cyrillic"),
    pytest.param(["東京"], "東京都 と 東京", ["東京"], id="cjk-short-whole-word"),
    pytest.param(["東京都庁"], "東京都庁舎", ["東京都庁舎"], id="cjk-prefix"),
    pytest.param(["straße"], "Straßen", ["Straßen"], id="sharp-s"),
])
def test_unicode(terms, text, expected) -> None:
    assert _marked(text, terms) == expected


def test_topic_terms_drop_stop_and_short_words_and_keep_quoted_phrases() -> None:
    assert topic_terms('How do I parse the "Command  Line"?', "parse it, \u201cTo be\u201d",
                       'an "unmatched quote') == (
        "command line", "parse", "to be", "unmatched", "quote")
    assert topic_terms("") == ()
    assert topic_terms("Find documents about widgets.",
                       "A relevant document must discuss a widget's cost") == (
        "widgets", "widget", "cost")                    # the topic boilerplate is left out


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)

    def handle_data(self, data):
        self.text.append(data)


@pytest.mark.parametrize("terms", [["script"], ["<script>"], ["</mark><script>"],
                                   ["alert(1)"], ["amp", "lt"], ['"onload']])
def test_escape_first_then_mark(terms) -> None:
    text = 'A <script>alert(1)</script> &amp; <img src=x onerror="x"> & lt "onload'
    markup = highlight_html(text, terms)
    reader = _Tags()
    reader.feed(markup)
    assert set(reader.tags) <= {"mark"}
    assert bool(reader.tags) is ("mark" not in terms[0])
    assert "".join(reader.text) == text
    doc = _Tags()
    doc.feed(document_html(f"title {text}", text, terms))
    assert set(doc.tags) <= {"div", "mark"}


def test_each_distinct_word_is_stemmed_once(monkeypatch) -> None:
    calls: list[str] = []
    real = highlight._stem.__wrapped__
    monkeypatch.setattr(highlight, "_stem", lambda w: calls.append(w) or real(w))
    matcher = Matcher(["parser", "information retrieval"])
    calls.clear()
    text = " ".join(["parsing information retrieval words"] * 5000)
    assert len(matcher.spans(text)) == 10000
    assert sorted(calls) == ["information", "parsing", "retrieval"]  # no term starts "wo"
    matcher.spans(text)
    assert len(calls) == 3  # the next text reuses the word cache


def test_many_matched_words_give_the_same_spans_as_few() -> None:
    words = [f"form{chr(97 + i % 26)}{chr(97 + i // 26 % 26)}" for i in range(300)]
    text = " ".join([*words, "x", "formula", "reform"])
    many = spans(text, ["form"])                         # 301 distinct words matched
    assert [text[a:b] for a, b in many] == [*words, "formula"]
    few = spans(" ".join(words[:50]), ["form"])
    assert len(few) == 50
