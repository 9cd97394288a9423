"""Tables of revision 0013: nugget banks, their history, RAG answers and nugget assignments.

- ``nugget``: one nugget of a (campaign, topic) bank — ``key`` unique in the campaign,
  ``position`` its place in the topic's bank, ``text``, ``importance`` (vital/okay),
  ``sources`` (JSON list of passage ids), the author (``author_kind`` person or model,
  ``author`` the person's or the model's name, ``prompt_sha256`` only for a model), and its
  ``state``: ``active``, ``merged`` (``merged_into`` names the nugget it went into) or
  ``deleted``. Rows are never deleted: a deletion or a merge is a state, so history and old
  assignments keep their nugget.
- ``nugget_event``: the history, appended in the transaction of each change: ``created``,
  ``edited``, ``merged``, ``deleted``; who (``actor``, and ``annotator_id`` for a person of the
  campaign), when, and the nugget before and after (JSON of text, importance, sources, state,
  merged_into; ``before_json`` NULL exactly for ``created``).
- ``rag_answer``: a RAG answer of one topic — ``key`` unique in the campaign, ``run``, and
  ``refs`` (JSON list of the document ids its citations point into);
  ``answer_sentence`` its sentences in order with their ``citations`` (JSON list of indices
  into ``refs``).
- ``nugget_assignment``: one label of an (answer, nugget) cell by an assessor (a person or a
  label source such as a model), append-only like ``judgment``: a change is a new ``version``
  and the latest decides; ``suggested`` (revision 0015) the model's label shown to the
  person as a pre-assignment when they chose theirs (NULL: none shown).
- ``nugget_setting`` (revision 0015): a campaign's assignment overlap — at most ``overlap``
  people (active, human) assign each answer; no row: every person assigns every answer.
"""

from __future__ import annotations

from datetime import datetime

from pooljudge.annotate.records import (
    NUGGET_ACTIONS,
    NUGGET_AUTHOR_KINDS,
    NUGGET_IMPORTANCES,
    NUGGET_LABELS,
    NUGGET_STATES,
)
from pooljudge.annotate.store.models import one_of
from sqlalchemy import CheckConstraint, Column, DateTime, Table, Text, UniqueConstraint
from sqlmodel import Field, SQLModel

__all__ = ["AnswerSentence", "Nugget", "NuggetAssignment", "NuggetEvent", "NuggetSetting",
           "RagAnswer", "table_of"]

MERGED_CHECK = ("(state = 'merged' AND merged_into IS NOT NULL) OR "
                "(state <> 'merged' AND merged_into IS NULL)")
PROMPT_CHECK = "author_kind = 'model' OR prompt_sha256 IS NULL"
EVENT_CHECK = ("(action = 'created' AND before_json IS NULL) OR "
               "(action <> 'created' AND before_json IS NOT NULL)")


def table_of(model: type[SQLModel]) -> Table:
    """The Core table of a SQLModel class (SQLModel leaves ``__table__`` untyped)."""
    return model.__table__  # type: ignore[attr-defined]


def _time():
    return Field(sa_column=Column(DateTime(), nullable=False))


class Nugget(SQLModel, table=True):
    """A nugget of a topic's bank (see the module docstring for its invariants)."""

    __tablename__ = "nugget"
    __table_args__ = (
        UniqueConstraint("campaign_id", "key", name="uq_nugget_campaign_key"),
        one_of("nugget", "importance", NUGGET_IMPORTANCES),
        one_of("nugget", "author_kind", NUGGET_AUTHOR_KINDS),
        one_of("nugget", "state", NUGGET_STATES),
        CheckConstraint(MERGED_CHECK, name="ck_nugget_merged_into"),
        CheckConstraint(PROMPT_CHECK, name="ck_nugget_prompt"),
    )

    id: int | None = Field(default=None, primary_key=True)
    campaign_id: int = Field(foreign_key="campaign.id")
    topic_id: int = Field(foreign_key="topic.id", index=True)
    key: str = Field(sa_column=Column(Text, nullable=False))
    position: int
    text: str = Field(sa_column=Column(Text, nullable=False))
    importance: str
    sources: str = Field(sa_column=Column(Text, nullable=False))
    author_kind: str
    author: str = Field(sa_column=Column(Text, nullable=False))
    prompt_sha256: str | None = None
    state: str
    merged_into: int | None = Field(default=None, foreign_key="nugget.id")
    created_at: datetime = _time()


class NuggetEvent(SQLModel, table=True):
    """One change of a nugget: what, who, when, before and after (JSON)."""

    __tablename__ = "nugget_event"
    __table_args__ = (one_of("nugget_event", "action", NUGGET_ACTIONS),
                      CheckConstraint(EVENT_CHECK, name="ck_nugget_event_before"))

    id: int | None = Field(default=None, primary_key=True)
    nugget_id: int = Field(foreign_key="nugget.id", index=True)
    action: str
    actor: str = Field(sa_column=Column(Text, nullable=False))
    annotator_id: int | None = Field(default=None, foreign_key="annotator.id")
    at: datetime = _time()
    before_json: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    after_json: str = Field(sa_column=Column(Text, nullable=False))


class RagAnswer(SQLModel, table=True):
    """A RAG answer to one topic, by one run."""

    __tablename__ = "rag_answer"
    __table_args__ = (UniqueConstraint("campaign_id", "key", name="uq_rag_answer_campaign_key"),)

    id: int | None = Field(default=None, primary_key=True)
    campaign_id: int = Field(foreign_key="campaign.id")
    topic_id: int = Field(foreign_key="topic.id", index=True)
    key: str = Field(sa_column=Column(Text, nullable=False))
    run: str = Field(sa_column=Column(Text, nullable=False))
    refs: str = Field(sa_column=Column(Text, nullable=False))
    created_at: datetime = _time()


class AnswerSentence(SQLModel, table=True):
    """A sentence of an answer, in order, with its citations (indices into the answer's refs)."""

    __tablename__ = "answer_sentence"
    __table_args__ = (CheckConstraint("position >= 0", name="ck_answer_sentence_position"),)

    answer_id: int = Field(foreign_key="rag_answer.id", primary_key=True)
    position: int = Field(primary_key=True)
    text: str = Field(sa_column=Column(Text, nullable=False))
    citations: str = Field(sa_column=Column(Text, nullable=False))


class NuggetAssignment(SQLModel, table=True):
    """One label of an (answer, nugget) cell by an assessor; append-only, the latest decides."""

    __tablename__ = "nugget_assignment"
    __table_args__ = (
        UniqueConstraint("answer_id", "nugget_id", "annotator_id", "version",
                         name="uq_nugget_assignment_cell_version"),
        one_of("nugget_assignment", "label", NUGGET_LABELS),
        CheckConstraint("version >= 1", name="ck_nugget_assignment_version"),
        CheckConstraint("seconds IS NULL OR seconds >= 0", name="ck_nugget_assignment_seconds"),
    )

    id: int | None = Field(default=None, primary_key=True)
    answer_id: int = Field(foreign_key="rag_answer.id")
    nugget_id: int = Field(foreign_key="nugget.id", index=True)
    annotator_id: int = Field(foreign_key="annotator.id", index=True)
    version: int
    label: str
    created_at: datetime = _time()
    seconds: float | None = None
    suggested: str | None = None


class NuggetSetting(SQLModel, table=True):
    """A campaign's nugget assignment settings (revision 0015): the overlap K."""

    __tablename__ = "nugget_setting"
    __table_args__ = (CheckConstraint("overlap >= 1", name="ck_nugget_setting_overlap"),)

    campaign_id: int = Field(foreign_key="campaign.id", primary_key=True)
    overlap: int
