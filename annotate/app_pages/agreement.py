"""Agreement dashboard (admins)."""

from pooljudge.annotate.ui import admin, agreement_view, session

session.require_page(__file__)
engine = session.engine()
campaign = admin.pick_campaign(engine, "Agreement")
agreement_view.render_agreement(engine, campaign)
