"""Evaluation page (admins)."""

from pooljudge.annotate.ui import admin, evaluate_view, session

user = session.require_page(__file__)
engine = session.engine()
evaluate_view.render_evaluation(engine, admin.pick_campaign(engine, user))
