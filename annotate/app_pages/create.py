"""New campaign page (admins)."""

from annotate.ui import create, session

session.require_role("admin")
create.render_create(session.engine())
