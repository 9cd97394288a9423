"""New campaign page (admins)."""

from annotate.ui import create, session

create.render_create(session.engine())
