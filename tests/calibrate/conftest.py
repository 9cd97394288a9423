"""Fixtures shared with other folders: the judging page's AppTest ones (tests/annotate/ui) and
the command line's small campaign files (tests/support/cli_campaign.py)."""

from tests.annotate.ui.conftest import app_db, collection, open_page
from tests.support.cli_campaign import cli, files

__all__ = ["app_db", "cli", "collection", "files", "open_page"]
