"""Safe HTML for untrusted text: escape first, then mark the highlight terms.

Document and topic text come from whoever uploaded the collection, so they are treated as
hostile; so are highlight terms (typed by admins and annotators). Matches are found on the
*raw* text (:mod:`pooljudge.annotate.highlight`: stems, prefixes, phrases) and every piece is
escaped on
its own with :func:`html.escape` (quotes included), so the only tags in the output are the ones
built here (``div``, ``mark``) and a term such as ``amp`` can never split an entity like
``&amp;``.
Long documents scroll inside a frame that fills the rest of the screen, so the label buttons
never move.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable

from pooljudge.annotate.highlight import spans, topic_terms
from pooljudge.annotate.reflow import blocks, flowed
from pooljudge.annotate.ui.keys import GATE_KEY, KEYBOARD, SETTLING

__all__ = [
    "ABOVE_FRAME", "JOINER", "PASSAGE_MARK", "PASSAGE_SCROLL", "STYLE", "body_html",
    "caption_html", "document_html", "duration_text",
    "highlight", "keys_html", "label_line", "legend_html", "md_escape", "query_terms",
    "text_html",
]

# The passage judged, inside its document (a campaign of passages): the only attributes are
# ours, so the browser script (pooljudge.annotate.ui.passage) finds it and nothing in the text can
# fake it.
PASSAGE_MARK = '<mark class="pj-passage">'
# The key of the passage's scrolling script (pooljudge.annotate.ui.passage).
PASSAGE_SCROLL = "pj_passage_scroll"
# Where the document frame starts on the judging page until its script has measured it (see
# pooljudge.annotate.ui.keyboard): the frame takes the rest of the screen, at least 14rem.
ABOVE_FRAME = "19rem"
# CommonMark lets a backslash escape any ASCII punctuation; escaping all of it also disarms
# Streamlit's own syntax ($ math, :color[...] directives).
_MD_SPECIAL = re.compile(r"""([!-/:-@\[-`{-~])""")
# U+2060 WORD JOINER: invisible, no line break, and neither a word character nor whitespace.
JOINER = "\u2060"
# Where a joiner goes so that no rewrite of *resolved* text finds its pattern (see md_escape).
_AFTER = re.compile(r":")                           # http: https: mailto: :smile: :streamlit:
_BEFORE = re.compile(r"@|(?<=[wW]{3})\.")           # someone@example, www.example
_ARROW = re.compile(r"(?<!\S)(?:<->|->|<-|--|>=|<=|~=)(?!\S)")  # Streamlit's typography

# One style block for the app: rendered once per page with st.html (styles only, no content).
# The main area's padding is cut so the judging page fits a 1280x720 screen: buttons and the
# document's start in view, the document scrolling in its own frame (as tall as the screen
# allows, see pooljudge.annotate.ui.keyboard). A long unbroken line (``=====``) wraps inside the
# frame;
# the document's id floats right of its title. The legend floats over the page while <body>
# has the class ``pj-legend-open``; its and the key handler's slots take no room.
STYLE = f"""<style>
[data-testid="stMainBlockContainer"] {{ padding: 2.75rem 1.5rem 1rem; }}
.pj-doc-title {{ margin: 0 0 .4rem 0; font-size: 1.15rem; font-weight: 600; }}
.pj-caption:has(+ .pj-doc) {{ float: right; margin: .2rem 0 0 1rem; }}
.pj-doc-body {{ max-height: max(14rem, calc(100vh - var(--pj-frame-top, {ABOVE_FRAME}) - 1.5rem));
  overflow-y: auto; white-space: pre-wrap; overflow-wrap: anywhere;
  font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: .88rem; line-height: 1.45;
  padding: .6rem .8rem; border: 1px solid rgba(128,128,128,.35); border-radius: .4rem; }}
.pj-text {{ white-space: pre-wrap; overflow-wrap: anywhere; }}
.pj-pre {{ white-space: pre; overflow-x: auto; overflow-wrap: normal; }}
.pj-caption {{ font-size: .85rem; opacity: .7; margin-bottom: .2rem; }}
.pj-doc-body mark, .pj-doc-title mark, .pj-text mark {{
  background: #ffe58a; color: inherit; padding: 0 .1em; }}
.pj-doc-body mark.pj-passage {{ background: rgba(61,111,209,.14); padding: .1em 0;
  box-shadow: 0 0 0 2px rgba(61,111,209,.75); border-radius: .15rem; }}
.st-key-{PASSAGE_SCROLL}, .st-key-{GATE_KEY} {{ position: absolute; width: 0; height: 0;
  overflow: hidden; }}
body.{SETTLING} [data-pj-pair], body.{SETTLING} [class*="st-key-label_"],
body.{SETTLING} [class*="st-key-adjudicate_"] {{ visibility: hidden; }}
body.pj-swapped [class*="st-key-label_"], body.pj-swapped [class*="st-key-skip_"],
body.pj-swapped [class*="st-key-back_"] {{ opacity: .45; }}
.pj-narrative {{ margin-top: .5rem; }} .pj-narrative summary {{ cursor: pointer; opacity: .8; }}
#pj-gate-hint {{ position: fixed; left: 50%; bottom: 1rem; transform: translateX(-50%);
  padding: .3rem .8rem; border-radius: .4rem; background: rgba(49,51,63,.85); color: #fff;
  font-size: .85rem; opacity: 0; transition: opacity .15s; pointer-events: none; z-index: 999999; }}
#pj-gate-hint.pj-gate-hint-on {{ opacity: 1; }}
.st-key-{KEYBOARD}, [data-testid="stElementContainer"]:has(.pj-legend) {{
  position: absolute; width: 0; height: 0; overflow: visible; }}
.pj-legend {{ display: none; position: fixed; right: 1.5rem; bottom: 1.5rem; z-index: 999999;
  max-height: calc(100vh - 3rem); overflow-y: auto; min-width: 22rem; padding: .8rem 1rem;
  background: #fff; color: #31333f; border: 1px solid rgba(49,51,63,.25); border-radius: .5rem;
  box-shadow: 0 .4rem 1.2rem rgba(0,0,0,.18); font-size: .9rem; line-height: 1.6; }}
body.pj-legend-open .pj-legend {{ display: block; }}
.pj-legend-title {{ font-weight: 600; margin-bottom: .3rem; }}
.pj-legend-idle {{ opacity: .45; }}
.pj-legend b {{ display: inline-block; min-width: 1.4em; padding: 0 .35em; margin-right: .15em;
  border: 1px solid rgba(49,51,63,.3); border-radius: .25rem; font-family: ui-monospace,
  monospace; font-size: .82rem; text-align: center; }}
</style>"""


def md_escape(text: str) -> str:
    """``text`` as literal Markdown for Streamlit: shown as exactly its characters, never as a
    link, an image, a heading, an icon or any other element, wherever Streamlit forces Markdown
    (captions, button and widget labels, ``help=`` tooltips, tabs, expanders, headers, alerts).

    Two steps, because escaping alone cannot stop everything:

    1. Every ASCII punctuation mark is backslash-escaped, which CommonMark's parser honours:
       no link, image, emphasis, code, HTML, heading, list or table, and no ``$`` math or
       ``:color[…]`` directive. Runs of whitespace (line breaks included) become one space,
       so no line starts a block and no indentation makes a code block.
    2. Some rewrites run on the text *after* escapes are resolved, so ``http\\://x`` is again
       ``http://x`` to them: GFM's autolink literals in remark-gfm (``http://``, ``https://``,
       ``www.``, e-mail and ``mailto:`` addresses), Streamlit's ``:streamlit:`` logo, emoji
       and ``:material/…:`` icon shortcodes, and its typography (`` -> `` becomes an arrow). A
       :data:`JOINER` (U+2060, invisible) after every ``:``, before every ``@`` and between
       ``www`` and ``.``, and after the first character of a free-standing arrow, breaks each
       of those patterns while the text still reads the same. Copying it copies the joiners.

    For text inside HTML (:func:`caption_html`, :func:`text_html` …) use those instead: HTML
    escaping is exact and needs no joiner.
    """
    flat = " ".join(str(text).split())
    flat = _AFTER.sub(lambda m: m[0] + JOINER, flat)
    flat = _BEFORE.sub(lambda m: JOINER + m[0], flat)
    flat = _ARROW.sub(lambda m: m[0][0] + JOINER + m[0][1:], flat)
    return _MD_SPECIAL.sub(r"\\\1", flat)


def query_terms(*texts: str) -> tuple[str, ...]:
    """The highlight terms of a topic's ``texts``: its quoted phrases and its words minus stop
    words and short words (:func:`pooljudge.annotate.highlight.topic_terms`)."""
    return topic_terms(*texts)


def highlight(text: str, terms: Iterable[str]) -> str:
    """``text`` escaped, with each span that ``terms`` mark wrapped in ``<mark>``.

    Matching (:mod:`pooljudge.annotate.highlight`) is case-insensitive, by prefix from a word's
    start
    (``format`` marks ``formatting``) or by stem (``parser`` marks ``parsing``); a term of
    several words marks them only side by side. Overlapping matches give one mark. With no
    terms the result is just the escaped text.
    """
    return _marked(text, spans(text, terms))


def _marked(text: str, marks: Iterable[tuple[int, int]], offset: int = 0) -> str:
    """``text`` escaped piece by piece, the ``marks`` (spans of a text in which ``text``
    starts at ``offset``, clipped to it) wrapped in ``<mark>``."""
    pieces: list[str] = []
    start = 0
    for begin, end in marks:
        begin, end = max(begin - offset, start), min(end - offset, len(text))
        if begin >= end:
            continue
        pieces.append(html.escape(text[start:begin], quote=True))
        pieces.append(f"<mark>{html.escape(text[begin:end], quote=True)}</mark>")
        start = end
    pieces.append(html.escape(text[start:], quote=True))
    return "".join(pieces)


def body_html(text: str, terms: Iterable[str], passage: tuple[int, int] | None = None) -> str:
    """A document's text escaped and highlighted, hard-wrapped prose flowing and preformatted
    blocks verbatim in a box of their own that scrolls sideways (:mod:`pooljudge.annotate.reflow`).
    Marks are found once on the raw text; flowing keeps every offset.

    ``passage`` (``start, end``: character offsets, ``0 <= start <= end <= len(text)``) is
    wrapped in ``<mark class="pj-passage">``, one per block it crosses, the term marks nested
    inside it; an empty passage is an empty mark where it starts (something to scroll to).
    """
    marks = spans(text, terms)
    pieces = []
    empty = passage is not None and passage[0] == passage[1]
    for block in blocks(text):
        if block.kind == "pre":
            piece = text[block.start:block.end].rstrip("\r\n")
            inner = _passage_marked(piece, marks, block.start, passage, empty)
            pieces.append(f'<div class="pj-pre">{inner}</div>')
        else:
            pieces.append(_passage_marked(flowed(text, block), marks, block.start, passage, empty))
        empty = empty and PASSAGE_MARK not in pieces[-1]  # escaped text never holds a tag
    if empty:  # at the very end, or in a preformatted block's final line break
        pieces.append(PASSAGE_MARK + "</mark>")
    return "".join(pieces)


def _passage_marked(piece: str, marks: list[tuple[int, int]], offset: int,
                    passage: tuple[int, int] | None, empty: bool) -> str:
    """:func:`_marked` of a block's ``piece`` (starting at ``offset``) with its part of the
    ``passage`` wrapped in a passage mark (``empty``: the passage is empty and its mark not
    yet out)."""
    if passage is None:
        return _marked(piece, marks, offset)
    begin = min(max(passage[0] - offset, 0), len(piece))
    end = min(max(passage[1] - offset, 0), len(piece))
    inside = begin < end or (empty and offset <= passage[0] < offset + len(piece))
    if not inside:
        return _marked(piece, marks, offset)
    return (_marked(piece[:begin], marks, offset) + PASSAGE_MARK
            + _marked(piece[begin:end], marks, offset + begin) + "</mark>"
            + _marked(piece[end:], marks, offset + end))


def text_html(text: str, terms: Iterable[str] = ()) -> str:
    """A block of escaped (and highlighted) text that keeps its line breaks."""
    return f'<div class="pj-text">{highlight(text, terms)}</div>'


def pair_part_html(pair_id: int, part: str, inner: str) -> str:
    """``inner`` marked as ``part`` (topic, document) of pair ``pair_id``: the judging pane's gate
    (:mod:`pooljudge.annotate.ui.key_gate`) lets a key act only when every part names one pair."""
    return (f'<div data-pj-pair="{int(pair_id)}" data-pj-part="{html.escape(part, quote=True)}">'
            f"{inner}</div>")


def topic_card_html(topic_id: str, title: str, description: str, narrative: str,
                    terms: Iterable[str] = ()) -> str:
    """The topic card: its id, title and description, then its narrative (open) when it has
    one; all escaped and highlighted, in one piece of HTML (one element: one browser render)."""
    card = (caption_html(f"Topic {topic_id}") + f'<div class="pj-doc-title">{text_html(title)}'
            "</div>" + text_html(description, terms))
    if narrative.strip():
        card += ('<details class="pj-narrative" open><summary>Narrative: what counts as '
                 f"relevant</summary>{text_html(narrative, terms)}</details>")
    return card


def caption_html(text: str, *, css_class: str = "") -> str:
    """A small grey line of escaped text (ids and names from uploads are never Markdown)."""
    extra = f" {css_class}" if css_class else ""
    return f'<div class="pj-caption{extra}">{html.escape(text, quote=True)}</div>'


def keys_html(shortcuts: Iterable[tuple[str, str]]) -> str:
    """The caption ``Keys: k what · …`` of (key, what it does) pairs, each key in bold; all
    escaped (label names come from uploads)."""
    items = " · ".join(f"<b>{html.escape(key, quote=True)}</b> {html.escape(what, quote=True)}"
                       for key, what in shortcuts)
    return f'<div class="pj-caption pj-keys">Keys: {items}</div>'


def legend_html(lines: Iterable[tuple[Iterable[str], str]],
                idle: Iterable[tuple[Iterable[str], str]] = ()) -> str:
    """The key legend: one line per (keys, what they do), each key in bold, then the ``idle``
    lines greyed (keys that do nothing here and now: the list never changes with context); all
    escaped (label names come from uploads). Hidden until ``<body>`` has the class
    ``pj-legend-open``."""
    def row(keys: Iterable[str], what: str, css: str) -> str:
        return (f'<div class="{css}">'
                + " / ".join(f"<b>{html.escape(key, quote=True)}</b>" for key in keys)
                + f" {html.escape(what, quote=True)}</div>")
    rows = "".join(row(keys, what, "pj-legend-row") for keys, what in lines) + "".join(
        row(keys, what, "pj-legend-row pj-legend-idle") for keys, what in idle)
    return f'<div class="pj-legend"><div class="pj-legend-title">Keys</div>{rows}</div>'


def label_line(value: int, name: str, description: str = "") -> str:
    """``value · name``, then ``: description`` only when there is one (no dangling colon)."""
    head = f"{value} · {name}"
    return f"{head}: {description}" if description.strip() else head


def document_html(title: str, text: str, terms: Iterable[str],
                  passage: tuple[int, int] | None = None) -> str:
    """The document's title and its text in a scrolling frame, escaped and highlighted, with
    ``passage`` (offsets in ``text``) marked (see :func:`body_html`)."""
    terms = tuple(terms)
    return (
        f'<div class="pj-doc"><div class="pj-doc-title">{highlight(title, terms)}</div>'
        f'<div class="pj-doc-body">{body_html(text, terms, passage)}</div></div>'
    )


def duration_text(hours: float | None) -> str:
    """``hours`` to the nearest minute (``45 min``, ``2 h 05 min``); ``unknown yet`` for None."""
    if hours is None:
        return "unknown yet"
    minutes = round(hours * 60)
    return f"{minutes // 60} h {minutes % 60:02d} min" if minutes >= 60 else f"{minutes} min"
