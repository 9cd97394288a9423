"""Evaluation page (admins)."""

from annotate.ui import admin, evaluate_view, session

engine = session.engine()
evaluate_view.render_evaluation(engine, admin.pick_campaign(engine, session.user()))
