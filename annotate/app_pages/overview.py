"""Overview page (admins)."""

from pooljudge.annotate.ui import admin, session

user = session.require_page(__file__)
engine = session.engine()
admin.render_overview(engine, admin.pick_campaign(engine, user))
