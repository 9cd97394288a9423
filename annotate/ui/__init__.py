"""Controllers and views of the Streamlit app; the page scripts in ``annotate/app_pages`` call
them, and :mod:`pooljudge.annotate.ui.routes` lists the pages."""
