"""SQLModel tables of the judgment store. They stay inside :mod:`annotate` (callers get records).

The schema is owned by the Alembic migrations in ``annotate/store/migrations``; these classes must
describe the schema at ``head`` (a test compares them with a migrated database).

What each revision added, and the invariants of its columns (queue and progress counters,
pool entries, automatic judges, key maps, judging aids, sampled pools), is written in
:mod:`pooljudge.annotate.store.migrations`.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from pooljudge.annotate.records import (
    ANNOTATOR_ROLES,
    ASSIGN_MODES,
    JUDGMENT_KINDS,
    JUDGMENT_SOURCES,
    JUDGMENT_STATUSES,
)
from sqlalchemy import (
    CheckConstraint,
    Column,
    DateTime,
    Index,
    String,
    Text,
    UniqueConstraint,
    false,
    text,
)
from sqlmodel import Field, SQLModel

__all__ = [
    "PASSAGE_CHECK",
    "Annotator",
    "AnnotatorTerm",
    "AnnotatorTopic",
    "AutoFailure",
    "AutoJudgment",
    "Campaign",
    "Claim",
    "Document",
    "GuidelinesAck",
    "Judgment",
    "Pair",
    "PoolEntry",
    "Skip",
    "Topic",
    "TopicAssignment",
    "TopicTerm",
    "UnsampledPair",
    "one_of",
]

_OPEN = text("open_slots > 0")
_ANSWERED = text("status = 'cannot_judge'")
_STRATUM = "stratum >= 1"
_INCLUSION = "inclusion > 0 AND inclusion <= 1"
# A document row is a whole document (no parent, no offsets) or a passage of its parent.
PASSAGE_CHECK = ("(parent IS NULL AND passage_start IS NULL AND passage_end IS NULL) OR "
                 "(parent IS NOT NULL AND passage_start IS NOT NULL AND passage_end IS NOT NULL "
                 "AND passage_start >= 0 AND passage_end >= passage_start)")
_PACE = text("kind = 'judgment' AND version = 1 AND status = 'label' AND source = 'human'")


def one_of(table: str, column: str, values: Sequence[str]) -> CheckConstraint:
    """``CHECK (column IN ('a', 'b', …))`` named ``ck_<table>_<column>``: a value set of
    :mod:`pooljudge.annotate.records`, written there once. A new value needs a migration too."""
    listed = ", ".join(f"'{value}'" for value in values)
    return CheckConstraint(f"{column} IN ({listed})", name=f"ck_{table}_{column}")


def _time(*, index: bool = False):
    """A naive-UTC timestamp column (the store keeps every time as naive UTC)."""
    return Field(sa_column=Column(DateTime(), nullable=False, index=index))


class Campaign(SQLModel, table=True):
    """A judging campaign: its label scale (JSON), overlap K, judging order and assignment mode."""

    __tablename__ = "campaign"
    __table_args__ = (
        CheckConstraint("overlap >= 1", name="ck_campaign_overlap"),
        one_of("campaign", "assign_mode", ASSIGN_MODES),
    )

    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(unique=True)
    scale: str = Field(sa_column=Column(Text, nullable=False))
    overlap: int
    judging_order: str
    assign_mode: str
    guidelines: str = Field(sa_column=Column(Text, nullable=False))
    show_others_labels: bool
    created_at: datetime = _time()
    order_seed: int = Field(default=0, sa_column_kwargs={"server_default": "0"})
    queue_mark: int = Field(default=0, sa_column_kwargs={"server_default": "0"})
    keymap: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    cannot_judge: bool = Field(default=False, sa_column_kwargs={"server_default": false()})
    rationale_labels: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    highlight_narrative: bool = Field(default=False,
                                      sa_column_kwargs={"server_default": false()})
    suggest_from: str | None = None
    min_dwell_ms: int = Field(default=300, sa_column_kwargs={"server_default": "300"})


class Topic(SQLModel, table=True):
    """A topic (information need) of one campaign; ``key`` is its id in the files."""

    __tablename__ = "topic"
    __table_args__ = (
        UniqueConstraint("campaign_id", "key", name="uq_topic_campaign_key"),
        Index("ix_topic_queue_open", "campaign_id", "queue_pos",
              postgresql_where=_OPEN, sqlite_where=_OPEN),
    )

    id: int | None = Field(default=None, primary_key=True)
    campaign_id: int = Field(foreign_key="campaign.id")
    key: str
    title: str = Field(sa_column=Column(Text, nullable=False))
    description: str = Field(sa_column=Column(Text, nullable=False))
    narrative: str = Field(sa_column=Column(Text, nullable=False))
    queue_pos: int
    open_slots: int


class Document(SQLModel, table=True):
    """A document of one campaign; ``key`` is its id in the files.

    A passage (revision 0009) is a document row whose ``text`` is ``text[passage_start:
    passage_end]`` of the row ``parent`` (its whole document, stored once per campaign):
    ``parent`` and the offsets are all NULL or all set, with ``0 <= start <= end``.
    """

    __tablename__ = "document"
    __table_args__ = (UniqueConstraint("campaign_id", "key", name="uq_document_campaign_key"),
                      CheckConstraint(PASSAGE_CHECK, name="ck_document_passage"))

    id: int | None = Field(default=None, primary_key=True)
    campaign_id: int = Field(foreign_key="campaign.id")
    key: str
    title: str = Field(sa_column=Column(Text, nullable=False))
    text: str = Field(sa_column=Column(Text, nullable=False))
    parent: int | None = Field(default=None, foreign_key="document.id")
    passage_start: int | None = None
    passage_end: int | None = None


class Pair(SQLModel, table=True):
    """A pooled (topic, document) pair; ``queue_pos`` is its place in the campaign's queue."""

    __tablename__ = "pair"
    __table_args__ = (
        UniqueConstraint("campaign_id", "topic_id", "document_id", name="uq_pair_topic_document"),
        Index("ix_pair_queue_open", "campaign_id", "queue_pos",
              postgresql_where=_OPEN, sqlite_where=_OPEN),
        Index("ix_pair_topic_queue_open", "topic_id", "queue_pos",
              postgresql_where=_OPEN, sqlite_where=_OPEN),
        Index("ix_pair_campaign_judged", "campaign_id", "judged"),
        CheckConstraint(_STRATUM, name="ck_pair_stratum"),
        CheckConstraint(_INCLUSION, name="ck_pair_inclusion"),
    )

    id: int | None = Field(default=None, primary_key=True)
    campaign_id: int = Field(foreign_key="campaign.id")
    topic_id: int = Field(foreign_key="topic.id")
    document_id: int = Field(foreign_key="document.id")
    pool_order: int
    best_rank: int
    runs: str = Field(sa_column=Column(Text, nullable=False))
    queue_pos: int
    open_slots: int
    judged: int
    stratum: int | None = None
    inclusion: float | None = None


class UnsampledPair(SQLModel, table=True):
    """A pooled pair a sampled pool's design did not draw (revision 0008): never queued.

    ``topic`` and ``doc`` are the ids in the files (the document need not be stored);
    ``stratum`` and ``inclusion`` (π) as in the pool file.
    """

    __tablename__ = "unsampled_pair"
    __table_args__ = (
        CheckConstraint(_STRATUM, name="ck_unsampled_pair_stratum"),
        CheckConstraint(_INCLUSION, name="ck_unsampled_pair_inclusion"),
    )

    campaign_id: int = Field(foreign_key="campaign.id", primary_key=True)
    topic: str = Field(sa_column=Column(Text, primary_key=True))
    doc: str = Field(sa_column=Column(Text, primary_key=True))
    pool_order: int
    best_rank: int
    runs: str = Field(sa_column=Column(Text, nullable=False))
    stratum: int
    inclusion: float


class PoolEntry(SQLModel, table=True):
    """A run that retrieved a pooled pair, and the pair's 1-based rank in it (revision 0003)."""

    __tablename__ = "pool_entry"
    __table_args__ = (CheckConstraint("rank >= 1", name="ck_pool_entry_rank"),)

    pair_id: int = Field(foreign_key="pair.id", primary_key=True)
    run: str = Field(sa_column=Column(Text, primary_key=True))
    rank: int


class Annotator(SQLModel, table=True):
    """A person (or a named source of labels) in one campaign.

    ``human`` is true for participants in the judging queue (people, and the simulated
    annotators of ``pooljudge simulate``); imported label sources such as ``qrels`` or ``llm``
    are not, and never count towards the overlap. A removed annotator is kept, inactive, so its
    judgments keep their author.
    """

    __tablename__ = "annotator"
    __table_args__ = (
        UniqueConstraint("campaign_id", "name", name="uq_annotator_campaign_name"),
        one_of("annotator", "role", ANNOTATOR_ROLES),
    )

    id: int | None = Field(default=None, primary_key=True)
    campaign_id: int = Field(foreign_key="campaign.id")
    name: str
    role: str
    human: bool
    active: bool
    token_hash: str | None = Field(default=None, unique=True)
    shown: int
    created_at: datetime = _time()


class AnnotatorTopic(SQLModel, table=True):
    """Progress counter (revision 0004): distinct pairs of ``topic_id`` the annotator judged.

    Counts kind ``judgment`` (any version once); written in the transaction of each first
    judgment, so it always equals a recount of the judgment table.
    """

    __tablename__ = "annotator_topic"

    annotator_id: int = Field(foreign_key="annotator.id", primary_key=True)
    topic_id: int = Field(foreign_key="topic.id", primary_key=True, index=True)
    judged: int


class Claim(SQLModel, table=True):
    """A pair handed to an annotator until ``expires_at``; at most one per annotator."""

    __tablename__ = "claim"

    id: int | None = Field(default=None, primary_key=True)
    pair_id: int = Field(foreign_key="pair.id")
    annotator_id: int = Field(foreign_key="annotator.id", unique=True)
    claimed_at: datetime = _time()
    expires_at: datetime = _time(index=True)
    position: int


class Skip(SQLModel, table=True):
    """A pair an annotator put aside: offered to them again only after every other pair."""

    __tablename__ = "skip"

    annotator_id: int = Field(foreign_key="annotator.id", primary_key=True)
    pair_id: int = Field(foreign_key="pair.id", primary_key=True)
    skipped_at: datetime = _time()


class TopicAssignment(SQLModel, table=True):
    """Assignment by topic: the annotators who hold a topic (at most the overlap K of them)."""

    __tablename__ = "topic_assignment"

    topic_id: int = Field(foreign_key="topic.id", primary_key=True)
    annotator_id: int = Field(foreign_key="annotator.id", primary_key=True)
    started_at: datetime = _time()


class Judgment(SQLModel, table=True):
    """One label, append-only: a change is a new ``version``; nothing is updated or deleted."""

    __tablename__ = "judgment"
    __table_args__ = (
        UniqueConstraint("pair_id", "annotator_id", "kind", "version",
                         name="uq_judgment_pair_annotator_kind_version"),
        one_of("judgment", "kind", JUDGMENT_KINDS),
        one_of("judgment", "source", JUDGMENT_SOURCES),
        CheckConstraint("version >= 1", name="ck_judgment_version"),
        one_of("judgment", "status", JUDGMENT_STATUSES),
        CheckConstraint("(status = 'label' AND label IS NOT NULL) "
                        "OR (status <> 'label' AND label IS NULL)",
                        name="ck_judgment_label_status"),
        CheckConstraint("status <> 'cannot_judge' OR rationale IS NOT NULL",
                        name="ck_judgment_cannot_judge_reason"),
        Index("ix_judgment_annotator_created", "annotator_id", "created_at"),
        Index("ix_judgment_cannot_judge", "annotator_id",
              postgresql_where=_ANSWERED, sqlite_where=_ANSWERED),
        Index("ix_judgment_pace", "annotator_id", "created_at",
              postgresql_where=_PACE, sqlite_where=_PACE),
    )

    id: int | None = Field(default=None, primary_key=True)
    pair_id: int = Field(foreign_key="pair.id")
    annotator_id: int = Field(foreign_key="annotator.id")
    kind: str
    version: int
    label: int | None = None
    source: str
    created_at: datetime = _time()
    seconds: float | None = None
    position: int | None = None
    comment: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    status: str = Field(sa_column=Column(String, nullable=False, server_default="label"))
    rationale: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    suggested: int | None = None


class AutoJudgment(SQLModel, table=True):
    """Provenance of an automatic judgment (revision 0005): one row per ``judgment`` row.

    ``template_sha256`` and ``prompt_sha256`` are the SHA-256 of the prompt template and of the
    filled prompt; ``reply`` is the model's raw text; ``attempts`` counts every HTTP request
    made for the pair (retries and the corrective re-ask included); ``latency`` is the seconds
    of the request that gave the label.
    """

    __tablename__ = "auto_judgment"
    __table_args__ = (CheckConstraint("attempts >= 1", name="ck_auto_judgment_attempts"),)

    judgment_id: int = Field(foreign_key="judgment.id", primary_key=True)
    model: str
    template_sha256: str
    prompt_sha256: str
    reply: str = Field(sa_column=Column(Text, nullable=False))
    reason: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    tokens_in: int
    tokens_out: int
    latency: float
    attempts: int


class AutoFailure(SQLModel, table=True):
    """A pair an automatic judge failed to label on its last try (revision 0005).

    At most one row per (pair, judge): a new failure replaces it, a label deletes it.
    """

    __tablename__ = "auto_failure"

    pair_id: int = Field(foreign_key="pair.id", primary_key=True)
    annotator_id: int = Field(foreign_key="annotator.id", primary_key=True, index=True)
    model: str
    reason: str = Field(sa_column=Column(Text, nullable=False))
    reply: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    attempts: int
    failed_at: datetime = _time()


class TopicTerm(SQLModel, table=True):
    """A highlight term the admin set for a topic (revision 0007)."""

    __tablename__ = "topic_term"

    topic_id: int = Field(foreign_key="topic.id", primary_key=True)
    term: str = Field(sa_column=Column(Text, primary_key=True))


class AnnotatorTerm(SQLModel, table=True):
    """A highlight term an annotator added for themselves on one topic (revision 0007)."""

    __tablename__ = "annotator_term"

    annotator_id: int = Field(foreign_key="annotator.id", primary_key=True)
    topic_id: int = Field(foreign_key="topic.id", primary_key=True)
    term: str = Field(sa_column=Column(Text, primary_key=True))
    created_at: datetime = _time()


class GuidelinesAck(SQLModel, table=True):
    """An annotator acknowledged the guidelines whose SHA-256 is ``guidelines_sha256``."""

    __tablename__ = "guidelines_ack"

    annotator_id: int = Field(foreign_key="annotator.id", primary_key=True)
    guidelines_sha256: str = Field(primary_key=True)
    acked_at: datetime = _time()


from pooljudge.annotate.store.access_models import CampaignRole, LoginSession  # noqa: E402, F401
from pooljudge.annotate.store.review_models import (  # noqa: E402, F401
    Certificate,
    Review,
    ReviewSample,
    ReviewTopic,
)
