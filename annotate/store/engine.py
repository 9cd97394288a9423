"""Engines and sessions: SQLite pragmas, explicit SQLite transactions, Alembic upgrade on open.

SQLite transactions are begun by us, not by the driver: ``BEGIN IMMEDIATE`` by default, so a
writing transaction holds the write lock from its first statement and two writers queue on
``busy_timeout`` instead of failing to upgrade a read lock (WAL's ``SQLITE_BUSY_SNAPSHOT``).
Read-only sessions (``session_scope(engine, readonly=True)``) use a deferred ``BEGIN`` and never
block writers. Writing sessions on a SQLite file also queue, first come first served, on
:func:`pooljudge.annotate.store.writer_queue.writer_turn` with lock files in the temporary folder
named after
the database's absolute path (POSIX): the next writer goes on as soon as the lock is released,
where SQLite's own busy handler sleeps in steps of up to 100 ms (a long latency tail with several
processes), and in arrival order, where a plain ``flock`` lets a busy process take it again and
again. The queue only orders writers; correctness still rests on SQLite's own locking.
PostgreSQL runs at READ COMMITTED; the claim query locks rows with ``FOR UPDATE SKIP LOCKED``.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import os
import re
import tempfile
from collections.abc import Iterator
from pathlib import Path

import sqlalchemy as sa
from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from alembic.util.exc import CommandError
from pooljudge.annotate.store.file_identity import check_same_file, remember_file
from pooljudge.annotate.store.writer_queue import fcntl, writer_turn
from sqlalchemy.pool import StaticPool
from sqlmodel import Session

from pooljudge.errors import PoolJudgeError, StorageError, UsageError

__all__ = ["DEFAULT_URL", "database_url", "migrate", "migration_config", "open_engine",
           "pool_size", "session_scope"]

DEFAULT_URL = "sqlite:///pooljudge.db"
MIGRATIONS = Path(__file__).with_name("migrations")
BUSY_TIMEOUT_MS = 30_000
MAX_POOL_SIZE = 1000  # serve --pool-size's bound too
_BEGIN_OPTION = "pooljudge_sqlite_begin"
_MIGRATION_LOCK_KEY = 0x706F6F6C  # pg_advisory_xact_lock key: serialises concurrent upgrades
_NO_SUCH_DATABASE = "3D000"  # PostgreSQL's SQLSTATE invalid_catalog_name
# libpq reports a missing database at connection time without a SQLSTATE, only in its text.
_NO_SUCH_DATABASE_TEXT = re.compile(r'database "[^"]*" does not exist')


def database_url(url: str | None = None) -> str:
    """``url``, else ``$POOLJUDGE_DB``, else :data:`DEFAULT_URL`."""
    return url or os.environ.get("POOLJUDGE_DB") or DEFAULT_URL


def pool_size() -> int:
    """Connections a PostgreSQL engine keeps open: ``$POOLJUDGE_POOL_SIZE``, else 5
    (SQLAlchemy's default); up to 10 more open while all are busy. UsageError if malformed."""
    text = os.environ.get("POOLJUDGE_POOL_SIZE") or "5"
    if not (text.isascii() and text.isdigit()) or not 1 <= int(text) <= MAX_POOL_SIZE:
        raise UsageError(f"$POOLJUDGE_POOL_SIZE: must be a whole number from 1 to "
                         f"{MAX_POOL_SIZE}, got {text!r}")
    return int(text)


def migration_config() -> Config:
    """An Alembic configuration pointing at the migrations shipped inside the package."""
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    return config


def open_engine(url: str | None = None, *, upgrade: bool = True,
                create: bool = True) -> sa.Engine:
    """An engine for ``url`` (see :func:`database_url`), upgraded to the newest schema.

    An older database is migrated in place (``alembic upgrade head``); it is never dropped or
    recreated. A database newer than this pooljudge raises PoolJudgeError. With ``create``
    False (read-only commands) a SQLite file that does not exist, or a database without
    pooljudge's tables, raises UsageError ``DB: no such database`` and nothing is created. A
    PostgreSQL database is never created: a missing one raises the same UsageError.
    """
    url = database_url(url)
    try:
        parsed = sa.make_url(url)
    except sa.exc.ArgumentError:
        raise UsageError(f"not a database URL: {url!r}") from None
    shown = parsed.render_as_string(hide_password=True)
    try:
        if parsed.get_backend_name() == "sqlite":
            engine = _sqlite_engine(parsed, create=create)
        else:
            # pre-ping: a connection the server ended while it sat in the pool (a restart,
            # pg_terminate_backend) is replaced at checkout instead of failing the next query
            engine = sa.create_engine(parsed, pool_recycle=3600, pool_size=pool_size(),
                                      pool_pre_ping=True)
    except (sa.exc.NoSuchModuleError, ModuleNotFoundError) as exc:
        raise UsageError(f"cannot open {shown}: no driver for it ({exc})") from None
    if upgrade:
        _upgrade(engine, shown, create=create)
    return engine


@contextlib.contextmanager
def session_scope(engine: sa.Engine, *, readonly: bool = False) -> Iterator[Session]:
    """A session that commits on success and rolls back on any exception.

    ``readonly`` sessions on SQLite begin a deferred transaction (no write lock).
    """
    bind = engine.execution_options(**{_BEGIN_OPTION: "DEFERRED"}) if readonly else engine
    lock = None if readonly else _writer_lock_path(engine)
    with _exclusive(lock):
        session = Session(bind=bind, expire_on_commit=False)
        try:
            if lock is not None:  # before the first statement and before the commit (F2)
                _same_file_or_reopen(session)
            yield session
            if lock is not None:
                check_same_file(session.connection())
            session.commit()
        except (sa.exc.OperationalError, sa.exc.InterfaceError) as exc:
            # disk full, read-only, I/O error, server gone, connection closed under us
            _rollback_quietly(session)
            raise StorageError(f"{_shown(engine)}: {_reason(exc)}; nothing of this transaction "
                               "was stored") from None
        except sa.exc.DBAPIError as exc:
            if not exc.connection_invalidated:
                session.rollback()
                raise
            _rollback_quietly(session)
            raise StorageError(f"{_shown(engine)}: the connection was lost ({_reason(exc)}); "
                               "nothing of this transaction was stored") from None
        except StorageError:  # the file is not the one at the path any more (file_identity)
            _rollback_quietly(session)
            raise
        except BaseException:
            session.rollback()
            raise
        finally:
            session.close()


def _same_file_or_reopen(session: Session) -> None:
    """Before a write: a connection open on a lost file is dropped and one fresh connection
    tried (a restored file is written at once); StorageError if that one is lost too."""
    try:
        check_same_file(session.connection())
    except StorageError:
        session.close()  # the lost connection was invalidated: the next one opens the path
        check_same_file(session.connection())


def _rollback_quietly(session: Session) -> None:
    """Roll back after a database fault; the connection may be gone, so a failing rollback is
    ignored (the server or SQLite's journal undoes the transaction anyway)."""
    with contextlib.suppress(sa.exc.SQLAlchemyError):
        session.rollback()


def _shown(engine: sa.Engine) -> str:
    """The engine's URL without its password, as error messages name the database."""
    return engine.url.render_as_string(hide_password=True)


def _reason(exc: sa.exc.DBAPIError) -> str:
    """The driver's message on one line (SQLAlchemy's own adds SQL and parameters)."""
    return " ".join(str(exc.orig).split()) or type(exc.orig).__name__


def _writer_lock_path(engine: sa.Engine) -> str | None:
    """The writers' lock file of a SQLite file database on a POSIX system, else None."""
    if engine.dialect.name != "sqlite" or fcntl is None:
        return None
    database = engine.url.database
    if database in (None, "", ":memory:"):
        return None
    return _lock_file(database)


@functools.lru_cache(maxsize=256)
def _lock_file(database: str) -> str:
    """The lock file of ``database`` in the temporary folder (named by a hash of its absolute
    path), so nothing is left beside the database. Cached: it is asked for on every write."""
    key = hashlib.sha256(str(Path(database).expanduser().resolve()).encode()).hexdigest()[:24]
    return str(Path(tempfile.gettempdir()) / f"pooljudge-{key}.lock")


@contextlib.contextmanager
def _exclusive(path: str | None) -> Iterator[None]:
    """The writers' turn on ``path`` (no-op for None); released even on error."""
    if path is None:
        yield
        return
    with writer_turn(path):
        yield


def _no_such_database(error: BaseException) -> bool:
    """Whether a driver error says the database does not exist (PostgreSQL)."""
    return (getattr(error, "sqlstate", None) == _NO_SUCH_DATABASE
            or _NO_SUCH_DATABASE_TEXT.search(str(error)) is not None)


def _database_name(engine: sa.Engine, shown: str) -> str:
    """A SQLite database's file name as given, else the URL without password."""
    return (engine.url.database or shown) if engine.dialect.name == "sqlite" else shown


def _sqlite_engine(url: sa.URL, *, create: bool) -> sa.Engine:
    memory = url.database in (None, "", ":memory:")
    if not memory:
        path = Path(url.database).expanduser()
        if not create and not path.exists():
            raise UsageError(f"{url.database}: no such database")
        folder = path.resolve().parent
        if not folder.is_dir():
            raise UsageError(f"cannot open {url.database}: folder {folder} does not exist")
        _check_sqlite_file(path, url.database, create=create)
    kwargs: dict = {"connect_args": {"timeout": BUSY_TIMEOUT_MS / 1000}}
    if memory:
        kwargs.update(poolclass=StaticPool, connect_args={"check_same_thread": False})
    engine = sa.create_engine(url, **kwargs)

    @sa.event.listens_for(engine, "connect")
    def _configure(dbapi_connection, record) -> None:
        dbapi_connection.isolation_level = None  # we issue BEGIN ourselves (see "begin")
        cursor = dbapi_connection.cursor()
        if not memory:
            cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.close()
        if not memory:
            remember_file(record, url.database)  # the file this connection writes (F2)

    @sa.event.listens_for(engine, "begin")
    def _begin(connection: sa.Connection) -> None:
        mode = connection.get_execution_options().get(_BEGIN_OPTION, "IMMEDIATE")
        connection.exec_driver_sql(f"BEGIN {mode}")

    return engine


def _check_sqlite_file(path: Path, shown: str, *, create: bool) -> None:
    """UsageError for a path that is not a regular file (``/dev/null``, a FIFO, a folder), for
    a schema newer than this pooljudge's and, unless ``create``, for a file that holds no
    pooljudge database (empty, not SQLite, no ``alembic_version`` table). The check opens the
    file read-only, so a refused file is never changed (connecting normally would turn it
    into a WAL database)."""
    if path.exists() and not path.is_file():
        raise UsageError(f"{shown}: not a regular file, cannot hold a database")
    if not path.exists() or path.stat().st_size == 0:
        if create:
            return
        raise UsageError(f"{shown}: no such database (the file is empty)")
    import sqlite3

    try:
        with contextlib.closing(sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro",
                                                uri=True)) as connection:
            rows = connection.execute("SELECT version_num FROM alembic_version").fetchall()
    except sqlite3.DatabaseError:
        if create:
            return
        raise UsageError(f"{shown}: no such database (not a pooljudge database)") from None
    _refuse_newer({row[0] for row in rows})


def _refuse_newer(versions: set[str]) -> None:
    """UsageError when a stored revision is unknown to this pooljudge's migrations."""
    script = ScriptDirectory.from_config(migration_config())
    known = {rev.revision for rev in script.walk_revisions()}
    for current in sorted(versions - known):
        raise UsageError(f"the database schema ({current}) is newer than this pooljudge "
                         f"({script.get_current_head()}); upgrade pooljudge")


def _upgrade(engine: sa.Engine, shown: str, *, create: bool = True) -> None:
    """Run ``alembic upgrade head`` unless the database is already there. A database that
    cannot be reached or read (``shown``: its URL without password), that does not exist, or
    (unless ``create``) has no schema yet raises UsageError."""
    config = migration_config()
    script = ScriptDirectory.from_config(config)
    head = script.get_current_head()
    try:
        with engine.execution_options(**{_BEGIN_OPTION: "DEFERRED"}).connect() as connection:
            current = MigrationContext.configure(connection).get_current_revision()
    except sa.exc.DBAPIError as exc:
        engine.dispose()
        if _no_such_database(exc.orig):
            raise UsageError(f"{shown}: no such database") from None
        raise UsageError(f"cannot open {shown}: {' '.join(str(exc.orig).split())}") from None
    if current == head:
        return
    if current is None and not create:
        engine.dispose()
        raise UsageError(f"{_database_name(engine, shown)}: no such database (no pooljudge "
                         "tables in it)")
    if current is not None:
        _refuse_newer({current})
    try:
        migrate(engine, "head")
    except CommandError as exc:
        raise PoolJudgeError(f"cannot upgrade the database: {exc}") from None


def migrate(engine: sa.Engine, revision: str, *, downgrade: bool = False) -> None:
    """Upgrade (or downgrade) the database to ``revision`` in one transaction.

    PostgreSQL: concurrent upgrades queue on an advisory lock. SQLite: foreign keys are off
    while the migrations run (a batch rebuild drops and re-creates a table that other tables
    point at, which SQLite refuses with them on; the pragma is a no-op inside a transaction,
    so it is set before BEGIN), and ``PRAGMA foreign_key_check`` must find no dangling
    reference before the commit; they are on again afterwards.
    """
    config = migration_config()
    sqlite = engine.dialect.name == "sqlite"
    with engine.connect() as connection:
        driver = connection.connection.driver_connection
        if sqlite:
            driver.execute("PRAGMA foreign_keys=OFF")
        try:
            with connection.begin():
                if not sqlite:
                    connection.execute(sa.text("SELECT pg_advisory_xact_lock(:key)"),
                                       {"key": _MIGRATION_LOCK_KEY})
                config.attributes["connection"] = connection
                (command.downgrade if downgrade else command.upgrade)(config, revision)
                if sqlite:
                    _check_foreign_keys(connection)
        finally:
            if sqlite:
                driver.execute("PRAGMA foreign_keys=ON")


def _check_foreign_keys(connection: sa.Connection) -> None:
    """PoolJudgeError naming the first row whose foreign key points nowhere (SQLite)."""
    dangling = connection.exec_driver_sql("PRAGMA foreign_key_check").first()
    if dangling is not None:
        raise PoolJudgeError(f"cannot upgrade the database: row {dangling[1]} of table "
                             f"{dangling[0]} refers to a missing row of {dangling[2]}")
