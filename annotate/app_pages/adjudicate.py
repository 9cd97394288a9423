"""Adjudication queue (adjudicators and admins)."""

from annotate.ui import agreement_view, session

agreement_view.render_adjudication(session.engine(), session.user())
