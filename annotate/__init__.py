"""The annotation side of pooljudge: the judgment store, fair assignment, and the browser app.

Nothing connects at import. Open a database with :func:`annotate.store.open_engine`, work
inside :func:`annotate.store.session_scope`, and call the keyword-only functions of
:mod:`annotate.store`; they return the plain records of :mod:`annotate.records`, never table rows.
"""

__all__: list[str] = []
