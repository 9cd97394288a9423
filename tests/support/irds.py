"""ir_datasets test helpers: record which documents a document store is asked for."""

from __future__ import annotations

import pytest


@pytest.fixture
def get_many_calls(monkeypatch) -> list[list[str]]:
    """Every id list handed to an ir_datasets document store's get_many."""
    from ir_datasets.indices import PickleLz4FullStore

    calls: list[list[str]] = []
    original = PickleLz4FullStore.get_many

    def recording(self, doc_ids, field=None):
        calls.append(list(doc_ids))
        return original(self, doc_ids, field)

    monkeypatch.setattr(PickleLz4FullStore, "get_many", recording)
    return calls
