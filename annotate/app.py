"""The Streamlit app: log in (session cookie or ``?token=``), then route to the pages the
person's roles allow (the widest role they hold in any campaign; each admin page then offers
only the campaigns where they hold its role, :func:`pooljudge.annotate.ui.admin.pick_campaign`).

Page files live in ``app_pages/``, not ``pages/``: Streamlit treats a ``pages/`` folder beside
the main script as legacy multipage routes, which bypass this router on a direct page URL.

Run it with ``pooljudge serve`` (or ``streamlit run annotate/app.py``); the database is
``$POOLJUDGE_DB``. Which roles see which page is one table, :mod:`pooljudge.annotate.ui.routes`:
annotators judge; adjudicators also adjudicate; admins see every page. A login link opens the
person's home page (:func:`pooljudge.annotate.ui.routes.home_route`): Judge, or Overview for an
admin.
"""

from __future__ import annotations

import streamlit as st
from pooljudge.annotate.ui import keys
from pooljudge.annotate.ui.faults import storage_faults_shown
from pooljudge.annotate.ui.render import STYLE, caption_html
from pooljudge.annotate.ui.routes import ICON, PAGES, ROUTES, home_route
from pooljudge.annotate.ui.session import (
    login,
    logout,
    nugget_features,
    roles,
    show_login_problem,
    top_role,
)
from pooljudge.annotate.ui.upload_gate import admit


def main() -> None:
    st.set_page_config(page_title="pooljudge", page_icon=str(ICON), layout="wide")
    st.html(STYLE)
    with storage_faults_shown():  # a lost connection, a deleted file: a notice, then a retry
        _route()


def _route() -> None:
    """Log in, then run the page the address names among those the role may see."""
    user = login()
    admit(user)  # only an admin's session may upload (pooljudge.annotate.asgi_app)
    if user is None:
        st.navigation([st.Page(show_login_problem, title="Log in", url_path="login")],
                      position="hidden").run()
        return
    pages = _pages(top_role(user), nugget_features(user))
    with st.sidebar:  # names come from uploads: escaped HTML, never Markdown
        st.html(caption_html(f"{user.name} · {user.role} · campaign {user.campaign_name}",
                             css_class="pj-identity"))
        others = [f"{role} of {name}" for name, role in roles().items()
                  if name != user.campaign_name]
        if others:
            st.html(caption_html("Also " + ", ".join(others), css_class="pj-identity"))
        st.button("Log out", icon=":material/logout:", key=keys.LOGOUT, on_click=logout)
    shown = sum(page.visibility == "visible" for page in pages)
    st.navigation(pages, position="sidebar" if shown > 1 else "hidden").run()


def _pages(role: str, features: frozenset[str]) -> list[st.Page]:
    """The pages ``role`` may see, in menu order, less those that need what the campaign lacks
    (``features``: the nugget panes without answers and nuggets). The root URL (a login link)
    opens the role's home page: the first page, or else a hidden landing page that switches to
    the home page at its own URL (so every page keeps its address, whoever's home it is)."""
    routes = [route for route in ROUTES
              if role in route.roles and (not route.needs or route.needs in features)]
    home = home_route(role)
    pages = {route: st.Page(PAGES / route.file, title=route.title, icon=route.icon,
                            url_path=route.url_path, default=route == home == routes[0])
             for route in routes}
    if home == routes[0]:
        return list(pages.values())

    def landing() -> None:
        st.switch_page(pages[home], query_params=st.query_params.to_dict())

    return [st.Page(landing, title=home.title, url_path="home", default=True,
                    visibility="hidden"), *pages.values()]


main()
