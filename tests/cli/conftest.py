"""Fixtures of the command tests (one file per command), found by name: the run builders of
the pooling tests (``kit``), the store's databases (``db_url``, ``engine``, ``make_campaign``...
of tests/annotate; a file that needs the automatic judges' versions imports them from
tests/autojudge/conftest.py, which then take precedence), and the small campaign's files and
runner (``files``, ``cli``, tests/support/cli_campaign.py)."""

from tests.annotate.conftest import (  # noqa: F401
    collection,
    db_url,
    engine,
    fresh_db_url,
    make_campaign,
    pg_url,
)
from tests.pooling.conftest import kit  # noqa: F401
from tests.support.cli_campaign import cli, files  # noqa: F401
