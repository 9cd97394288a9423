"""The route table: every page file has a route, every route a file, and every page checks it."""

from __future__ import annotations

import pytest
from pooljudge.annotate.records import ANNOTATOR_ROLES
from pooljudge.annotate.ui.routes import PAGES, ROUTES, roles_of


def test_every_page_file_has_exactly_one_route_and_checks_it_first() -> None:
    files = sorted(p.name for p in PAGES.glob("*.py"))
    assert sorted(r.file for r in ROUTES) == files
    for name in files:
        code = [line for line in (PAGES / name).read_text().splitlines()
                if line and not line.startswith(('"""', "from ", "import "))]
        assert "session.require_page(__file__)" in code[0], name


def test_roles_of_pages() -> None:
    assert roles_of(str(PAGES / "judge.py")) == frozenset(ANNOTATOR_ROLES)
    assert roles_of("assign.py") == frozenset(ANNOTATOR_ROLES)
    assert roles_of("adjudicate.py") == {"adjudicator", "admin"}
    assert roles_of("nuggets.py") == {"adjudicator", "admin"}
    assert all(roles_of(r.file) == {"admin"} for r in ROUTES[4:])
    assert ROUTES[0].file == "judge.py"  # first in the menu (an admin lands on Overview)
    with pytest.raises(KeyError, match=r"nowhere\.py"):
        roles_of("nowhere.py")
