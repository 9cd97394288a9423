"""Create the demo campaign in a database: the demo collection, a demo admin, two annotators.
The campaign offers "I can't judge this" (with a reason), so the demo shows every answer.

Login tokens are stored hashed, so the links are written once, at creation, to a ``links.tsv``
beside the database (``role name url-path``); ``pooljudge demo`` prints them again on later runs.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from pooljudge.annotate.campaigns import CampaignSettings, create_campaign
from pooljudge.annotate.demo.build import DEMO_GUIDELINES, DemoCollection
from pooljudge.annotate.links import login_link
from pooljudge.annotate.records import Label, LabelScale
from sqlalchemy import Engine

from pooljudge.formats.files import atomic_writer, read_utf8

__all__ = ["DEMO_CAMPAIGN", "DEMO_PEOPLE", "DemoLink", "create_demo_campaign", "read_links"]

DEMO_CAMPAIGN = "python-docs"
# (name, role): one admin and two annotators, who each judge every pair (overlap 2).
DEMO_PEOPLE: tuple[tuple[str, str], ...] = (
    ("demo-admin", "admin"), ("ada", "annotator"), ("brian", "annotator"))
_HEADER = ("role", "name", "path")  # of links.tsv
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
    """Store the campaign and its people in one transaction (:mod:`pooljudge.annotate.campaigns`,
    from
    the collection's pool; no run ranks); write their links to ``links``."""
    settings = CampaignSettings(name=DEMO_CAMPAIGN, scale=DEMO_SCALE, overlap=overlap,
                                order="pool", guidelines=DEMO_GUIDELINES, cannot_judge=True,
                                people=DEMO_PEOPLE)
    created = create_campaign(engine, settings, topics=collection.topics,
                              documents=collection.documents, pool=collection.pool)
    people = [DemoLink(role, name, login_link("", token)) for role, name, token in created.people]
    with atomic_writer(links) as handle:
        rows = [_HEADER, *((p.role, p.name, p.path) for p in people)]
        handle.writelines("\t".join(row) + "\n" for row in rows)
    return people


def read_links(links: Path) -> list[DemoLink]:
    """The links written by :func:`create_demo_campaign`: after the header, one
    ``role<TAB>name<TAB>path`` line each."""
    lines = read_utf8(links).splitlines()[1:]
    return [DemoLink(*line.split("\t")) for line in lines if line]
