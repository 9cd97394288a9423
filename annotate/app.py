"""The Streamlit app: log in from ``?token=``, then route to the pages the person's role allows.

Page files live in ``app_pages/``, not ``pages/``: Streamlit treats a ``pages/`` folder beside
the main script as legacy multipage routes, which bypass this router on a direct page URL.

Run it with ``pooljudge serve`` (or ``streamlit run annotate/app.py``); the database is
``$POOLJUDGE_DB``. Annotators judge; adjudicators also adjudicate; admins see every page.
"""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from annotate.ui.render import STYLE, md_escape
from annotate.ui.session import login, show_login_problem

_PAGES = Path(__file__).resolve().parent / "app_pages"

# (file, title, icon, url path, roles that see it); the first visible page is the default.
_ROUTES: tuple[tuple[str, str, str, str, frozenset[str]], ...] = (
    ("judge.py", "Judge", ":material/gavel:", "judge",
     frozenset({"annotator", "adjudicator", "admin"})),
    ("adjudicate.py", "Adjudicate", ":material/balance:", "adjudicate",
     frozenset({"adjudicator", "admin"})),
    ("overview.py", "Overview", ":material/monitoring:", "overview", frozenset({"admin"})),
    ("agreement.py", "Agreement", ":material/handshake:", "agreement", frozenset({"admin"})),
    ("export.py", "Export", ":material/download:", "export", frozenset({"admin"})),
    ("evaluate.py", "Evaluate runs", ":material/leaderboard:", "evaluate", frozenset({"admin"})),
    ("create.py", "New campaign", ":material/add_circle:", "create", frozenset({"admin"})),
    ("people.py", "People", ":material/group:", "people", frozenset({"admin"})),
)


def main() -> None:
    st.set_page_config(page_title="pooljudge", page_icon=":material/fact_check:", layout="wide")
    st.html(STYLE)
    user = login()
    if user is None:
        st.navigation([st.Page(show_login_problem, title="Log in", url_path="login")],
                      position="hidden").run()
        return
    pages = [
        st.Page(_PAGES / name, title=title, icon=icon, url_path=path, default=index == 0)
        for index, (name, title, icon, path, roles) in enumerate(
            r for r in _ROUTES if user.role in r[4])
    ]
    with st.sidebar:
        st.caption(f"{md_escape(user.name)} · {user.role} · "
                   f"campaign **{md_escape(user.campaign_name)}**")
    st.navigation(pages, position="sidebar" if len(pages) > 1 else "hidden").run()


main()
