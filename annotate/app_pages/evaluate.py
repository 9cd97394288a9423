"""Evaluation page (admins)."""

from annotate.ui import admin, evaluate_view, session

user = session.require_role("admin")
engine = session.engine()
evaluate_view.render_evaluation(engine, admin.pick_campaign(engine, user))
