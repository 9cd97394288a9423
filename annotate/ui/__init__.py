"""Controllers and view helpers of the Streamlit app; pages in ``annotate/pages`` call these."""
