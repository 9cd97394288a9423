"""Fixtures shared with other folders: the judging page's AppTest ones (tests/annotate/ui) and
the command line's small campaign files (tests/annotate/test_cli_campaign.py)."""

from tests.annotate.test_cli_campaign import cli, files
from tests.annotate.ui.conftest import app_db, collection, open_page

__all__ = ["app_db", "cli", "collection", "files", "open_page"]
