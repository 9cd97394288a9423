"""Overview page (admins)."""

from pooljudge.annotate.ui import admin, session

session.require_page(__file__)
engine = session.engine()
campaign = admin.pick_campaign(engine, "Overview")
admin.render_overview(engine, campaign)
