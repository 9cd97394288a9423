"""A graded campaign built by the store for the command tests of ``agree``, ``export`` and
``adjudication``: alice, bob and carol label topics t0, t1 and documents d0..d2 (scale 0-2),
dave adjudicates."""

from __future__ import annotations

import pandas as pd
import pytest

from pooljudge.cli import main

# Three annotators on topics t0, t1 and documents d0..d2 (scale 0-2).
LABELS = {
    "alice": {"t0": [0, 1, 2], "t1": [0, 2, 1]},
    "bob": {"t0": [0, 2, 2], "t1": [0, 2, 0]},
    "carol": {"t0": [2, 1, 2], "t1": [0, 2, 2]},
}


def graded_campaign(url: str, collection, labels: dict, n_topics: int, *,
                    adjudicator: str | None = None) -> None:
    """Campaign ``c`` (scale 0-2, overlap 3) with ``labels[annotator][topic]`` = the labels of
    d0, d1, … imported, and an adjudicator when one is named."""
    from pooljudge.annotate.records import LabelScale
    from pooljudge.annotate.store import (
        add_annotator,
        create_campaign,
        import_judgments,
        open_engine,
        session_scope,
    )

    engine = open_engine(url)
    rows = [(name, topic, f"d{i}", str(label)) for name, topics in labels.items()
            for topic, values in topics.items() for i, label in enumerate(values)]
    with session_scope(engine) as session:
        create_campaign(session, name="c", scale=LabelScale.range(0, 2), overlap=3,
                        **collection(n_topics, 3))
        for name in labels:
            add_annotator(session, campaign="c", name=name)
        if adjudicator is not None:
            add_annotator(session, campaign="c", name=adjudicator, role="adjudicator")
        import_judgments(session, campaign="c", frame=pd.DataFrame(
            rows, columns=["annotator", "topic", "doc", "label"]))
    engine.dispose()


@pytest.fixture
def campaign(tmp_path, collection) -> tuple[str, str]:
    """A campaign judged by alice, bob and carol, with adjudicator dave; (db url, name)."""
    url = f"sqlite:///{tmp_path / 'campaign.db'}"
    graded_campaign(url, collection, LABELS, 2, adjudicator="dave")
    return url, "c"


def adjudicate(url: str, topic: str, doc: str, label: int) -> None:
    from pooljudge.annotate.store import import_judgments, open_engine, session_scope

    engine = open_engine(url)
    with session_scope(engine) as session:
        import_judgments(session, campaign="c", frame=pd.DataFrame(
            [("dave", topic, doc, str(label), "adjudication")],
            columns=["annotator", "topic", "doc", "label", "kind"]))
    engine.dispose()


def run(capsys, *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def flat(name: str) -> list[int]:
    return LABELS[name]["t0"] + LABELS[name]["t1"]
