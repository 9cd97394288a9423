"""The annotation side of pooljudge: the judgment store, fair assignment, and the browser app.

Nothing connects at import. Open a database with :func:`pooljudge.annotate.store.open_engine`, work
inside :func:`pooljudge.annotate.store.session_scope`, and call the keyword-only functions of
:mod:`pooljudge.annotate.store`; they return the plain records of
:mod:`pooljudge.annotate.records`, never table rows.
"""

__all__: list[str] = []
