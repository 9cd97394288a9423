"""The least a Streamlit page can do per key press: the UI latency benchmark's baseline.

It shows what the judging page shows for the benchmark's documents (a topic line, then an id, a
title and the same 1,480-character text, each part marked with its pair like the pane's) with
one button per binary label and the label's digit as shortcut; a press only counts up in
``st.session_state`` and the script runs again. No database, no login, no fragment: the time
from key press to the next document visible here is Streamlit's own floor, served with the same
flags as ``pooljudge serve`` (``benchmarks/ui_latency.py``, ``benchmarks/pane_latency.py``).
"""

import html

import streamlit as st

TEXT = "Some text about latency and widgets. " * 40
shown = st.session_state.setdefault("shown", 1)


def _next() -> None:
    st.session_state["shown"] += 1


st.html(f'<div data-pj-pair="{shown}" data-pj-part="topic">Topic 1: widgets latency</div>')
st.html(f'<div data-pj-pair="{shown}" data-pj-part="document">'
        f'<div class="pj-doc-id">Document d{shown}</div>'
        f"<h3>A document</h3><div>{html.escape(TEXT)}</div></div>")
for value, name in ((0, "Not relevant"), (1, "Relevant")):
    st.button(name, key=f"label_{shown}_{value}", shortcut=str(value), on_click=_next)
