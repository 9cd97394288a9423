"""Adjudication queue (adjudicators and admins)."""

from annotate.ui import agreement_view, session

user = session.require_role("adjudicator", "admin")
agreement_view.render_adjudication(session.engine(), user)
