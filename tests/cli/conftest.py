"""Fixtures of the command tests (one file per command): the run builders of the pooling
tests."""

from tests.pooling.conftest import kit  # noqa: F401  (a fixture, found by name)
