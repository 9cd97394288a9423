"""Nugget assignment page (every role): an answer beside its topic's nugget checklist."""

from pooljudge.annotate.ui import nugget_assign, session

user = session.require_page(__file__)
nugget_assign.render(session.engine(), user)
