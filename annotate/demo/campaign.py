"""Create the demo campaign in a database: the demo collection, a demo admin, two annotators.
The campaign offers "I can't judge this" (with a reason), so the demo shows every answer.

Login tokens are stored hashed, so the links are written once, at creation, to a ``links.tsv``
beside the database (``role name url-path``); ``pooljudge demo`` prints them again on later runs.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pandas as pd
from sqlalchemy import Engine

from annotate import store
from annotate.db import session_scope
from annotate.demo.build import DEMO_GUIDELINES, DemoCollection
from annotate.records import Label, LabelScale
from pooljudge.fileio import atomic_writer

__all__ = ["DEMO_CAMPAIGN", "DEMO_PEOPLE", "DemoLink", "create_demo_campaign", "read_links"]

DEMO_CAMPAIGN = "python-docs"
# (name, role): one admin and two annotators, who each judge every pair (overlap 2).
DEMO_PEOPLE: tuple[tuple[str, str], ...] = (
    ("demo-admin", "admin"), ("ada", "annotator"), ("brian", "annotator"))
DEMO_SCALE = LabelScale((
    Label(0, "Not relevant", "Does not help with the information need, or only mentions it."),
    Label(1, "Relevant", "Answers the need, or a substantial part of it, as the narrative says."),
))


@dataclass(frozen=True)
class DemoLink:
    """A demo person's login link path (``/?token=…``), to be put after the server address."""

    role: str
    name: str
    path: str


def create_demo_campaign(engine: Engine, collection: DemoCollection, links: Path, *,
                         overlap: int = 2) -> list[DemoLink]:
    """Store the campaign and its people in one transaction; write their links to ``links``."""
    with session_scope(engine) as session:
        store.create_campaign(
            session, name=DEMO_CAMPAIGN, scale=DEMO_SCALE, overlap=overlap, order="pool",
            guidelines=DEMO_GUIDELINES, topics=collection.topics,
            documents=collection.documents, pool=collection.pool, cannot_judge=True,
        )
        people = [
            DemoLink(role, name, "/?token=" + store.add_annotator(
                session, campaign=DEMO_CAMPAIGN, name=name, role=role))
            for name, role in DEMO_PEOPLE
        ]
    frame = pd.DataFrame([(p.role, p.name, p.path) for p in people],
                         columns=["role", "name", "path"])
    with atomic_writer(links) as handle:
        frame.to_csv(handle, sep="\t", index=False, lineterminator="\n")
    return people


def read_links(links: Path) -> list[DemoLink]:
    """The links written by :func:`create_demo_campaign`."""
    frame = pd.read_csv(links, sep="\t", dtype=str, keep_default_na=False)
    return [DemoLink(r, n, p) for r, n, p in zip(frame["role"], frame["name"], frame["path"],
                                                 strict=True)]
