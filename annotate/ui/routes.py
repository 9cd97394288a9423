"""The app's pages and the roles that see them: one table for the menu and the pages' checks.

The router (``annotate/app.py``) offers a person only the pages whose roles include theirs, and
every page script checks its own entry again (:func:`pooljudge.annotate.ui.session.require_page`),
so a
page reached some other way still refuses the wrong role. Page files live in ``app_pages/``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from pooljudge.annotate.records import ANNOTATOR_ROLES

__all__ = ["ICON", "NEEDS", "PAGES", "ROUTES", "Route", "home_route", "roles_of"]

PAGES = Path(__file__).resolve().parents[1] / "app_pages"
# The browser tab's icon, served by the app itself (a ``:material/…:`` page icon is fetched
# from a public font server on every page load).
ICON = Path(__file__).resolve().with_name("icon.png")


@dataclass(frozen=True)
class Route:
    """A page: its file in ``app_pages/``, menu title and icon, URL path, allowed roles, the
    roles whose login link opens it (``home_of``), and what the campaign must have for the
    menu to offer it (``needs``, one of :data:`NEEDS`; empty: nothing)."""

    file: str
    title: str
    icon: str
    url_path: str
    roles: frozenset[str]
    home_of: frozenset[str] = frozenset()
    needs: str = ""


_ADMIN = frozenset({"admin"})
# What a page may need (:func:`pooljudge.annotate.ui.session.nugget_features`): "answers": the
# person's own campaign has RAG answers and active nuggets to assign; "rag": a campaign where
# they adjudicate or administer has RAG answers or nuggets (a nugget campaign).
NEEDS = ("answers", "rag")

# The menu's order. A person's default page (what their login link opens) is home_route's.
ROUTES: tuple[Route, ...] = (
    Route("judge.py", "Judge", ":material/gavel:", "judge", frozenset(ANNOTATOR_ROLES)),
    Route("assign.py", "Assign nuggets", ":material/checklist:", "assign",
          frozenset(ANNOTATOR_ROLES), needs="answers"),
    Route("adjudicate.py", "Adjudicate", ":material/balance:", "adjudicate",
          frozenset({"adjudicator", "admin"})),
    Route("nuggets.py", "Nugget banks", ":material/lightbulb:", "nuggets",
          frozenset({"adjudicator", "admin"}), needs="rag"),
    Route("overview.py", "Overview", ":material/monitoring:", "overview", _ADMIN, home_of=_ADMIN),
    Route("agreement.py", "Agreement", ":material/handshake:", "agreement", _ADMIN),
    Route("export.py", "Export", ":material/download:", "export", _ADMIN),
    Route("evaluate.py", "Evaluate runs", ":material/leaderboard:", "evaluate", _ADMIN),
    Route("create.py", "New campaign", ":material/add_circle:", "create", _ADMIN),
    Route("people.py", "People", ":material/group:", "people", _ADMIN),
    Route("terms.py", "Highlight terms", ":material/ink_highlighter:", "terms", _ADMIN),
)


def home_route(role: str) -> Route:
    """The page a login link opens for ``role``: the route that is its home (an admin's is
    Overview: they judge only on purpose, from the menu), else the first one it may see.
    KeyError for a role no page allows."""
    routes = [r for r in ROUTES if role in r.roles]
    if not routes:
        raise KeyError(f"no page for role {role!r}")
    return next((r for r in routes if role in r.home_of), routes[0])


def roles_of(page_file: str) -> frozenset[str]:
    """The roles allowed on the page whose script is ``page_file`` (a path or a file name);
    KeyError for a file that is not a route."""
    name = Path(page_file).name
    for route in ROUTES:
        if route.file == name:
            return route.roles
    raise KeyError(f"no route for page {name!r}")
