"""render: untrusted text comes out inert, with only our own tags, and terms are marked."""

from __future__ import annotations

import html
import re
from html.parser import HTMLParser

import pytest
from pooljudge.annotate.ui.render import (
    JOINER,
    document_html,
    highlight,
    md_escape,
    query_terms,
    text_html,
)


class _Tags(HTMLParser):
    """Collects every start tag and its attributes, as a browser's parser would see them."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, list[tuple[str, str | None]]]] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, attrs))


def _tags(markup: str) -> list[tuple[str, list[tuple[str, str | None]]]]:
    parser = _Tags()
    parser.feed(markup)
    return parser.tags


HOSTILE = [
    pytest.param('<script>alert("x")</script>', id="script"),
    pytest.param('<img src=x onerror="alert(1)">', id="img-onerror"),
    pytest.param("<a href='javascript:alert(1)'>go</a>", id="javascript-url"),
    pytest.param('"><svg onload=alert(1)>', id="attribute-breakout"),
    pytest.param("<style>body{display:none}</style>", id="style"),
    pytest.param("<iframe src=//evil></iframe>", id="iframe"),
]


@pytest.mark.parametrize("payload", HOSTILE)
def test_hostile_document_renders_only_our_tags(payload: str) -> None:
    markup = document_html(f"title {payload}", f"intro {payload} alert onerror script", ["alert"])
    tags = _tags(markup)
    assert {tag for tag, _ in tags} <= {"div", "mark"}
    assert all(name == "class" for _, attrs in tags for name, _ in attrs)


def test_terms_that_look_like_entities_do_not_break_escaping() -> None:
    markup = highlight('a & b < c "quot" amp lt', ["amp", "quot", "lt"])
    assert "&amp;" in markup and "&lt;" in markup
    assert markup.count("<mark>") == 3
    assert re.sub(r"</?mark>", "", markup) == 'a &amp; b &lt; c &quot;quot&quot; amp lt'


@pytest.mark.parametrize(
    ("text", "terms", "expected"),
    [
        pytest.param("String Formatting rules", ["format"], "String <mark>Formatting</mark> rules",
                     id="prefix-case-insensitive"),
        pytest.param("reformat this", ["format"], "reformat this", id="word-start-only"),
        pytest.param("no terms here", [], "no terms here", id="no-terms"),
        pytest.param("testing tests", ["test", "testing"],
                     "<mark>testing</mark> <mark>tests</mark>", id="longest-first"),
        pytest.param("axb a.b+c", ["a.b"], "axb <mark>a.b</mark>+c", id="regex-chars-literal"),
    ],
)
def test_highlight(text: str, terms: list[str], expected: str) -> None:
    assert highlight(text, terms) == expected


def test_query_terms_drop_stop_words_and_short_words_keep_order() -> None:
    assert query_terms("How do I parse the command line", "parse it") == (
        "parse", "command", "line")


def test_text_html_keeps_text_and_escapes() -> None:
    assert text_html("x <b>", ["x"]) == '<div class="pj-text"><mark>x</mark> &lt;b&gt;</div>'


MARKDOWN_TRAPS = [
    "[x](http://evil)", "![i](http://evil/i.png)", "# heading", "**bold** _it_ `code`",
    "<b>raw</b>", "$x^2$", ":red[red] :material/home:", "1. list", "- item", "a\\b",
    "line one\nline two", "| a | b |",
]


@pytest.mark.parametrize("text", MARKDOWN_TRAPS)
def test_md_escape_renders_literally(text: str) -> None:
    """CommonMark (markdown-it, the reference parser family) renders the escaped text as one
    paragraph of exactly the original characters (line breaks as spaces): no link, image,
    heading, emphasis, code, list or raw HTML."""
    from markdown_it import MarkdownIt

    rendered = MarkdownIt("commonmark").enable("table").render(md_escape(text))
    literal = " ".join(text.split())
    rendered = rendered.replace(JOINER, "")  # md_escape's invisible marks against autolinks
    assert rendered == f"<p>{html.escape(literal, quote=False)}</p>\n"
