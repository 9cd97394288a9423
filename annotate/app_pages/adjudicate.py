"""Adjudication queue (adjudicators and admins)."""

from pooljudge.annotate.ui import agreement_view, session

user = session.require_page(__file__)
agreement_view.render_adjudication(session.engine(), user)
