"""Highlight terms page (admins): a campaign's terms per topic."""

from pooljudge.annotate.ui import admin, session, terms_admin

session.require_page(__file__)
engine = session.engine()
campaign = admin.pick_campaign(engine, "Highlight terms")
terms_admin.render_terms(engine, campaign)
