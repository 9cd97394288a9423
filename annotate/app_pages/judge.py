"""Judging page (every role)."""

from annotate.ui import judge, session

judge.render(session.engine(), session.user())
