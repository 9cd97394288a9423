"""Export page (admins)."""

from pooljudge.annotate.ui import admin, session

session.require_page(__file__)
engine = session.engine()
campaign = admin.pick_campaign(engine, "Export")
admin.render_export(engine, campaign)
