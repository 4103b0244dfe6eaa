"""Plain data of the workbench: what importers produce and what the rest of the app passes around.

Nothing here imports anything of ours or touches storage, so plugins can build these records
without knowing how a bundle is laid out.
"""

from workbench.domain.judgments import (
    DERIVED_KEY,
    REFERENCE_SIDE,
    STANDARD_CONTEXT,
    UNPARSED_KEY,
    JudgmentOrigin,
)
from workbench.domain.outcomes import JudgmentKind, Outcome
from workbench.domain.protocols import (
    AnnotationProtocol,
    Choice,
    Criterion,
    Display,
    GradeScale,
    ProtocolError,
)
from workbench.domain.records import (
    CaptionRecord,
    ImageRecord,
    ItemRecord,
    JudgmentRecord,
    ModelRecord,
    Origin,
    OutputRecord,
    ReferenceRecord,
    TurnRecord,
)

__all__ = [
    "DERIVED_KEY",
    "REFERENCE_SIDE",
    "STANDARD_CONTEXT",
    "UNPARSED_KEY",
    "AnnotationProtocol",
    "CaptionRecord",
    "Choice",
    "Criterion",
    "Display",
    "GradeScale",
    "ImageRecord",
    "ItemRecord",
    "JudgmentKind",
    "JudgmentOrigin",
    "JudgmentRecord",
    "ModelRecord",
    "Origin",
    "Outcome",
    "OutputRecord",
    "ProtocolError",
    "ReferenceRecord",
    "TurnRecord",
]
