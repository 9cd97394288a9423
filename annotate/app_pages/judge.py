"""Judging page (every role)."""

from annotate.ui import judge, session

user = session.require_page(__file__)
judge.render(session.engine(), user)
