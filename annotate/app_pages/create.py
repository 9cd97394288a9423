"""New campaign page (admins)."""

from pooljudge.annotate.ui import create, session

session.require_page(__file__)
create.render_create(session.engine())
