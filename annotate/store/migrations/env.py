"""Alembic environment: migrate the connection handed over by
:func:`pooljudge.annotate.store.engine.open_engine`.

Run from the ``alembic`` command line instead, it connects to ``$POOLJUDGE_DB`` (or the default).
"""

from __future__ import annotations

import pooljudge.annotate.store.models  # noqa: F401  (registers the tables on SQLModel.metadata)
from alembic import context
from sqlmodel import SQLModel

config = context.config


def _run(connection) -> None:
    context.configure(connection=connection, target_metadata=SQLModel.metadata,
                      render_as_batch=True)
    with context.begin_transaction():
        context.run_migrations()


connection = config.attributes.get("connection")
if connection is not None:
    _run(connection)
else:
    from pooljudge.annotate.store.engine import open_engine

    engine = open_engine(upgrade=False)
    with engine.begin() as fresh:
        _run(fresh)
    engine.dispose()
