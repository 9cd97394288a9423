"""Export page (admins)."""

from annotate.ui import admin, session

engine = session.engine()
admin.render_export(engine, admin.pick_campaign(engine, session.user()))
