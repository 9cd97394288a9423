"""Hard-wrapped prose flows, preformatted text stays: blocks keep the input's offsets."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pooljudge.annotate.reflow import Block, blocks, flowed

WRAPPED = (
    "The committee met on Tuesday to discuss the proposal for a new\n"
    "railway line between the two cities, which has been debated for\n"
    "more than a decade without any decision being reached at all.\n"
    "\n"
    "Signed,\n"
    "The Editor\n"
)


def _shown(text: str) -> list[tuple[str, str]]:
    return [(b.kind, flowed(text, b)) for b in blocks(text)]


def test_wrapped_lines_flow_and_short_lines_keep_their_break() -> None:
    shown = _shown(WRAPPED)
    assert shown[0] == ("prose", WRAPPED.split("\n\n")[0].replace("\n", " ") + "\n")
    assert shown[1] == ("blank", "\n")
    assert [kind for kind, _ in shown[2:]] == ["prose", "prose"]  # "Signed," is short: kept


@pytest.mark.parametrize("table", [
    "Name      Votes   Share\nSmith     1,204   52.1%\nJones     1,107   47.9%\n",
    "==========================================================================\n",
    "    for i in range(10):\n        print(i)\n",
    "- first item of a list that is long enough to look like it was wrapped\n"
    "- second item of the list that is also long enough to be a wrapped line\n",
])
def test_tables_rules_code_and_lists_are_kept_verbatim(table: str) -> None:
    text = WRAPPED + table
    kept = [b for b in blocks(text) if b.kind == "pre"]
    assert len(kept) == 1 and text[kept[0].start:kept[0].end] == table
    assert flowed(text, kept[0]) == table


def test_long_lines_were_not_wrapped_by_hand_and_keep_their_breaks() -> None:
    text = ("word " * 60 + "\n") * 4
    assert all(flowed(text, b) == text[b.start:b.end] for b in blocks(text))


def test_windows_line_ends_flow_too_and_keep_the_length() -> None:
    text = WRAPPED.replace("\n", "\r\n")
    first = blocks(text)[0]
    assert "\r\n" not in flowed(text, first).rstrip("\r\n")


@given(st.text(alphabet=st.sampled_from("ab =-\t\n\r.1)"), max_size=300))
def test_blocks_cover_the_text_and_flowing_keeps_every_offset(text: str) -> None:
    parts = blocks(text)
    assert "".join(text[b.start:b.end] for b in parts) == text
    assert all(isinstance(b, Block) and b.start < b.end for b in parts)
    assert all(len(flowed(text, b)) == b.end - b.start for b in parts)


def test_the_document_frame_flows_prose_keeps_tables_and_escapes_everything() -> None:
    from pooljudge.annotate.ui.render import body_html

    table = "Name      Votes\n<script>x</script>   railway\n"
    shown = body_html(WRAPPED + "\n" + table, ["railway", "editor"])
    first, rest = shown.split('<div class="pj-pre">')
    assert "\n" not in first.split("\n\n")[0]             # the wrapped paragraph is one line
    assert "a new <mark>railway</mark> line" in first      # a mark across a flowed break
    assert "Signed,\nThe <mark>Editor</mark>\n" in first    # a short line keeps its break
    assert rest == ("Name      Votes\n&lt;script&gt;x&lt;/script&gt;   <mark>railway</mark>"
                    "</div>")
    assert "<script>" not in shown
