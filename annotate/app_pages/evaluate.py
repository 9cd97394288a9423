"""Evaluation page (admins)."""

from pooljudge.annotate.ui import admin, evaluate_view, session

session.require_page(__file__)
engine = session.engine()
campaign = admin.pick_campaign(engine, "Evaluate runs")
evaluate_view.render_evaluation(engine, campaign)
