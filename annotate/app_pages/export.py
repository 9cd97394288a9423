"""Export page (admins)."""

from annotate.ui import admin, session

user = session.require_role("admin")
engine = session.engine()
admin.render_export(engine, admin.pick_campaign(engine, user))
