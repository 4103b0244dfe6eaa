"""A small campaign with known answers for the monitor and adjudication tests: three
annotators on every task of an arena campaign (half its items have a category, half none), one
attention check, one skip, and one annotator who disagrees on some tasks."""

from __future__ import annotations

from pathlib import Path

from tests.importers.canonical_helpers import write_jsonl
from tests.services.campaign_helpers import MODELS, campaign_item, registry_with_all_protocols
from workbench.domain.protocols import swap_sides
from workbench.services.campaigns import CampaignSpec, GoldSpec, add_annotator, create_campaign
from workbench.services.importing import import_files
from workbench.services.voting import AnnotationSession
from workbench.storage import Bundle

PLUGINS = registry_with_all_protocols()
CAMPAIGN = "ops"
ANNOTATORS = ("ann-a", "ann-b", "ann-c")
SKIP_REASON = "the image does not load"


def answer_for(handle: str, sequence: int) -> str:
    """ann-a and ann-b always prefer the left response; ann-c the right one on even tasks."""
    return "b" if handle == "ann-c" and sequence % 2 == 0 else "a"


def build_ops_bundle(folder: Path) -> tuple[Path, dict[tuple[int, str], str]]:
    """The bundle, and the answers cast: (task sequence, annotator) -> choice (or "skip")."""
    lines = []
    for number in range(6):
        line = campaign_item(f"q{number:03d}", MODELS[:2], turns=1)
        if number % 2 == 0:
            line["category"] = "counting"
        lines.append(line)
    path = folder / "ops.wbb"
    import_files(path, [write_jsonl(folder / "src", lines)], "jsonl")
    cast: dict[tuple[int, str], str] = {}
    with Bundle.open(path) as bundle:
        for handle in ANNOTATORS:
            add_annotator(bundle, handle)
        spec = CampaignSpec(
            CAMPAIGN,
            "arena-battle",
            models=list(MODELS[:2]),
            seed=3,
            votes_per_pair=3,
            gold=[GoldSpec("q001", "a", first=MODELS[0], second=MODELS[1])],
        )
        create_campaign(bundle, spec, PLUGINS)
        for handle in ANNOTATORS:
            session = AnnotationSession(bundle, CAMPAIGN, handle, PLUGINS)
            skipped = False
            while (task := session.next_task()) is not None:
                sequence = _sequence(bundle, session)
                if handle == "ann-b" and not skipped:
                    session.skip(task.token, SKIP_REASON)
                    cast[(sequence, handle)] = "skip"
                    skipped = True
                    continue
                session.cast(task.token, as_shown(session, answer_for(handle, sequence)))
                cast[(sequence, handle)] = answer_for(handle, sequence)
    return path, cast


def as_shown(session: AnnotationSession, answer: str) -> str:
    """An answer in the task's scheduled terms ("a": the scheduled left model), as the
    annotator gives it for the order the session shows the task in."""
    assert session._shown is not None
    return str(swap_sides(answer)) if session._shown.swapped else answer


def _sequence(bundle: Bundle, session: AnnotationSession) -> int:
    from workbench.storage.models import ScheduledPair

    assert session._shown is not None
    with bundle.read_session() as read:
        return read.get_one(ScheduledPair, session._shown.pair_id).sequence
