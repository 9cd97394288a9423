"""Overview page (admins)."""

from annotate.ui import admin, session

engine = session.engine()
admin.render_overview(engine, admin.pick_campaign(engine, session.user()))
