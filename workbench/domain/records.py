"""Records an importer yields: one benchmark item with its turns, images and references, model
outputs, and prior judgments. They describe content only; identities in the bundle (row ids,
image hashes) are assigned when the records are written.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from workbench.domain.outcomes import JudgmentKind, Outcome


@dataclass(frozen=True, slots=True)
class Origin:
    """Where a record came from, for error messages: a file and, when it has rows, the row
    (1-based, counting data rows as a spreadsheet user would see them)."""

    file: str
    row: int | None = None

    def __str__(self) -> str:
        return self.file if self.row is None else f"{self.file}, row {self.row}"


@dataclass(frozen=True, slots=True)
class ImageRecord:
    """One image of an item, in display order.

    ``original_ref`` is how the source file named the image (a URL or file name); ``path`` is
    the local file it resolved to, ``data`` inline bytes (canonical JSONL with base64), and
    ``sha256`` the hash of an image the importer already checked and set aside while reading
    (images embedded in dataset rows; their bytes wait in the import's image spool). When none
    is available the image is recorded as missing and the item keeps its place for it.
    """

    position: int
    original_ref: str
    path: Path | None = None
    data: bytes | None = None
    sha256: str | None = None

    @property
    def is_missing(self) -> bool:
        return self.path is None and self.data is None and self.sha256 is None


@dataclass(frozen=True, slots=True)
class CaptionRecord:
    """A caption of the item's images; ``image_position`` None means it covers the whole item."""

    text: str
    kind: str = "instruction-conditioned"
    source: str = ""
    image_position: int | None = None


@dataclass(frozen=True, slots=True)
class ReferenceRecord:
    """A reference answer for one turn, with the verification flags its benchmark published.

    The flags are None where the benchmark did not verify this reference.
    """

    text: str
    kind: str = "reference"
    source: str = ""
    verified_correct: bool | None = None
    problem_in_caption: bool | None = None
    problem_in_reference: bool | None = None


@dataclass(frozen=True, slots=True)
class TurnRecord:
    """One user turn of an item (single-turn items have exactly one, index 1)."""

    index: int
    prompt: str
    category: str | None = None
    focus_points: str | None = None
    references: tuple[ReferenceRecord, ...] = ()


@dataclass(frozen=True, slots=True)
class ItemRecord:
    """A benchmark item: images, turns, captions, and free metadata.

    ``external_id`` is the benchmark's own id, unique within ``source``; it is how outputs and
    judgments imported later find their item.
    """

    source: str
    external_id: str
    turns: tuple[TurnRecord, ...]
    family: str | None = None
    category: str | None = None
    language: str | None = None
    images: tuple[ImageRecord, ...] = ()
    captions: tuple[CaptionRecord, ...] = ()
    metadata: dict[str, Any] = field(default_factory=dict)
    origin: Origin | None = None
    #: every category of an item a multi-label source tags with several (VisionArena's
    #: flags); ``category`` is the first, the one shown where one is shown
    categories: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class ModelRecord:
    """A model whose outputs or judgments appear in an import."""

    name: str
    display_name: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class OutputRecord:
    """A model's answer to one turn of an item.

    ``context`` separates answers produced under different conversation histories, such as
    ConvBench's ablations where earlier turns were replaced by the references.
    """

    source: str
    item_external_id: str
    model: str
    text: str
    turn_index: int = 1
    context: str = "standard"
    metadata: dict[str, Any] = field(default_factory=dict)
    origin: Origin | None = None


@dataclass(frozen=True, slots=True)
class JudgmentRecord:
    """A judgment published with a benchmark (a human vote, a judge verdict, or a battle).

    ``model_a`` was shown first (or left). ``outcome`` is None when the source's verdict could
    not be read; such judgments are kept, with their ``label`` and ``raw_text``, and reported.
    ``strength`` is 2 for a decisive verdict ("much better"), 1 otherwise. ``score`` carries a
    direct grade (ConvBench's 0-10) where there is no pairwise outcome.
    """

    source: str
    item_external_id: str | None
    kind: JudgmentKind
    model_a: str
    model_b: str | None
    outcome: Outcome | None
    criterion: str = "overall"
    turn_index: int | None = None
    strength: int = 1
    label: str | None = None
    score: float | None = None
    rater: str | None = None
    group_key: str | None = None
    raw_text: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)
    origin: Origin | None = None
