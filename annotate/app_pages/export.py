"""Export page (admins)."""

from pooljudge.annotate.ui import admin, session

user = session.require_page(__file__)
engine = session.engine()
admin.render_export(engine, admin.pick_campaign(engine, user))
