"""People page (admins): a campaign's people; add some (links shown once) or remove one."""

from pooljudge.annotate.ui import admin, people, session

user = session.require_page(__file__)
engine = session.engine()
people.render_people(engine, admin.pick_campaign(engine, user), user)
