"""Shared AppTest fixtures: a fresh SQLite database for the app, opening a page as a person,
small two-topic collections, and the parsers that tell whether a string shown by Streamlit
becomes an element (link, image, HTML, icon …) or stays the text it was."""

from __future__ import annotations

import functools
import importlib.util
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path
from types import SimpleNamespace

import pandas as pd
import pytest
from pooljudge.annotate.store import database_url, open_engine
from sqlalchemy import Engine
from streamlit.runtime.memory_media_file_storage import MemoryMediaFileStorage
from streamlit.testing.v1 import AppTest

from tests.support.guidelines import acknowledge_for

APP = str(Path(__file__).resolve().parents[3] / "annotate" / "app.py")


@pytest.fixture
def app_db(tmp_path, monkeypatch) -> Iterator[Engine]:
    """A migrated SQLite database in ``tmp_path``, the one the app opens ($POOLJUDGE_DB)."""
    url = f"sqlite:///{tmp_path / 'app.db'}"
    monkeypatch.setenv("POOLJUDGE_DB", url)
    engine = open_engine(url)
    yield engine
    engine.dispose()


@pytest.fixture
def open_page() -> Callable[..., AppTest]:
    """``open_page(token, page=None, timeout=30, read_guidelines=True)``: the app logged in
    with ``token`` and, when ``page`` is given, switched to ``app_pages/<page>.py``; fails on
    any exception shown. The person has read the current guidelines unless
    ``read_guidelines`` is False (the gate's own tests)."""
    def open_(token: str, page: str | None = None, *, timeout: float = 30,
              read_guidelines: bool = True) -> AppTest:
        if read_guidelines:
            engine = open_engine(database_url())
            acknowledge_for(engine, token)
            engine.dispose()
        at = AppTest.from_file(APP, default_timeout=timeout)
        at.query_params["token"] = token
        at.run()
        if page is not None:
            at.switch_page(f"app_pages/{page}.py").run()
        assert not at.exception, [e.value for e in at.exception]
        return at
    return open_


@pytest.fixture
def downloads(monkeypatch) -> dict[str, bytes]:
    """The bytes each download button offers, by file name (recorded as the app stores them:
    AppTest drops its media storage after every run)."""
    offered: dict[str, bytes] = {}
    original = MemoryMediaFileStorage.load_and_get_id

    def record(self, path_or_data, mimetype, kind, filename=None):
        if filename is not None and isinstance(path_or_data, bytes | str):
            offered[filename] = (path_or_data.encode() if isinstance(path_or_data, str)
                                 else path_or_data)
        return original(self, path_or_data, mimetype, kind, filename)

    monkeypatch.setattr(MemoryMediaFileStorage, "load_and_get_id", record)
    return offered


def two_topic_collection(docs: Mapping[str, str], text: str) -> dict[str, pd.DataFrame]:
    """Topics 7 (widgets) and 8 (gadgets), documents ``docs`` (id -> topic) with titles
    ``Title <id>`` and texts ``<text> <id>``, and a pool in that order (run r1)."""
    ids = list(docs)
    documents = pd.DataFrame({"id": ids, "title": [f"Title {d}" for d in ids],
                              "text": [f"{text} {d}" for d in ids]})
    topics = pd.DataFrame({"id": ["7", "8"], "title": ["widgets", "gadgets"],
                           "description": "d", "narrative": "n"})
    pool = pd.DataFrame({"topic": list(docs.values()), "doc": ids,
                         "order": range(1, len(ids) + 1), "best_rank": range(1, len(ids) + 1),
                         "runs": "r1"})
    return {"topics": topics, "documents": documents, "pool": pool}


@pytest.fixture
def collection() -> Callable[[Mapping[str, str], str], dict[str, pd.DataFrame]]:
    """:func:`two_topic_collection`, for test modules (conftest functions are not importable)."""
    return two_topic_collection


# --- what Streamlit makes of a string: the hostile-name tests' parser -----------------------------

JOINER = "\u2060"
# Rewrites that run on text *after* Markdown escapes are resolved (so escaping cannot stop them):
# remark-gfm's autolink literals (stricter here: no check of the character before or of the
# domain), Streamlit's logo, emoji and icon shortcodes, and its typography.
_TEXT_REWRITES = {
    "autolink": re.compile(r"(?:https?://|www\.)[-.\w]", re.IGNORECASE | re.ASCII),
    "email autolink": re.compile(r"[-.\w+]@[-\w]+\.[-\w]", re.ASCII),
    "logo image": re.compile(r":streamlit:"),
    "shortcode": re.compile(r":[\w+-][\w+-]*:"),
    "typography": re.compile(r"(?:^|\s)(?:<->|->|<-|--|>=|<=|~=)(?:\s|$)"),
}
# Syntax Streamlit adds to CommonMark, found in the source once escaped characters are removed.
_SOURCE_SYNTAX = {
    "directive": re.compile(r":{1,3}[A-Za-z][\w-]*[\[{:]"),
    "math": re.compile(r"\$"),
}
_ESCAPED = re.compile(r"\\[!-/:-@\[-`{-~]")
# markdown-it token types that are elements a name must never become
_ELEMENTS = {"link_open": "link", "image": "image", "html_inline": "html", "html_block": "html",
             "code_block": "code block", "fence": "code block", "heading_open": "heading",
             "em_open": "emphasis", "strong_open": "emphasis", "s_open": "strikethrough",
             "code_inline": "code", "table_open": "table", "bullet_list_open": "list",
             "ordered_list_open": "list", "blockquote_open": "quote", "hr": "rule"}


@dataclass(frozen=True)
class Rendered:
    """What a reader gets from a string: the elements it became, and the text shown."""

    elements: tuple[str, ...]
    text: str


@functools.cache
def _markdown_parser():
    """CommonMark with GFM tables and strikethrough, raw HTML kept as tokens; GFM autolinks too
    when linkify-it-py is installed (the text rewrites below check them in any case)."""
    from markdown_it import MarkdownIt

    linkify = importlib.util.find_spec("linkify_it") is not None
    rules = ["table", "strikethrough", *(["linkify"] if linkify else [])]
    return MarkdownIt("commonmark", {"html": True, "linkify": linkify}).enable(rules)


def render_markdown(source: str) -> Rendered:
    """``source`` through a CommonMark + GFM parser (markdown-it, raw HTML on, so any tag is
    seen) plus the rewrites Streamlit and remark-gfm apply to its text. Like Streamlit, it
    first turns ``:material/`` into ``:material_`` (an icon shortcode) in the source."""
    source = source.replace(":material/", ":material_")
    found: list[str] = [kind for kind, pattern in _SOURCE_SYNTAX.items()
                        if pattern.search(_ESCAPED.sub("\x00", source))]
    shown: list[str] = []
    for token in _markdown_parser().parse(source):
        found += [_ELEMENTS[token.type]] if token.type in _ELEMENTS else []
        for child in token.children or ():
            found += [_ELEMENTS[child.type]] if child.type in _ELEMENTS else []
            if child.type in ("text", "code_inline"):
                found += [kind for kind, pattern in _TEXT_REWRITES.items()
                          if pattern.search(child.content)]
                shown.append(child.content)
            elif child.type in ("softbreak", "hardbreak"):
                shown.append(" ")
        if token.type in ("html_block", "code_block", "fence"):
            shown.append(token.content)
    return Rendered(tuple(found), "".join(shown).replace(JOINER, ""))


class _HtmlReader(HTMLParser):
    def __init__(self, allowed: frozenset[str]) -> None:
        super().__init__(convert_charrefs=True)
        self.allowed, self.found, self.shown = allowed, [], []

    def handle_starttag(self, tag, attrs):
        if tag not in self.allowed or not all(_own_attribute(n, v) for n, v in attrs):
            self.found.append(f"<{tag} {attrs}>")

    def handle_data(self, data):
        self.shown.append(data)


def _own_attribute(name: str, value: str | None) -> bool:
    """The attributes the app itself writes: a class, ``open`` on the narrative's details, and
    the judging pane's pair marks (a pair id and a part name, never text from an upload)."""
    return (name == "class" or (name == "open" and value is None)
            or (name == "data-pj-part" and value in ("topic", "document"))
            or (name == "data-pj-pair" and value is not None and value.isdigit()))


def render_html(source: str,
                allowed: frozenset[str] = frozenset({"div", "b", "mark", "details", "summary"})
                ) -> Rendered:
    """``source`` as a browser parses it: any tag but ``allowed`` ones (with the app's own
    attributes at most, :func:`_own_attribute`) is an element found; the text is what is shown
    (style sheets left out)."""
    if source.lstrip().startswith("<style>"):
        source = source.split("</style>", 1)[1]
    reader = _HtmlReader(allowed)
    reader.feed(source)
    reader.close()
    return Rendered(tuple(reader.found), "".join(reader.shown))


@pytest.fixture
def inert() -> SimpleNamespace:
    """The parsers above, for test modules (conftest functions are not importable)."""
    return SimpleNamespace(JOINER=JOINER, Rendered=Rendered, markdown=render_markdown,
                           html=render_html)
