"""A small nugget campaign for the nugget panes' tests (AppTest and real browser).

Topics 301..30n, documents ``d<topic>-<i>`` (the first two of each topic judged relevant by
``seed``, the third not), each topic's model bank of ``nuggets`` nuggets, and ``runs`` RAG answers
per topic (``<run>/<topic>``), each of two sentences citing the topic's documents and one
document outside the collection (``outside-1``). Texts can be made hostile with ``evil``.
"""

from __future__ import annotations

import pandas as pd
from pooljudge.annotate import store
from pooljudge.annotate.records import LabelScale
from pooljudge.annotate.store import session_scope
from sqlalchemy import Engine

from pooljudge.formats.nuggets import NuggetRow
from pooljudge.formats.rag_answers import AnswerRow, Sentence

__all__ = ["make_nugget_campaign", "nugget_text"]


def nugget_text(topic: str, i: int, evil: str = "") -> str:
    return f"fact {i} of topic {topic}{evil}"


def make_nugget_campaign(engine: Engine, name: str, *, topics: int = 3, nuggets: int = 5,
                         runs: tuple[str, ...] = ("r1", "r2"), evil: str = "",
                         people: tuple[tuple[str, str], ...] = (("ann", "annotator"),),
                         answers: bool = True, min_dwell_ms: int = 300) -> dict[str, str]:
    """Create campaign ``name`` as the module says; the login tokens by person."""
    keys = [str(301 + t) for t in range(topics)]
    docs = [f"d{t}-{i}" for t in keys for i in range(1, 4)]
    frame = pd.DataFrame({"id": docs, "title": [f"Title of {d}{evil}" for d in docs],
                          "text": [f"Passage text of {d}.{evil}" for d in docs]})
    topic_frame = pd.DataFrame({"id": keys, "title": [f"question {t}{evil}" for t in keys],
                                "description": f"What is known?{evil}",
                                "narrative": f"Facts that answer it.{evil}"})
    pool = pd.DataFrame({"topic": [d.split("-")[0][1:] for d in docs], "doc": docs,
                         "order": range(1, len(docs) + 1), "best_rank": 1, "runs": "r1"})
    with session_scope(engine) as session:
        store.create_campaign(session, name=name, scale=LabelScale.binary(), overlap=1,
                              topics=topic_frame, documents=frame, pool=pool,
                              min_dwell_ms=min_dwell_ms)
        tokens = {person: store.add_annotator(session, campaign=name, name=person, role=role)
                  for person, role in people}
        store.add_annotator(session, campaign=name, name="seed")
        judged = pd.DataFrame({"annotator": "seed", "topic": pool["topic"], "doc": docs,
                               "label": ["0" if d.endswith("-3") else "1" for d in docs]})
        store.import_judgments(session, campaign=name, frame=judged, source="human")
        if nuggets:
            store.import_nuggets(session, campaign=name, rows=[
                NuggetRow(t, nugget_text(t, i, evil), "vital" if i % 2 else "okay",
                          sources=(f"d{t}-1",), author="gpt-test", prompt_sha256="ab" * 32,
                          line=i)
                for t in keys for i in range(1, nuggets + 1)])
        if answers:
            store.import_rag_answers(session, campaign=name, answers=[
                AnswerRow(f"{run}/{t}", t, run, (f"d{t}-1", f"d{t}-2", "outside-1"),
                          (Sentence(f"First sentence by {run} on {t}.{evil}", (0,)),
                           Sentence(f"Second sentence.{evil}", (1, 2))))
                for t in keys for run in runs])
    return tokens
