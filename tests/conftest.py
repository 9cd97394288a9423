"""Shared fixtures: the real TREC data folder (skipped cleanly when absent)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """The folder named by POOLJUDGE_SHARED_DATA; the test is skipped when it is not there."""
    folder = os.environ.get("POOLJUDGE_SHARED_DATA")
    if not folder or not Path(folder).is_dir():
        pytest.skip("POOLJUDGE_SHARED_DATA is not set to an existing folder")
    return Path(folder)
