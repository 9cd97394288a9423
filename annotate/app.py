"""The Streamlit app: log in from ``?token=``, then route to the pages the person's role allows.

Page files live in ``app_pages/``, not ``pages/``: Streamlit treats a ``pages/`` folder beside
the main script as legacy multipage routes, which bypass this router on a direct page URL.

Run it with ``pooljudge serve`` (or ``streamlit run annotate/app.py``); the database is
``$POOLJUDGE_DB``. Which roles see which page is one table, :mod:`annotate.ui.routes`:
annotators judge; adjudicators also adjudicate; admins see every page.
"""

from __future__ import annotations

import streamlit as st

from annotate.ui.render import STYLE, caption_html
from annotate.ui.routes import PAGES, ROUTES
from annotate.ui.session import login, show_login_problem


def main() -> None:
    st.set_page_config(page_title="pooljudge", page_icon=":material/fact_check:", layout="wide")
    st.html(STYLE)
    user = login()
    if user is None:
        st.navigation([st.Page(show_login_problem, title="Log in", url_path="login")],
                      position="hidden").run()
        return
    pages = [
        st.Page(PAGES / route.file, title=route.title, icon=route.icon,
                url_path=route.url_path, default=index == 0)
        for index, route in enumerate(r for r in ROUTES if user.role in r.roles)
    ]
    with st.sidebar:  # names come from uploads: escaped HTML, never Markdown
        st.html(caption_html(f"{user.name} · {user.role} · campaign {user.campaign_name}",
                             css_class="pj-identity"))
    st.navigation(pages, position="sidebar" if len(pages) > 1 else "hidden").run()


main()
