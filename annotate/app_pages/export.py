"""Export page (admins)."""

from pooljudge.annotate.ui import admin, export_view, session

session.require_page(__file__)
engine = session.engine()
campaign = admin.pick_campaign(engine, "Export")
export_view.render_export(engine, campaign)
