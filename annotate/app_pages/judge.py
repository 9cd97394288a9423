"""Judging page (every role)."""

from annotate.records import ANNOTATOR_ROLES
from annotate.ui import judge, session

user = session.require_role(*ANNOTATOR_ROLES)
judge.render(session.engine(), user)
