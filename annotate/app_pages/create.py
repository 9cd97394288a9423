"""New campaign page (admins)."""

import streamlit as st
from pooljudge.annotate.ui import create, session

session.require_page(__file__)
st.title("New campaign")
create.render_create(session.engine())
