"""Names from uploads render as literal text: the escaping helpers of pooljudge.annotate.ui.render.

Each trap is checked with a CommonMark + GFM parser and the rewrites Streamlit applies to text
after Markdown escapes are resolved (the ``inert`` fixture): escaped, it becomes no element and
reads exactly as written (runs of whitespace as one space); unescaped, the same parser does turn
it into something, so every check here can fail.
"""

from __future__ import annotations

import re

import pytest
from pooljudge.annotate.ui.render import JOINER, caption_html, keys_html, md_escape, text_html

TRAPS = {
    "md-link": "ann [x](http://evil.example/a)",
    "md-image": "![i](http://evil.example/i.png)",
    "reference-link": "[x]\n\n[x]: http://evil.example/a",
    "angle-autolink": "<http://evil.example/a>",
    "bare-http": "http://evil.example/a",
    "bare-https": "see https://evil.example/a now",
    "www": "www.evil.example",
    "www-upper": "go to WWW.EVIL.EXAMPLE",
    "mailto": "mailto:someone@evil.example",
    "email": "someone@evil.example",
    "a-href": '<a href="http://evil.example/a">a</a>',
    "img-onerror": "<img src=x onerror=alert(1)>",
    "script": "<script>alert(1)</script>",
    "color-directive": ":red[x]",
    "help-directive": ":help[x]",
    "material-icon": ":material/home:",
    "material-icon-underscore": ":material_home:",
    "logo": "the :streamlit: logo",
    "emoji": ":smile:",
    "math": "$x$",
    "display-math": "$$x$$",
    "heading": "# heading",
    "heading-after-newline": "name\n# heading",
    "newlines-and-list": "line one\nline two\n\n- item",
    "backticks": "`code` ``x``",
    "fence": "```\ncode\n```",
    "indented-code": "    indented code",
    "emphasis": "*em* _em_ **strong** ~~gone~~",
    "table": "| a | b |\n|---|---|\n| 1 | 2 |",
    "ordered-list": "1. first",
    "quote": "> quoted",
    "entities": "&amp; &#60;b&#62;",
    "pre-escaped": "a\\[x\\](http://evil.example/a)",
    "typography": "a -> b <- c -- d >= e",
}
CASES = [pytest.param(text, id=name) for name, text in TRAPS.items()]


def _literal(text: str) -> str:
    return " ".join(text.split())


@pytest.mark.parametrize("text", CASES)
def test_md_escape_becomes_no_element_and_reads_as_written(text: str, inert) -> None:
    shown = inert.markdown(md_escape(text))
    assert shown.elements == ()
    assert shown.text == _literal(text)


@pytest.mark.parametrize("text", CASES)
def test_each_trap_does_become_something_unescaped(text: str, inert) -> None:
    shown = inert.markdown(text)
    assert shown.elements or shown.text != _literal(text)


@pytest.mark.parametrize(("text", "kind"), [
    ("http://evil.example/a", "autolink"), ("www.evil.example", "autolink"),
    ("someone@evil.example", "email autolink"), (":streamlit:", "logo image"),
    (":smile:", "shortcode"), ("a -> b", "typography")])
def test_backslash_escapes_alone_do_not_stop_rewrites_of_the_text(text: str, kind: str,
                                                                   inert) -> None:
    """The defect: every punctuation mark escaped, yet the resolved text is rewritten."""
    escaped_only = re.sub(r"([!-/:-@\[-`{-~])", r"\\\1", text)
    assert kind in inert.markdown(escaped_only).elements
    assert kind not in inert.markdown(md_escape(text)).elements


@pytest.mark.parametrize(("text", "expected"), [
    ("http://evil.example/a", f"http\\:{JOINER}\\/\\/evil\\.example\\/a"),
    ("WWW.evil.example", f"WWW{JOINER}\\.evil\\.example"),
    ("someone@evil.example", f"someone{JOINER}\\@evil\\.example"),
    (":red[x]", f"\\:{JOINER}red\\[x\\]"),
    ("a -> b", f"a \\-{JOINER}\\> b"),
    ("line one\n  line two ", "line one line two"),
    ("plain name 42", "plain name 42"),
])
def test_md_escape_exact_output(text: str, expected: str) -> None:
    assert md_escape(text) == expected


@pytest.mark.parametrize("text", CASES)
@pytest.mark.parametrize("helper", [
    pytest.param(lambda t: caption_html(t), id="caption_html"),
    pytest.param(lambda t: caption_html(t, css_class="x"), id="caption_html-class"),
    pytest.param(lambda t: text_html(t, ["evil", "script"]), id="text_html"),
    pytest.param(lambda t: keys_html([("1", t), (t, "skip")]), id="keys_html")])
def test_html_helpers_keep_the_text_and_add_only_their_tags(text: str, helper, inert) -> None:
    shown = inert.html(helper(text))
    assert shown.elements == ()
    assert _literal(text) in _literal(shown.text)
