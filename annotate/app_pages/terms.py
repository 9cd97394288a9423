"""Highlight terms page (admins): a campaign's terms per topic."""

from pooljudge.annotate.ui import admin, session, terms_admin

user = session.require_page(__file__)
engine = session.engine()
terms_admin.render_terms(engine, admin.pick_campaign(engine, user))
