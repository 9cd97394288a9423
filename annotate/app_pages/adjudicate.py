"""Adjudication queue (adjudicators and admins of the campaign chosen)."""

from pooljudge.annotate.ui import admin, agreement_view, session

session.require_page(__file__)
engine = session.engine()
campaign = admin.pick_campaign(engine, "Adjudicate", allowed=("adjudicator", "admin"))
agreement_view.render_adjudication(engine, campaign)
