"""The demo campaign (Python's documentation, real pooled runs) judged end to end."""

from __future__ import annotations

import hashlib

import pytest

from pooljudge.cli import main

from .helpers import KEY_VAR, counters, labels

pytestmark = pytest.mark.slow


def test_demo_campaign_is_judged_once_per_pair_under_faults(tmp_path, server_for, api_key,
                                                           capsys):
    from pooljudge.annotate.demo import build_collection
    from pooljudge.annotate.demo.campaign import DEMO_CAMPAIGN, create_demo_campaign
    from pooljudge.annotate.store import open_engine

    from .conftest import Campaign

    url = f"sqlite:///{tmp_path / 'demo.db'}"
    engine = open_engine(url)
    collection = build_collection()
    create_demo_campaign(engine, collection, tmp_path / "links.tsv")
    pairs = list(zip(collection.pool["topic"], collection.pool["doc"], strict=True))
    truth = {p: hashlib.sha256("/".join(p).encode()).digest()[0] % 2 for p in pairs}
    server = server_for(Campaign(url, DEMO_CAMPAIGN, truth), retry_after="0.1", noise=0.1,
                       values=(0, 1))
    server.plan_any("429", "500", "drop", "malformed", "503")
    server.plan(*pairs[5], "nolabel", "nolabel")
    slots = counters(engine)
    args = ["autojudge", "--campaign", DEMO_CAMPAIGN, "--base-url", server.base_url,
            "--model", "test-model", "--api-key-env", KEY_VAR, "--db", url,
            "--concurrency", "16", "--backoff", "0.01", "--price-in", "0.15",
            "--price-out", "0.6"]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert f"labelled {len(pairs) - 1}, failed 1" in out and "cost $" in out
    assert main(args) == 0
    assert "labelled 1, failed 0" in capsys.readouterr().out
    assert labels(engine, "test-model") == {p: server.answers[p] for p in pairs}
    assert counters(engine) == slots
    engine.dispose()
