"""The bundle schema: SQLAlchemy 2 ORM models. Alembic migrations under ``migrations/`` are the
authority on how a bundle file is laid out; these models and the migrations must agree, which a
test checks by comparing a migrated bundle with ``Base.metadata``.

Naming: tables are plural nouns; a model that takes part in a comparison is ``model_a``/
``model_b`` where ``a`` is the side shown first (left). Outcomes use ``workbench.domain.Outcome``
values ("a", "b", "tie", "both_bad").
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    DateTime,
    Float,
    ForeignKey,
    Index,
    LargeBinary,
    MetaData,
    String,
    Text,
    TypeDecorator,
    UniqueConstraint,
    false,
    func,
    text,
)
from sqlalchemy.engine import Dialect
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship

NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


def utcnow() -> datetime:
    return datetime.now(UTC)


class UtcDateTime(TypeDecorator[datetime]):
    """A moment in UTC, read back as a naive UTC datetime on every backend.

    SQLite keeps no time zone and returns what was written (the app writes UTC); PostgreSQL's
    ``timestamptz`` returns aware values. Reading both the same way keeps comparisons, exports
    and pushes between backends identical.
    """

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is not None and value.tzinfo is not None:
            return value.astimezone(UTC).replace(tzinfo=None)
        return value


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING_CONVENTION)
    type_annotation_map = {dict[str, Any]: JSON, datetime: UtcDateTime()}  # noqa: RUF012


# --- provenance -------------------------------------------------------------------------------


class BundleInfo(Base):
    """Key/value facts about the bundle itself (its id, the app version that created it)."""

    __tablename__ = "bundle_info"

    key: Mapped[str] = mapped_column(String(64), primary_key=True)
    value: Mapped[str] = mapped_column(Text)


class Source(Base):
    """A benchmark (or other origin) that items come from, such as ``visit-bench``."""

    __tablename__ = "sources"

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(128), unique=True)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class Import(Base):
    """One run of an importer over one set of files: what was read and what it produced.

    ``fingerprint`` is the SHA-256 over the importer name and the files' own hashes, so the same
    files imported again are recognised and the import is a no-op.
    """

    __tablename__ = "imports"
    __table_args__ = (UniqueConstraint("importer", "fingerprint"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    importer: Mapped[str] = mapped_column(String(128))
    importer_version: Mapped[str] = mapped_column(String(32))
    fingerprint: Mapped[str] = mapped_column(String(64))
    counts: Mapped[dict[str, Any]] = mapped_column(default=dict)
    warnings: Mapped[dict[str, Any]] = mapped_column(default=dict)
    app_version: Mapped[str] = mapped_column(String(32))
    started_at: Mapped[datetime]
    finished_at: Mapped[datetime] = mapped_column(default=utcnow)

    files: Mapped[list[ImportFile]] = relationship(
        back_populates="import_", cascade="all, delete-orphan", order_by="ImportFile.id"
    )


class ImportFile(Base):
    """A file read by an import, with its hash at the time it was read."""

    __tablename__ = "import_files"

    id: Mapped[int] = mapped_column(primary_key=True)
    import_id: Mapped[int] = mapped_column(ForeignKey("imports.id", ondelete="CASCADE"), index=True)
    file_name: Mapped[str] = mapped_column(Text)
    sha256: Mapped[str] = mapped_column(String(64))
    size_bytes: Mapped[int]

    import_: Mapped[Import] = relationship(back_populates="files")


# --- content ----------------------------------------------------------------------------------


class Item(Base):
    """A benchmark item: one (image set, conversation) to answer."""

    __tablename__ = "items"
    __table_args__ = (UniqueConstraint("source_id", "external_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    source_id: Mapped[int] = mapped_column(ForeignKey("sources.id"), index=True)
    import_id: Mapped[int | None] = mapped_column(ForeignKey("imports.id"), index=True)
    external_id: Mapped[str] = mapped_column(String(256))
    family: Mapped[str | None] = mapped_column(String(256), index=True)
    category: Mapped[str | None] = mapped_column(String(256), index=True)
    language: Mapped[str | None] = mapped_column(String(64), index=True)
    metadata_: Mapped[dict[str, Any]] = mapped_column("metadata", default=dict)

    source: Mapped[Source] = relationship()
    turns: Mapped[list[Turn]] = relationship(
        back_populates="item", cascade="all, delete-orphan", order_by="Turn.index"
    )
    images: Mapped[list[ItemImage]] = relationship(
        back_populates="item", cascade="all, delete-orphan", order_by="ItemImage.position"
    )
    captions: Mapped[list[Caption]] = relationship(
        back_populates="item", cascade="all, delete-orphan", order_by="Caption.id"
    )
    #: the categories of an item a multi-label source tags with several (see ItemCategory)
    tagged_categories: Mapped[list[ItemCategory]] = relationship(
        cascade="all, delete-orphan", order_by="ItemCategory.category"
    )


class ItemCategory(Base):
    """One of the categories of an item that has several (a multi-label source, such as
    VisionArena's category flags). ``Item.category`` keeps the first, shown where one is shown;
    the judgment read model's category filter matches an item by either."""

    __tablename__ = "item_categories"

    item_id: Mapped[int] = mapped_column(
        ForeignKey("items.id", ondelete="CASCADE"), primary_key=True
    )
    category: Mapped[str] = mapped_column(String(256), primary_key=True, index=True)


class Turn(Base):
    """One user turn of an item; single-turn items have one turn with index 1."""

    __tablename__ = "turns"
    __table_args__ = (UniqueConstraint("item_id", "index"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    item_id: Mapped[int] = mapped_column(ForeignKey("items.id", ondelete="CASCADE"))
    index: Mapped[int]
    prompt: Mapped[str] = mapped_column(Text)
    category: Mapped[str | None] = mapped_column(String(256))
    focus_points: Mapped[str | None] = mapped_column(Text)

    item: Mapped[Item] = relationship(back_populates="turns")
    references: Mapped[list[Reference]] = relationship(
        back_populates="turn", cascade="all, delete-orphan", order_by="Reference.id"
    )


class Image(Base):
    """Image bytes, stored once per distinct content."""

    __tablename__ = "images"

    id: Mapped[int] = mapped_column(primary_key=True)
    sha256: Mapped[str] = mapped_column(String(64), unique=True)
    format: Mapped[str] = mapped_column(String(16))
    width: Mapped[int]
    height: Mapped[int]
    size_bytes: Mapped[int]
    data: Mapped[bytes] = mapped_column(LargeBinary)


class ItemImage(Base):
    """An item's image slot. ``image_id`` is None when the source named an image that was not
    available at import; the slot keeps its position and original reference."""

    __tablename__ = "item_images"
    __table_args__ = (UniqueConstraint("item_id", "position"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    item_id: Mapped[int] = mapped_column(ForeignKey("items.id", ondelete="CASCADE"))
    position: Mapped[int]
    image_id: Mapped[int | None] = mapped_column(ForeignKey("images.id"), index=True)
    original_ref: Mapped[str] = mapped_column(Text)

    item: Mapped[Item] = relationship(back_populates="images")
    image: Mapped[Image | None] = relationship()


class Caption(Base):
    """A caption of an item (or of one of its images, by position)."""

    __tablename__ = "captions"

    id: Mapped[int] = mapped_column(primary_key=True)
    item_id: Mapped[int] = mapped_column(ForeignKey("items.id", ondelete="CASCADE"), index=True)
    image_position: Mapped[int | None]
    kind: Mapped[str] = mapped_column(String(64))
    source: Mapped[str] = mapped_column(String(128), default="")
    text: Mapped[str] = mapped_column(Text)

    item: Mapped[Item] = relationship(back_populates="captions")


class Reference(Base):
    """A reference answer for a turn, with verification flags (None where not verified)."""

    __tablename__ = "references"

    id: Mapped[int] = mapped_column(primary_key=True)
    turn_id: Mapped[int] = mapped_column(ForeignKey("turns.id", ondelete="CASCADE"), index=True)
    kind: Mapped[str] = mapped_column(String(64))
    source: Mapped[str] = mapped_column(String(128), default="")
    text: Mapped[str] = mapped_column(Text)
    verified_correct: Mapped[bool | None] = mapped_column(Boolean)
    problem_in_caption: Mapped[bool | None] = mapped_column(Boolean)
    problem_in_reference: Mapped[bool | None] = mapped_column(Boolean)

    turn: Mapped[Turn] = relationship(back_populates="references")


class Model(Base):
    """A model that answered items or judged them."""

    __tablename__ = "models"

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(256), unique=True)
    display_name: Mapped[str | None] = mapped_column(String(256))
    metadata_: Mapped[dict[str, Any]] = mapped_column("metadata", default=dict)


class Output(Base):
    """A model's answer to one turn, under a conversation context ("standard" or an ablation)."""

    __tablename__ = "outputs"
    __table_args__ = (UniqueConstraint("turn_id", "model_id", "context"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    turn_id: Mapped[int] = mapped_column(ForeignKey("turns.id", ondelete="CASCADE"))
    model_id: Mapped[int] = mapped_column(ForeignKey("models.id"), index=True)
    import_id: Mapped[int | None] = mapped_column(ForeignKey("imports.id"), index=True)
    context: Mapped[str] = mapped_column(String(64), default="standard")
    text: Mapped[str] = mapped_column(Text)
    metadata_: Mapped[dict[str, Any]] = mapped_column("metadata", default=dict)

    turn: Mapped[Turn] = relationship()
    model: Mapped[Model] = relationship()


# --- judgments --------------------------------------------------------------------------------


class PriorJudgment(Base):
    """A judgment published with a benchmark: a human vote, a judge verdict or a battle outcome.

    ``group_key`` ties judgments of one tuple together (VisIT-Bench's five raters of one pair).
    """

    __tablename__ = "prior_judgments"
    __table_args__ = (Index("ix_prior_judgments_models", "model_a_id", "model_b_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    import_id: Mapped[int] = mapped_column(ForeignKey("imports.id"), index=True)
    item_id: Mapped[int | None] = mapped_column(ForeignKey("items.id"), index=True)
    kind: Mapped[str] = mapped_column(String(16))
    criterion: Mapped[str] = mapped_column(String(64), default="overall")
    turn_index: Mapped[int | None]
    model_a_id: Mapped[int] = mapped_column(ForeignKey("models.id"))
    model_b_id: Mapped[int | None] = mapped_column(ForeignKey("models.id"))
    outcome: Mapped[str | None] = mapped_column(String(16))
    strength: Mapped[int] = mapped_column(default=1)
    label: Mapped[str | None] = mapped_column(String(64))
    score: Mapped[float | None] = mapped_column(Float)
    rater: Mapped[str | None] = mapped_column(String(128))
    group_key: Mapped[str | None] = mapped_column(String(256), index=True)
    raw_text: Mapped[str | None] = mapped_column(Text)
    metadata_: Mapped[dict[str, Any]] = mapped_column("metadata", default=dict)


class Annotator(Base):
    """A person who casts votes. ``handle`` is what exports pseudonymize on request."""

    __tablename__ = "annotators"

    id: Mapped[int] = mapped_column(primary_key=True)
    handle: Mapped[str] = mapped_column(String(128), unique=True)
    display_name: Mapped[str | None] = mapped_column(String(256))
    expertise: Mapped[str | None] = mapped_column(String(256))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class Campaign(Base):
    """A blind annotation campaign: which protocol, how pairs are drawn, and from which seed."""

    __tablename__ = "campaigns"

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(256), unique=True)
    protocol: Mapped[str] = mapped_column(String(128))
    seed: Mapped[int]
    votes_per_pair: Mapped[int] = mapped_column(default=1)
    settings: Mapped[dict[str, Any]] = mapped_column(default=dict)
    status: Mapped[str] = mapped_column(String(32), default="open")
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class ScheduledPair(Base):
    """One task of a campaign's schedule, with the positions it is shown in.

    ``right_model_id`` is None for protocols that show a single output (grading, verification).
    """

    __tablename__ = "scheduled_pairs"
    __table_args__ = (UniqueConstraint("campaign_id", "sequence"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    campaign_id: Mapped[int] = mapped_column(ForeignKey("campaigns.id", ondelete="CASCADE"))
    sequence: Mapped[int]
    item_id: Mapped[int] = mapped_column(ForeignKey("items.id"), index=True)
    turn_index: Mapped[int | None]
    left_model_id: Mapped[int | None] = mapped_column(ForeignKey("models.id"))
    right_model_id: Mapped[int | None] = mapped_column(ForeignKey("models.id"))
    votes_target: Mapped[int] = mapped_column(default=1)
    gold_choice: Mapped[str | None] = mapped_column(String(32))


class PairLease(Base):
    """A task handed to an annotator and not yet answered: until ``expires_at`` it counts
    towards the pair's votes target, so annotators working at once are not all given the task
    that needs one more vote. Answering (or skipping) deletes the lease; undo takes it again."""

    __tablename__ = "pair_leases"

    pair_id: Mapped[int] = mapped_column(
        ForeignKey("scheduled_pairs.id", ondelete="CASCADE"), primary_key=True
    )
    annotator_id: Mapped[int] = mapped_column(
        ForeignKey("annotators.id", ondelete="CASCADE"), primary_key=True
    )
    leased_at: Mapped[datetime] = mapped_column(default=utcnow)
    expires_at: Mapped[datetime]
    #: the task is shown with its right model first (schema 0008): kept while the lease is
    #: renewed, and read by the next annotator's hand-out, who is shown the other order
    shown_swapped: Mapped[bool] = mapped_column(default=False, server_default=false())


class Vote(Base):
    """A human judgment cast in a campaign: a choice (pairwise or verification), a grade, or a
    skip with its reason.

    ``model_a``/``model_b`` are the task's scheduled left and right models and ``choice`` is
    in their terms ("a": ``model_a``'s answer is better), whatever order this annotator saw;
    ``shown_swapped`` says they saw ``model_b`` first.

    Undo marks a vote with ``retracted_at`` instead of deleting it, so the audit trail stays.
    ``uuid`` identifies a vote across bundles, which makes merging offline packs idempotent.
    """

    __tablename__ = "votes"
    __table_args__ = (
        Index("ix_votes_models", "model_a_id", "model_b_id"),
        # the annotation queue asks "who has voted on this pair" for every task it hands out
        Index("ix_votes_pair_annotator", "pair_id", "annotator_id"),
        # the retracted votes alone, so the judgment fingerprint counts the live ones without
        # scanning the table (schema 0005)
        Index(
            "ix_votes_retracted",
            "id",
            sqlite_where=text("retracted_at IS NOT NULL"),
            postgresql_where=text("retracted_at IS NOT NULL"),
        ),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    uuid: Mapped[str] = mapped_column(String(32), unique=True)
    campaign_id: Mapped[int] = mapped_column(ForeignKey("campaigns.id"), index=True)
    pair_id: Mapped[int | None] = mapped_column(ForeignKey("scheduled_pairs.id"), index=True)
    annotator_id: Mapped[int] = mapped_column(ForeignKey("annotators.id"), index=True)
    item_id: Mapped[int] = mapped_column(ForeignKey("items.id"), index=True)
    turn_index: Mapped[int | None]
    criterion: Mapped[str] = mapped_column(String(64), default="overall")
    model_a_id: Mapped[int | None] = mapped_column(ForeignKey("models.id"))
    model_b_id: Mapped[int | None] = mapped_column(ForeignKey("models.id"))
    choice: Mapped[str | None] = mapped_column(String(32))
    grade: Mapped[float | None] = mapped_column(Float)
    comment: Mapped[str | None] = mapped_column(Text)
    skip_reason: Mapped[str | None] = mapped_column(Text)
    shown_at: Mapped[datetime | None]
    cast_at: Mapped[datetime] = mapped_column(default=utcnow)
    duration_ms: Mapped[int | None]
    retracted_at: Mapped[datetime | None]
    #: the annotator saw the task's right model first (schema 0008); ``model_a``/``model_b``
    #: and ``choice`` stay in the task's scheduled order either way
    shown_swapped: Mapped[bool] = mapped_column(default=False, server_default=false())


class JudgeRun(Base):
    """A run of an LLM judge: the template and parameters every verdict of it used.

    The API key is never stored; ``base_url`` and ``parameters`` hold no secrets.
    """

    __tablename__ = "judge_runs"

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(256), unique=True)
    template_name: Mapped[str] = mapped_column(String(128))
    template_version: Mapped[str] = mapped_column(String(32))
    template_text: Mapped[str] = mapped_column(Text)
    judge_model: Mapped[str] = mapped_column(String(256))
    base_url: Mapped[str | None] = mapped_column(Text)
    parameters: Mapped[dict[str, Any]] = mapped_column(default=dict)
    budget: Mapped[dict[str, Any]] = mapped_column(default=dict)
    status: Mapped[str] = mapped_column(String(32), default="created")
    started_at: Mapped[datetime] = mapped_column(default=utcnow)
    finished_at: Mapped[datetime | None]
    #: the process judging the run (``host:pid``) until ``claim_expires_at`` (schema 0003): a
    #: second process running the same command stays out instead of paying twice
    claimed_by: Mapped[str | None] = mapped_column(String(256))
    claim_expires_at: Mapped[datetime | None]


class JudgeVerdict(Base):
    """One judge call's result for one ordering of a pair (``model_a`` shown as A)."""

    __tablename__ = "judge_verdicts"
    __table_args__ = (
        Index("ix_judge_verdicts_models", "model_a_id", "model_b_id"),
        # each item's verdicts of a request once per run (schema 0003, the item since 0010:
        # look-alike items send identical requests); NULLs folded, as both backends treat
        # NULLs as distinct in a unique index
        Index(
            "ux_judge_verdicts_request",
            "run_id",
            "item_id",
            "request_hash",
            "model_a_id",
            func.coalesce(text("model_b_id"), 0),
            "criterion",
            func.coalesce(text("turn_index"), -1),
            unique=True,
        ),
        # the failed verdicts alone, for the judgment fingerprint (schema 0005)
        Index(
            "ix_judge_verdicts_failed",
            "id",
            sqlite_where=text("error IS NOT NULL"),
            postgresql_where=text("error IS NOT NULL"),
        ),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    run_id: Mapped[int] = mapped_column(ForeignKey("judge_runs.id", ondelete="CASCADE"), index=True)
    item_id: Mapped[int] = mapped_column(ForeignKey("items.id"), index=True)
    turn_index: Mapped[int | None]
    criterion: Mapped[str] = mapped_column(String(64), default="overall")
    model_a_id: Mapped[int] = mapped_column(ForeignKey("models.id"))
    model_b_id: Mapped[int | None] = mapped_column(ForeignKey("models.id"))
    outcome: Mapped[str | None] = mapped_column(String(16))
    strength: Mapped[int] = mapped_column(default=1)
    label: Mapped[str | None] = mapped_column(String(64))
    score: Mapped[float | None] = mapped_column(Float)
    position_flip: Mapped[bool | None] = mapped_column(Boolean)
    request_hash: Mapped[str] = mapped_column(String(64), index=True)
    raw_text: Mapped[str | None] = mapped_column(Text)
    prompt_tokens: Mapped[int | None]
    completion_tokens: Mapped[int | None]
    cost_usd: Mapped[float | None] = mapped_column(Float)
    latency_ms: Mapped[int | None]
    error: Mapped[str | None] = mapped_column(Text)
    #: flags of how the verdict was read (extracted by the follow-up, unreadable, reference side)
    metadata_: Mapped[dict[str, Any]] = mapped_column("metadata", default=dict)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class ResponseCache(Base):
    """Judge responses by request hash, so a re-run of the same requests costs nothing."""

    __tablename__ = "response_cache"

    request_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    response_text: Mapped[str] = mapped_column(Text)
    usage: Mapped[dict[str, Any]] = mapped_column(default=dict)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


# --- campaign counters and adjudication ---------------------------------------------------------


class CampaignCount(Base):
    """A campaign's progress, kept by ``storage.counters`` in the transaction of every vote,
    undo, skip and lease, so progress is read in one row instead of a scan of the schedule.

    ``complete_tasks``: ordinary tasks (not attention checks) with their votes target reached;
    ``answered``/``skipped``: (task, annotator) answers and skips that stand; ``leases``: lease
    rows held, expired or not (expiry is a matter of the clock, not of a write).
    """

    __tablename__ = "campaign_counts"

    campaign_id: Mapped[int] = mapped_column(
        ForeignKey("campaigns.id", ondelete="CASCADE"), primary_key=True
    )
    tasks: Mapped[int] = mapped_column(default=0)
    gold_tasks: Mapped[int] = mapped_column(default=0)
    complete_tasks: Mapped[int] = mapped_column(default=0)
    answered: Mapped[int] = mapped_column(default=0)
    skipped: Mapped[int] = mapped_column(default=0)
    leases: Mapped[int] = mapped_column(default=0)


class CampaignPairCount(Base):
    """One task's standing answers, skips and leases; a missing row means all zero."""

    __tablename__ = "campaign_pair_counts"

    pair_id: Mapped[int] = mapped_column(
        ForeignKey("scheduled_pairs.id", ondelete="CASCADE"), primary_key=True
    )
    campaign_id: Mapped[int] = mapped_column(
        ForeignKey("campaigns.id", ondelete="CASCADE"), index=True
    )
    votes: Mapped[int] = mapped_column(default=0)
    skips: Mapped[int] = mapped_column(default=0)
    leases: Mapped[int] = mapped_column(default=0)


class CampaignAnnotatorCount(Base):
    """One annotator's progress in a campaign. ``answered_open`` counts the tasks they answered
    or skipped that are still open (short of votes, or attention checks): the open tasks left
    for them are the campaign's open tasks minus these."""

    __tablename__ = "campaign_annotator_counts"

    campaign_id: Mapped[int] = mapped_column(
        ForeignKey("campaigns.id", ondelete="CASCADE"), primary_key=True
    )
    annotator_id: Mapped[int] = mapped_column(
        ForeignKey("annotators.id", ondelete="CASCADE"), primary_key=True
    )
    answered: Mapped[int] = mapped_column(default=0)
    skipped: Mapped[int] = mapped_column(default=0)
    answered_open: Mapped[int] = mapped_column(default=0)


class Adjudication(Base):
    """A coordinator's settled answer for a task the annotators disagreed on: one per task and
    criterion (recording again replaces it), with who decided, when, and why."""

    __tablename__ = "adjudications"
    __table_args__ = (UniqueConstraint("pair_id", "criterion"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    campaign_id: Mapped[int] = mapped_column(
        ForeignKey("campaigns.id", ondelete="CASCADE"), index=True
    )
    pair_id: Mapped[int] = mapped_column(ForeignKey("scheduled_pairs.id", ondelete="CASCADE"))
    criterion: Mapped[str] = mapped_column(String(64), default="overall")
    choice: Mapped[str | None] = mapped_column(String(32))
    grade: Mapped[float | None] = mapped_column(Float)
    note: Mapped[str] = mapped_column(Text, default="")
    adjudicator: Mapped[str] = mapped_column(String(128))
    adjudicated_at: Mapped[datetime] = mapped_column(default=utcnow)


class Flag(Base):
    """An item, or one model's answer on it, that should not count as it is: a broken image, an
    answer that names its model, offensive content, or another problem told in ``note``.

    ``model_id`` None flags the item itself (or, from a task, the reference answer);
    ``origin`` says who raised it (``annotator``, or ``detector`` for the model-name detector
    run at import or judging). A campaign created to leave flagged comparisons out does so for
    flags that stand (``retracted_at`` None). ``uuid`` identifies a flag across bundles.
    """

    __tablename__ = "flags"

    id: Mapped[int] = mapped_column(primary_key=True)
    uuid: Mapped[str] = mapped_column(String(32), unique=True)
    item_id: Mapped[int] = mapped_column(ForeignKey("items.id", ondelete="CASCADE"), index=True)
    model_id: Mapped[int | None] = mapped_column(ForeignKey("models.id"))
    campaign_id: Mapped[int | None] = mapped_column(
        ForeignKey("campaigns.id", ondelete="CASCADE"), index=True
    )
    pair_id: Mapped[int | None] = mapped_column(
        ForeignKey("scheduled_pairs.id", ondelete="CASCADE")
    )
    annotator_id: Mapped[int | None] = mapped_column(ForeignKey("annotators.id"))
    reason: Mapped[str] = mapped_column(String(32))
    note: Mapped[str] = mapped_column(Text, default="")
    origin: Mapped[str] = mapped_column(String(32))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    retracted_at: Mapped[datetime | None]


class PairChoice(Base):
    """One choice of an adaptive campaign's next model pair (schema 0009), with what it was
    made from, so that ``campaign replay-choices`` can make it again from the seed and the
    order of votes.

    ``ordinal`` numbers the campaign's choices from 1 (the draw is a function of the seed and
    it); ``votes_added`` and ``votes_removed`` are the UUIDs of the votes counted since the
    previous choice and of those no longer counted (retracted), which is the order of votes the
    state was built from; ``state_sha256`` and ``probabilities_sha256`` are digests of the
    counts per candidate pair and of the rule's probabilities; ``available`` lists the
    candidate pairs (by index) that had a task open to the annotator; ``chosen`` is the index
    drawn, ``pair_id`` the task handed out. ``origin`` is ``lease`` (a task shown in the app)
    or ``pack`` (a task chosen for an offline pack).
    """

    __tablename__ = "pair_choices"
    __table_args__ = (UniqueConstraint("campaign_id", "ordinal"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    campaign_id: Mapped[int] = mapped_column(ForeignKey("campaigns.id", ondelete="CASCADE"))
    ordinal: Mapped[int]
    draw: Mapped[float] = mapped_column(Float)
    state_sha256: Mapped[str] = mapped_column(String(64))
    probabilities_sha256: Mapped[str] = mapped_column(String(64))
    available: Mapped[list[int]] = mapped_column(JSON)
    chosen: Mapped[int]
    pair_id: Mapped[int] = mapped_column(ForeignKey("scheduled_pairs.id", ondelete="CASCADE"))
    annotator_id: Mapped[int | None] = mapped_column(ForeignKey("annotators.id"))
    votes_added: Mapped[list[str]] = mapped_column(JSON)
    votes_removed: Mapped[list[str]] = mapped_column(JSON)
    origin: Mapped[str] = mapped_column(String(16))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class JudgmentCount(Base):
    """The pairwise judgments of one cell, kept by ``storage.judgment_counts`` in the
    transaction of every write of judgments (schema 0011), so that a leaderboard reads its
    counts per cell instead of scanning the judgments.

    A cell is everything a leaderboard's selection can tell apart without the item: the store
    (``origin``) and ``kind``, who judged (the import, campaign and annotator, or judge run),
    the item's source, the turn, criterion and output context, whether the judgment is derived,
    the two sides as shown and the outcome. Absent values are stored as 0 (ids), -1 (turn), so
    that the key is unique on both backends. ``strong`` counts the decisive judgments of
    strength 2 or more (a "much better" verdict counts ``decisive_weight`` battles);
    ``first_position`` is the cell's first judgment in stored order (the store's rank times
    2**40 plus its id), the order in which a board meets its models.
    """

    __tablename__ = "judgment_counts"

    model_a_id: Mapped[int] = mapped_column(primary_key=True)
    model_b_id: Mapped[int] = mapped_column(primary_key=True)
    outcome: Mapped[str] = mapped_column(String(16), primary_key=True)
    origin: Mapped[str] = mapped_column(String(16), primary_key=True)
    kind: Mapped[str] = mapped_column(String(16), primary_key=True)
    import_id: Mapped[int] = mapped_column(primary_key=True)
    campaign_id: Mapped[int] = mapped_column(primary_key=True)
    annotator_id: Mapped[int] = mapped_column(primary_key=True)
    judge_run_id: Mapped[int] = mapped_column(primary_key=True)
    source_id: Mapped[int] = mapped_column(primary_key=True)
    turn: Mapped[int] = mapped_column(primary_key=True)
    criterion: Mapped[str] = mapped_column(Text, primary_key=True)
    context: Mapped[str] = mapped_column(Text, primary_key=True)
    derived: Mapped[bool] = mapped_column(Boolean, primary_key=True)
    judgments: Mapped[int] = mapped_column(BigInteger)
    strong: Mapped[int] = mapped_column(BigInteger)
    first_position: Mapped[int] = mapped_column(BigInteger)
