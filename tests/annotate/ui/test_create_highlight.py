"""AppTest (no browser): the New campaign form's "highlight the narrative" setting is stored."""

from __future__ import annotations

import pytest
from pooljudge.annotate import store
from pooljudge.annotate.store import session_scope
from pooljudge.annotate.ui.create import CREATE_HIGHLIGHT_NARRATIVE

# The create page's fixture (uploads of small files, an admin) and its form helpers.
from tests.annotate.ui.test_create_page import _create_page, _fill, _submit, app  # noqa: F401


@pytest.mark.parametrize("ticked", [True, False], ids=["ticked", "default"])
def test_highlight_narrative_is_stored(app, ticked) -> None:  # noqa: F811
    at = _fill(_create_page(app["boss"]))
    if ticked:
        at.checkbox(key=CREATE_HIGHLIGHT_NARRATIVE).check()
    assert not _submit(at).error
    with session_scope(app["engine"], readonly=True) as session:
        assert store.get_campaign(session, name="new").highlight_narrative is ticked
