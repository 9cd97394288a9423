"""People page (admins): a campaign's people; add some (links shown once) or remove one."""

from pooljudge.annotate.ui import admin, people, session

user = session.require_page(__file__)
engine = session.engine()
campaign = admin.pick_campaign(engine, "People")
people.render_people(engine, campaign, user)
