"""Judging page (every role)."""

from pooljudge.annotate.ui import judge, session

user = session.require_page(__file__)
judge.render(session.engine(), user)
