"""Nugget banks page (adjudicators and admins): build a topic's bank from its relevant passages."""

from pooljudge.annotate.ui import admin, nugget_bank, session

session.require_page(__file__)
engine = session.engine()
campaign = admin.pick_campaign(engine, "Nugget banks", allowed=nugget_bank.EDITORS)
nugget_bank.render(engine, campaign)
