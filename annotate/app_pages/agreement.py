"""Agreement dashboard (admins)."""

from pooljudge.annotate.ui import admin, agreement_view, session

user = session.require_page(__file__)
engine = session.engine()
agreement_view.render_agreement(engine, admin.pick_campaign(engine, user))
