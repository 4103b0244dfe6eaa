"""Blind annotation campaigns: create one (its seeded, counterbalanced schedule is stored with
it), list and describe them, manage annotator profiles, and report attention checks.

Annotating itself goes through ``workbench.services.voting.AnnotationSession``; offline packs
through ``workbench.services.packs``. Everything here is for the person running the campaign and
may name models; nothing here is meant for the annotation view.
"""

from __future__ import annotations

import hashlib
import json
import logging
import random
import secrets
import uuid
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from workbench import __version__
from workbench.domain.protocols import AnnotationProtocol, Display
from workbench.plugins import Registry, registry
from workbench.progress import CancelRequested, Progress, Steps, never_cancelled, no_progress
from workbench.services.campaign_errors import (
    CampaignError,
    SelectionError,
    UnknownAnnotatorError,
    UnknownCampaignError,
)
from workbench.services.campaign_items import (
    REFERENCE_NAME,
    Eligibility,
    ItemSpec,
    eligibility,
    resolve_contestants,
    resolve_items,
)
from workbench.services.campaign_settings import (
    ADAPTIVE,
    DESIGN_PAIR_RULE,
    CampaignSettings,
    PracticeTask,
    changed_settings,
    settings_of,
)
from workbench.services.flags import leave_out_flagged
from workbench.services.pair_choice import check_pair_choice
from workbench.services.scheduling import (
    REFERENCE,
    Comparison,
    Contestant,
    Pairing,
    PlannedTask,
    Slot,
    all_pairs,
    anchored_pairs,
    balanced_pairs,
    counterbalance,
    shuffled,
    single_tasks,
)
from workbench.storage.bundle import Bundle
from workbench.storage.counters import rebuild_counters
from workbench.storage.models import (
    Annotator,
    Campaign,
    CampaignAnnotatorCount,
    CampaignCount,
    CampaignPairCount,
    Item,
    Model,
    Output,
    ScheduledPair,
    Source,
    Turn,
    Vote,
)
from workbench.storage.queries import missing_image_slots

log = logging.getLogger(__name__)
#: guidelines longer than this are refused: they are read at every session start
MAX_GUIDELINES_CHARS = 200_000

#: the output metadata flag by which a source marks an answer right or wrong (the demo's
#: baseline answers carry it); practice tasks can be drawn from it without a practice file
CORRECT_FLAG = "correct"
ANSWER_KEY_EXPLANATION = (
    "The better response gives the right answer (the item's answer key says so); the other "
    "one does not."
)

CAMPAIGN_STATUS_OPEN = "open"


@dataclass(frozen=True)
class GoldSpec:
    """An attention check: one task whose answer is known.

    ``item`` names the item as in an item selection (``id`` or ``source:id``); ``first`` and
    ``second`` are the contestants (model names or ``reference``) for pairwise protocols,
    ``first`` alone for single-output ones, neither for verification. ``answer`` is a choice
    value of the protocol, from ``first``'s side ("a" = ``first`` is better); the schedule
    decides who is shown left and turns the answer round accordingly.
    """

    item: str
    answer: str
    first: str | None = None
    second: str | None = None
    turn_index: int | None = None


@dataclass(frozen=True)
class PracticeSpec(GoldSpec):
    """A practice task: like an attention check, a task whose answer is known, plus the
    ``explanation`` shown to the annotator after they answer it. Practice answers are never
    stored, so the same task cannot double as an attention check or a scheduled task."""

    explanation: str = ""


@dataclass(frozen=True)
class CampaignSpec:
    """What a campaign covers and how its schedule is drawn.

    ``models`` None means every model that answered a selected item; ``reference`` among them
    (or as ``anchor``) makes the reference answer take part as a response. ``pairing`` None
    takes the protocol's natural one: against the reference when the protocol shows the
    reference as a response, all pairs otherwise. ``pairs_per_model_pair`` is the target of
    balanced sampling (per model, for single-output protocols).
    """

    name: str
    protocol: str
    items: ItemSpec = field(default_factory=ItemSpec)
    models: Sequence[str] | None = None
    votes_per_pair: int = 1
    seed: int = 0
    pairing: Pairing | None = None
    anchor: str | None = None
    pairs_per_model_pair: int | None = None
    gold: Sequence[GoldSpec] = ()
    output_context: str = CampaignSettings.output_context
    #: how long a task shown in the app, or packed for an annotator, stays reserved for them
    #: (None: 30 minutes and 14 days)
    lease_minutes: float | None = None
    pack_lease_days: float | None = None
    #: leave out the chosen items that miss an image (an annotator cannot judge them)
    without_missing_images: bool = False
    #: the annotators' guidelines, as markdown (shown when a session starts and on F1)
    guidelines: str | None = None
    #: schedule no comparison showing a flagged answer or a flagged item (services.flags)
    exclude_flagged: bool = False
    #: candidate practice tasks; ``practice_count`` of them (None: all) are drawn with the seed
    #: among those on items the campaign does not schedule
    practice: Sequence[PracticeSpec] = ()
    practice_count: int | None = None
    #: whether an annotator may skip the practice round
    practice_optional: bool = CampaignSettings.practice_optional
    #: the annotators who work on the campaign (empty: every annotator of the bundle)
    annotators: Sequence[str] = ()
    #: how the next task's pair is chosen: ``uniform`` (the schedule's order) or ``adaptive``
    #: (from the votes so far, see ``services.adaptive_pairing``)
    pair_choice: str = "uniform"


@dataclass(frozen=True)
class CampaignSummary:
    name: str
    protocol: str
    seed: int
    pairing: str
    votes_per_pair: int
    contestants: tuple[str, ...]
    items: int
    tasks: int
    gold_tasks: int
    schedule_sha256: str
    shortfalls: dict[str, int]
    #: scheduled items one of whose images is missing (0 when they were left out)
    items_missing_images: int = 0
    #: items left out because an image is missing (``without_missing_images``)
    left_out_missing_images: int = 0
    #: tasks in the practice round (0: the campaign has none)
    practice_tasks: int = 0
    #: (slot, contestant) places left out as flagged (``exclude_flagged``)
    left_out_flagged: int = 0
    #: each task judges one turn of an item (``items`` then counts item turns)
    per_turn: bool = False
    #: the annotators assigned (empty: every annotator of the bundle may work)
    annotators: tuple[str, ...] = ()
    #: the tasks each annotator is expected to answer (see :func:`annotator_shares`)
    per_annotator: dict[str, int] = field(default_factory=dict)
    #: a preview (``dry_run``): nothing was stored
    dry_run: bool = False
    #: ``uniform`` or ``adaptive`` (the next pair chosen from the votes so far)
    pair_choice: str = "uniform"

    @property
    def pairing_text(self) -> str:
        """The pairing as the command and the dialog's preview state it."""
        if self.pair_choice == "adaptive":
            return f"adaptive pairing over {self.pairing} pairs"
        return f"{self.pairing} pairing"

    def as_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "protocol": self.protocol,
            "seed": self.seed,
            "pairing": self.pairing,
            "pair_choice": self.pair_choice,
            "votes_per_pair": self.votes_per_pair,
            "contestants": list(self.contestants),
            "items": self.items,
            "tasks": self.tasks,
            "gold_tasks": self.gold_tasks,
            "schedule_sha256": self.schedule_sha256,
            "items_missing_images": self.items_missing_images,
            "left_out_missing_images": self.left_out_missing_images,
            "left_out_flagged": self.left_out_flagged,
            "practice_tasks": self.practice_tasks,
            "per_turn": self.per_turn,
            "shortfalls": self.shortfalls,
            "annotators": list(self.annotators),
            "per_annotator": self.per_annotator,
            "dry_run": self.dry_run,
        }

    def annotator_lines(self) -> list[str]:
        """Who does how much: each annotator's expected tasks, and a warning when fewer
        annotators than votes per task can work on it (``campaign create`` prints these, the
        New campaign dialog's preview shows them)."""
        shares = self.per_annotator
        if not shares:
            return ["no annotator yet: add them with 'workbench annotator add'"]
        assigned = "assigned" if self.annotators else "in the bundle"
        lines = [f"{len(shares)} annotator(s) {assigned}, each about:"]
        lines += [f"  {handle}: {count} task(s)" for handle, count in shares.items()]
        if len(shares) < self.votes_per_pair:
            lines.append(
                f"warning: {self.votes_per_pair} votes per task need at least "
                f"{self.votes_per_pair} annotators; every task would be stuck"
            )
        return lines


def annotator_shares(
    tasks: int, gold_tasks: int, practice_tasks: int, votes_per_pair: int, handles: Sequence[str]
) -> dict[str, int]:
    """The tasks each of ``handles`` is expected to answer when they share the work evenly: the
    ordinary tasks' votes divided among them (an annotator answers a task once, so at most every
    ordinary task), plus every attention check and the practice round, which all of them do."""
    if not handles:
        return {}
    ordinary = tasks - gold_tasks
    share = min(ordinary, -(-ordinary * votes_per_pair // len(handles)))
    return dict.fromkeys(handles, share + gold_tasks + practice_tasks)


def assigned_annotators(campaign: Campaign) -> list[str] | None:
    """The handles the campaign is assigned to, None when every annotator may work on it."""
    handles = settings_of(campaign).assigned
    return None if handles is None else list(handles)


def check_assigned(campaign: Campaign, handle: str) -> None:
    """Refuse an annotator the campaign is not assigned to."""
    handles = assigned_annotators(campaign)
    if handles is not None and handle not in handles:
        raise CampaignError(
            f"annotator '{handle}' is not assigned to campaign '{campaign.name}' (its annotators: "
            f"{', '.join(handles)}); the coordinator can give them a task with "
            "'workbench campaign reassign'"
        )


@dataclass(frozen=True)
class AnnotatorInfo:
    handle: str
    display_name: str | None
    expertise: str | None

    def as_dict(self) -> dict[str, Any]:
        return {
            "handle": self.handle,
            "display_name": self.display_name,
            "expertise": self.expertise,
        }


# --- lookups shared by the campaign services ---------------------------------------------------


def find_campaign(session: Session, name: str) -> Campaign:
    campaign = session.scalar(select(Campaign).where(Campaign.name == name))
    if campaign is None:
        known = ", ".join(session.scalars(select(Campaign.name).order_by(Campaign.name)))
        raise UnknownCampaignError(
            f"no campaign named '{name}' in this bundle (campaigns: {known or 'none'})"
        )
    return campaign


def find_annotator(session: Session, handle: str) -> Annotator:
    annotator = session.scalar(select(Annotator).where(Annotator.handle == handle))
    if annotator is None:
        raise UnknownAnnotatorError(
            f"no annotator '{handle}' in this bundle; add one with 'workbench annotator add'"
        )
    return annotator


def campaign_protocol(campaign: Campaign, plugins: Registry | None = None) -> AnnotationProtocol:
    return (plugins or registry()).protocol(campaign.protocol)


def contestant_name(contestant: Contestant | None) -> str | None:
    if contestant is None:
        return None
    return REFERENCE_NAME if contestant is REFERENCE else str(contestant)


def _known_answer_rows(path: Path, what: str) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """(GoldSpec fields, the whole object) per row of a JSONL file of known answers."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as error:
        raise CampaignError(f"cannot read {path}: {error.strerror}") from error
    rows = []
    for row, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
            fields = {
                "item": str(data["item"]),
                "answer": str(data["answer"]),
                "first": data.get("first"),
                "second": data.get("second"),
                "turn_index": data.get("turn"),
            }
        except (json.JSONDecodeError, KeyError, TypeError) as error:
            raise CampaignError(
                f"{path.name}, row {row}: {what} is a JSON object with 'item' and "
                f"'answer' ({type(error).__name__}: {error})"
            ) from error
        rows.append((fields, data))
    return rows


def read_attention_checks(path: Path) -> list[GoldSpec]:
    """Attention checks from a JSONL file: item, answer, first, second, turn."""
    return [GoldSpec(**fields) for fields, _ in _known_answer_rows(path, "an attention check")]


def read_practice_tasks(path: Path) -> list[PracticeSpec]:
    """Practice tasks from a JSONL file: as attention checks, plus an explanation."""
    return [
        PracticeSpec(**fields, explanation=str(data.get("explanation") or ""))
        for fields, data in _known_answer_rows(path, "a practice task")
    ]


# --- creating a campaign -----------------------------------------------------------------------


def _check_spec(spec: CampaignSpec, protocol: AnnotationProtocol) -> tuple[Pairing, str | None]:
    """The pairing and anchor the spec means, or an error saying what does not fit."""
    if not spec.name.strip():
        raise CampaignError("a campaign needs a name")
    if spec.votes_per_pair < 1:
        raise CampaignError("votes per pair must be at least 1")
    for value, what in ((spec.lease_minutes, "lease minutes"), (spec.pack_lease_days, "pack days")):
        if value is not None and not value > 0:
            raise CampaignError(f"{what} must be a positive number")
    default = Pairing.ANCHOR if protocol.reference_as_response else Pairing.ALL
    pairing = spec.pairing or default
    anchor = spec.anchor
    if anchor is None and protocol.reference_as_response:
        anchor = REFERENCE_NAME
    if spec.pairs_per_model_pair is not None and pairing is not Pairing.BALANCED:
        raise CampaignError("a target count per model pair needs --pairing balanced")
    if pairing is Pairing.BALANCED and (spec.pairs_per_model_pair or 0) < 1:
        raise CampaignError("balanced pairing needs a target count per model pair (at least 1)")
    if protocol.display is Display.NONE:
        if spec.models or spec.anchor or pairing is not Pairing.ALL:
            raise CampaignError(
                f"protocol {protocol.name} shows no model output: give no models, anchor or pairing"
            )
    elif protocol.display is Display.SINGLE:
        if pairing is Pairing.ANCHOR or spec.anchor:
            raise CampaignError(f"protocol {protocol.name} shows one output: it has no anchor")
        if spec.models and REFERENCE_NAME in spec.models:
            raise CampaignError(f"protocol {protocol.name} grades models, not the reference")
    else:
        if protocol.reference_as_response and pairing is Pairing.ALL:
            raise CampaignError(
                f"protocol {protocol.name} compares each model with the reference: use anchor "
                "pairing (the default) or balanced pairing"
            )
        if pairing is Pairing.ANCHOR and not anchor:
            raise CampaignError("anchor pairing needs an anchor (a model name or 'reference')")
        if pairing is Pairing.ALL and anchor:
            raise CampaignError("an anchor needs --pairing anchor or balanced")
        if protocol.reference_as_response and anchor != REFERENCE_NAME:
            raise CampaignError(
                f"protocol {protocol.name} compares each model with the reference: the anchor "
                "is the reference"
            )
        if protocol.shows_reference and REFERENCE_NAME in (*(spec.models or ()), anchor):
            raise CampaignError(
                f"protocol {protocol.name} shows the reference, so it cannot also be one of the "
                "responses (annotators would recognise it)"
            )
    return pairing, anchor


def _gold_comparisons(
    session: Session,
    spec: CampaignSpec,
    protocol: AnnotationProtocol,
    eligible: Eligibility,
) -> list[Comparison]:
    return _known_answers(session, spec.gold, "attention check", spec, protocol, eligible)


def _known_answers(
    session: Session,
    known: Sequence[GoldSpec],
    what: str,
    spec: CampaignSpec,
    protocol: AnnotationProtocol,
    eligible: Eligibility,
) -> list[Comparison]:
    """The comparisons of tasks whose answer is known (attention checks, practice tasks),
    checked against the protocol; their slots' item rows are added to ``eligible``."""
    if known and protocol.grade_scale is not None:
        raise CampaignError(f"{what}s need a protocol with choices, not {protocol.name}")
    values = [choice.value for choice in protocol.choices]
    comparisons = []
    for gold in known:
        (item,) = resolve_items(session, ItemSpec(gold.item))
        if gold.answer not in values:
            raise CampaignError(
                f"{what} on {gold.item}: answer '{gold.answer}' is not one of " + ", ".join(values)
            )
        if protocol.per_turn != (gold.turn_index is not None):
            raise CampaignError(
                f"{what} on {gold.item}: "
                + ("give the turn" if protocol.per_turn else "this protocol is not per turn")
            )
        named = [name for name in (gold.first, gold.second) if name is not None]
        if len(named) != protocol.output_count:
            raise CampaignError(
                f"{what} on {gold.item}: protocol {protocol.name} shows "
                f"{protocol.output_count} output(s), the check names {len(named)}"
            )
        contestants = resolve_contestants(session, [item], named, spec.output_context)
        if protocol.display is Display.PAIR and len(contestants) != 2:
            raise CampaignError(f"{what} on {gold.item}: name two different contestants")
        slot = Slot(item.source, item.external_id, gold.turn_index)
        found = eligibility(session, [item], contestants, protocol, spec.output_context)
        if slot not in found.contestants or len(found.contestants[slot]) < len(named):
            raise CampaignError(
                f"{what} on {gold.item}: the item (turn) lacks the outputs or reference it needs"
            )
        eligible.item_ids[slot] = item.id
        by_name = {contestant_name(c): c for c in contestants}
        comparisons.append(
            Comparison(
                slot,
                by_name[gold.first] if gold.first is not None else None,
                by_name[gold.second] if gold.second is not None else None,
                gold.answer,
            )
        )
    return comparisons


def _plan(
    spec: CampaignSpec,
    protocol: AnnotationProtocol,
    pairing: Pairing,
    anchor_name: str | None,
    eligible: Eligibility,
    gold: list[Comparison],
) -> tuple[list[PlannedTask], dict[str, int]]:
    rng = random.Random(spec.seed)
    shortfalls: dict[str, int] = {}
    if protocol.display is Display.NONE:
        tasks = [PlannedTask(slot, None, None) for slot in sorted(eligible.contestants)]
        tasks += [PlannedTask(g.slot, None, None, g.gold) for g in gold]
        return shuffled(tasks, rng), shortfalls
    if protocol.display is Display.SINGLE:
        tasks, missing = single_tasks(eligible.contestants, rng, spec.pairs_per_model_pair)
        tasks += [PlannedTask(g.slot, g.first, None, g.gold) for g in gold]
        shortfalls = {str(contestant_name(c)): n for c, n in missing.items()}
        return shuffled(tasks, rng), shortfalls
    anchor: Contestant | None = anchor_name
    if anchor_name == REFERENCE_NAME:
        anchor = REFERENCE
    if pairing is Pairing.ALL:
        comparisons = all_pairs(eligible.contestants)
    elif pairing is Pairing.ANCHOR:
        assert anchor is not None
        comparisons = anchored_pairs(eligible.contestants, anchor)
    else:
        assert spec.pairs_per_model_pair is not None
        comparisons, missing_pairs = balanced_pairs(
            eligible.contestants, spec.pairs_per_model_pair, rng, anchor
        )
        shortfalls = {
            f"{contestant_name(a)} vs {contestant_name(b)}": n
            for (a, b), n in missing_pairs.items()
        }
    return shuffled(counterbalance([*comparisons, *gold], rng), rng), shortfalls


def _answer_key_practice(
    session: Session,
    spec: CampaignSpec,
    protocol: AnnotationProtocol,
    excluded: set[tuple[str, str]],
) -> list[PracticeSpec]:
    """Up to ``practice_count`` practice tasks drawn from answers their source marks right or
    wrong (``CORRECT_FLAG``), on items outside ``excluded``: a right answer against a wrong one
    on the same slot (all turns right against all wrong, for whole-conversation protocols).
    Only pairwise protocols between models with "a"/"b" choices have such a known answer."""
    values = {choice.value for choice in protocol.choices}
    if (
        protocol.display is not Display.PAIR
        or protocol.reference_as_response
        or protocol.grade_scale is not None
        or not {"a", "b"} <= values
    ):
        return []
    statement = (
        select(Source.name, Item.external_id, Turn.index, Model.name, Output.metadata_)
        .select_from(Output)
        .join(Turn, Output.turn_id == Turn.id)
        .join(Item, Turn.item_id == Item.id)
        .join(Source, Item.source_id == Source.id)
        .join(Model, Output.model_id == Model.id)
        .where(Output.context == spec.output_context)
    )
    models = [name for name in spec.models or () if name != REFERENCE_NAME]
    if models:
        statement = statement.where(Model.name.in_(models))
    turn_counts = dict(
        session.execute(
            select(Source.name + ":" + Item.external_id, func.count(Turn.id))
            .select_from(Turn)
            .join(Item, Turn.item_id == Item.id)
            .join(Source, Item.source_id == Source.id)
            .group_by(Source.name, Item.external_id)
        ).all()
    )
    flags: dict[tuple[str, str, int | None], dict[str, list[bool]]] = defaultdict(
        lambda: defaultdict(list)
    )
    for source, external_id, index, model, metadata in session.execute(statement):
        flag = (metadata or {}).get(CORRECT_FLAG)
        if (source, external_id) in excluded or not isinstance(flag, bool):
            continue
        flags[(source, external_id, index if protocol.per_turn else None)][model].append(flag)
    rng = random.Random(spec.seed)
    candidates = []
    for slot in sorted(flags, key=lambda key: (key[0], key[1], key[2] or 0)):
        source, external_id, turn = slot
        needed = 1 if turn is not None else turn_counts.get(f"{source}:{external_id}", 0)
        by_model = flags[slot]
        right = sorted(m for m, f in by_model.items() if len(f) == needed and all(f))
        wrong = sorted(m for m, f in by_model.items() if len(f) == needed and not any(f))
        if right and wrong:
            candidates.append(
                PracticeSpec(
                    f"{source}:{external_id}",
                    "a",
                    first=rng.choice(right),
                    second=rng.choice(wrong),
                    turn_index=turn,
                    explanation=ANSWER_KEY_EXPLANATION,
                )
            )
    wanted = min(spec.practice_count or len(candidates), len(candidates))
    return rng.sample(candidates, wanted)


def _practice_plan(
    session: Session,
    spec: CampaignSpec,
    protocol: AnnotationProtocol,
    eligible: Eligibility,
    scheduled: Sequence[PlannedTask],
) -> list[tuple[PlannedTask, str]]:
    """The practice round: (task, explanation) for ``practice_count`` of the candidate practice
    tasks (all when None), drawn with the seed among those whose item the campaign does not
    schedule (as a task or an attention check: an annotator must not meet a practice answer
    again, nor see an attention check's answer), sides counterbalanced like the schedule's."""
    if spec.practice_count is not None and spec.practice_count < 1:
        raise CampaignError("a practice round needs at least 1 task")
    scheduled_items = {(task.slot.source, task.slot.external_id) for task in scheduled}
    if not spec.practice:
        if spec.practice_count is None:
            return []
        drawn = _answer_key_practice(session, spec, protocol, scheduled_items)
        if not drawn:
            raise CampaignError(
                "a practice round needs tasks with known answers: no item outside the campaign "
                f"has answers its source marks right and wrong ('{CORRECT_FLAG}' in the output "
                "metadata) for this protocol; give a practice file"
            )
        spec = replace(spec, practice=drawn)
    comparisons = _known_answers(session, spec.practice, "practice task", spec, protocol, eligible)
    candidates = [
        (comparison, practice.explanation)
        for comparison, practice in zip(comparisons, spec.practice, strict=True)
        if (comparison.slot.source, comparison.slot.external_id) not in scheduled_items
    ]
    wanted = spec.practice_count if spec.practice_count is not None else len(candidates)
    if len(candidates) < max(wanted, 1):
        raise CampaignError(
            f"{len(candidates)} of the {len(spec.practice)} practice tasks are on items the "
            f"campaign does not schedule; the practice round needs {max(wanted, 1)}"
        )
    rng = random.Random(spec.seed)
    chosen = sorted(rng.sample(range(len(candidates)), wanted))
    picked = [candidates[index] for index in chosen]
    if protocol.display is Display.PAIR:
        # counterbalance regroups the comparisons by pair: find each one's explanation again
        explanations = {
            (c.slot, frozenset((c.first, c.second))): explanation for c, explanation in picked
        }
        planned = counterbalance([comparison for comparison, _ in picked], rng)
        round_ = [
            (task, explanations[(task.slot, frozenset((task.left, task.right)))])
            for task in planned
        ]
    else:
        round_ = [
            (PlannedTask(comparison.slot, comparison.first, None, comparison.gold), explanation)
            for comparison, explanation in picked
        ]
    rng.shuffle(round_)
    return round_


def _schedule_digest(tasks: Sequence[PlannedTask]) -> str:
    rows = [
        [
            task.slot.source,
            task.slot.external_id,
            task.slot.turn_index,
            contestant_name(task.left),
            contestant_name(task.right),
            task.gold,
        ]
        for task in tasks
    ]
    return hashlib.sha256(json.dumps(rows, ensure_ascii=False).encode()).hexdigest()


def check_guidelines(text: str) -> str | None:
    """The guidelines to store (None for blank text); CampaignError when too long."""
    if len(text) > MAX_GUIDELINES_CHARS:
        raise CampaignError(
            f"the guidelines are {len(text):,} characters long; keep them under "
            f"{MAX_GUIDELINES_CHARS:,}"
        )
    return text if text.strip() else None


def campaign_guidelines(bundle: Bundle, name: str) -> str | None:
    """The campaign's guidelines (markdown), None when it has none."""
    with bundle.read_session() as session:
        return settings_of(find_campaign(session, name)).guidelines


def set_campaign_guidelines(bundle: Bundle, name: str, text: str | None) -> None:
    """Replace the campaign's guidelines (None or blank removes them)."""
    guidelines = check_guidelines(text) if text is not None else None
    with bundle.session() as session:
        campaign = find_campaign(session, name)
        campaign.settings = changed_settings(campaign, guidelines=guidelines)


def items_missing_images(session: Session, item_ids: Sequence[int]) -> set[int]:
    """The items among ``item_ids`` with at least one image missing (named by the source but
    not available at import)."""
    return set(missing_image_slots(session, item_ids))


#: the steps :func:`create_campaign` reports progress for: (step, its index, how many steps),
#: except "storing", which reports (step, tasks stored, tasks) per :data:`PAIRS_PER_STEP`
CREATE_STEPS = ("items", "eligibility", "schedule", "storing", "counters")
PAIRS_PER_STEP = 5000


def create_campaign(
    bundle: Bundle,
    spec: CampaignSpec,
    plugins: Registry | None = None,
    *,
    progress: Progress = no_progress,
    cancel_requested: CancelRequested = never_cancelled,
    dry_run: bool = False,
) -> CampaignSummary:
    """Draw the campaign's schedule from its seed and store both in one transaction; with
    ``dry_run``, draw it and say what would be stored (the same summary, with each annotator's
    expected share), storing nothing: the New campaign dialog's preview and ``campaign create
    --dry-run``.

    ``progress(step, index, len(CREATE_STEPS))`` is called before each of
    :data:`CREATE_STEPS` (storing: per chunk of tasks); once ``cancel_requested()`` is true
    the next step raises :class:`~workbench.progress.WorkCancelledError` and the transaction
    is rolled back: no campaign, task or counter row is left."""
    steps = Steps(progress, cancel_requested, "campaign creation cancelled; nothing was stored")

    def step(name: str) -> None:
        steps(name, CREATE_STEPS.index(name), len(CREATE_STEPS))

    protocol = (plugins or registry()).protocol(spec.protocol)
    pairing, anchor_name = _check_spec(spec, protocol)
    check_pair_choice(spec.pair_choice, protocol.display)
    if spec.guidelines is not None:
        spec = replace(spec, guidelines=check_guidelines(spec.guidelines))
    with bundle.session() as session:
        if session.scalar(select(Campaign.id).where(Campaign.name == spec.name)) is not None:
            raise CampaignError(f"a campaign named '{spec.name}' already exists in this bundle")
        handles = _check_annotators(session, spec.annotators)
        step("items")
        items = resolve_items(session, spec.items)
        missing_images = items_missing_images(session, [item.id for item in items])
        left_out = 0
        if spec.without_missing_images:
            kept = [item for item in items if item.id not in missing_images]
            left_out = len(items) - len(kept)
            items = kept
        contestants: list[Contestant] = []
        if protocol.display is not Display.NONE:
            wanted = list(spec.models) if spec.models else None  # None: every model
            if wanted is not None and anchor_name and anchor_name not in wanted:
                wanted.append(anchor_name)
            contestants = resolve_contestants(session, items, wanted, spec.output_context)
            needs_reference = anchor_name == REFERENCE_NAME
            if needs_reference and REFERENCE not in contestants:
                contestants.insert(0, REFERENCE)
            needed = 2 if protocol.display is Display.PAIR else 1
            if len(contestants) < needed:
                raise SelectionError(f"protocol {protocol.name} needs {needed} contestants")
        step("eligibility")
        eligible = eligibility(session, items, contestants, protocol, spec.output_context)
        flagged_out = leave_out_flagged(session, eligible) if spec.exclude_flagged else 0
        gold = _gold_comparisons(session, spec, protocol, eligible)
        step("schedule")
        tasks, shortfalls = _plan(spec, protocol, pairing, anchor_name, eligible, gold)
        if not any(task.gold is None for task in tasks):
            raise SelectionError(
                "the selection gives no task: no item has the outputs (and references) this "
                "protocol needs for two of the chosen models"
                if protocol.display is Display.PAIR
                else "the selection gives no task: no item has what this protocol needs"
            )
        digest = _schedule_digest(tasks)
        practice = _practice_plan(session, spec, protocol, eligible, tasks)
        if dry_run:
            scheduled = {eligible.item_ids[task.slot] for task in tasks} & missing_images
            return _summary(
                spec, protocol, pairing, contestants, tasks, digest, shortfalls, handles,
                len(scheduled), left_out, len(practice), dry_run=True, flagged_out=flagged_out,
            )  # fmt: skip
        shown = [*tasks, *(task for task, _ in practice)]
        model_ids = dict(
            session.execute(
                select(Model.name, Model.id).where(
                    Model.name.in_(
                        {c for task in shown for c in (task.left, task.right) if isinstance(c, str)}
                    )
                )
            ).all()
        )

        def model_id(contestant: Contestant | None) -> int | None:
            return None if contestant is None or contestant is REFERENCE else model_ids[contestant]

        settings = CampaignSettings(
            uid=uuid.uuid4().hex,
            display=protocol.display.value,
            criteria=tuple(criterion.name for criterion in protocol.criteria),
            items=spec.items.text,
            contestants=tuple(str(contestant_name(c)) for c in contestants),
            pairing=pairing.value,
            anchor=anchor_name,
            pairs_per_model_pair=spec.pairs_per_model_pair,
            output_context=spec.output_context,
            lease_minutes=spec.lease_minutes or None,
            pack_lease_days=spec.pack_lease_days or None,
            schedule_sha256=digest,
            exclude_flagged=spec.exclude_flagged,
            left_out_flagged=flagged_out,
            shortfalls=shortfalls,
            guidelines=spec.guidelines or None,
            annotators=tuple(spec.annotators),
            # by natural keys, not row ids: a copy of the bundle (push, pull) renumbers rows
            # but not the JSON; the settings are the coordinator's, never shown
            practice=tuple(
                PracticeTask(
                    source=task.slot.source,
                    item=task.slot.external_id,
                    turn=task.slot.turn_index,
                    left=contestant_name(task.left),
                    right=contestant_name(task.right),
                    answer=str(task.gold),
                    explanation=explanation,
                )
                for task, explanation in practice
            ),
            practice_optional=spec.practice_optional,
            # only the main bundle knows it: packs name models by a salted hash of it
            pack_salt=secrets.token_hex(16),
            created_by=f"vlm-workbench {__version__}",
            pair_choice=spec.pair_choice,
            # an adaptive campaign names its rule, so a later default cannot change its choices
            pair_rule=DESIGN_PAIR_RULE if spec.pair_choice == ADAPTIVE else None,
        )
        campaign = Campaign(
            name=spec.name,
            protocol=protocol.name,
            seed=spec.seed,
            votes_per_pair=spec.votes_per_pair,
            status=CAMPAIGN_STATUS_OPEN,
            settings=settings.to_json(),
        )
        session.add(campaign)
        session.flush()

        # a large schedule takes seconds to store: a step (and a chance to cancel) per chunk
        for start in range(0, len(tasks), PAIRS_PER_STEP):
            steps("storing", start, len(tasks))
            session.add_all(
                ScheduledPair(
                    campaign_id=campaign.id,
                    sequence=sequence,
                    item_id=eligible.item_ids[task.slot],
                    turn_index=task.slot.turn_index,
                    left_model_id=model_id(task.left),
                    right_model_id=model_id(task.right),
                    votes_target=spec.votes_per_pair,
                    gold_choice=task.gold,
                )
                for sequence, task in enumerate(
                    tasks[start : start + PAIRS_PER_STEP], start=start + 1
                )
            )
            session.flush()
        step("counters")
        rebuild_counters(session, [campaign.id])
        scheduled_missing = {eligible.item_ids[task.slot] for task in tasks} & missing_images
        # the last chance: the transaction commits when this block ends
        steps.check()
    progress("done", len(CREATE_STEPS), len(CREATE_STEPS))
    log.info("created campaign %s: %d tasks", spec.name, len(tasks))
    return _summary(
        spec, protocol, pairing, contestants, tasks, digest, shortfalls, handles,
        len(scheduled_missing), left_out, len(practice), flagged_out=flagged_out,
    )  # fmt: skip


def _check_annotators(session: Session, handles: Sequence[str]) -> list[str]:
    """The handles to plan for: those assigned (each must be an annotator of the bundle), else
    every annotator of the bundle."""
    known = list(session.scalars(select(Annotator.handle).order_by(Annotator.handle)))
    unknown = [handle for handle in handles if handle not in known]
    if unknown:
        raise CampaignError(
            f"--annotators: no annotator {', '.join(repr(h) for h in unknown)} in this bundle; "
            "add one with 'workbench annotator add'"
        )
    return list(dict.fromkeys(handles)) or known


def _summary(
    spec: CampaignSpec,
    protocol: AnnotationProtocol,
    pairing: Pairing,
    contestants: Sequence[Contestant],
    tasks: Sequence[PlannedTask],
    digest: str,
    shortfalls: dict[str, int],
    handles: Sequence[str],
    missing_images: int,
    left_out: int,
    practice: int,
    dry_run: bool = False,
    flagged_out: int = 0,
) -> CampaignSummary:
    gold_tasks = sum(task.gold is not None for task in tasks)
    return CampaignSummary(
        name=spec.name,
        protocol=protocol.name,
        seed=spec.seed,
        pairing=pairing.value,
        votes_per_pair=spec.votes_per_pair,
        contestants=tuple(str(contestant_name(c)) for c in contestants),
        items=len({task.slot for task in tasks}),
        tasks=len(tasks),
        gold_tasks=gold_tasks,
        schedule_sha256=digest,
        shortfalls=shortfalls,
        items_missing_images=missing_images,
        left_out_missing_images=left_out,
        left_out_flagged=flagged_out,
        practice_tasks=practice,
        per_turn=any(task.slot.turn_index is not None for task in tasks),
        annotators=tuple(spec.annotators),
        per_annotator=annotator_shares(
            len(tasks), gold_tasks, practice, spec.votes_per_pair, handles
        ),
        dry_run=dry_run,
        pair_choice=spec.pair_choice,
    )


# --- describing campaigns ----------------------------------------------------------------------


def _active_votes(session: Session, campaign_id: int) -> list[Vote]:
    return list(
        session.scalars(
            select(Vote).where(Vote.campaign_id == campaign_id, Vote.retracted_at.is_(None))
        )
    )


def list_campaigns(bundle: Bundle) -> list[dict[str, Any]]:
    """One line per campaign: its protocol, size and how far the votes have come."""
    with bundle.read_session() as session:
        counts = {row.campaign_id: row for row in session.scalars(select(CampaignCount))}
        voted = dict(
            session.execute(
                select(CampaignPairCount.campaign_id, func.count())
                .where(CampaignPairCount.votes > 0)
                .group_by(CampaignPairCount.campaign_id)
            ).all()
        )
        return [
            {
                "name": campaign.name,
                "protocol": campaign.protocol,
                "status": campaign.status,
                "seed": campaign.seed,
                "votes_per_pair": campaign.votes_per_pair,
                "tasks": counts[campaign.id].tasks if campaign.id in counts else 0,
                "tasks_with_votes": voted.get(campaign.id, 0),
                "created_at": campaign.created_at.isoformat(),
            }
            for campaign in session.scalars(select(Campaign).order_by(Campaign.name))
        ]


def _reference_side(settings: CampaignSettings, pair: ScheduledPair) -> str | None:
    if settings.display != Display.PAIR.value:
        return None
    if pair.left_model_id is None:
        return "left"
    return "right" if pair.right_model_id is None else None


def gold_report(session: Session, campaign: Campaign) -> dict[str, dict[str, int]]:
    """Per annotator: attention checks answered and answered as expected (first criterion)."""
    criterion = settings_of(campaign).criterion
    gold: dict[int, str | None] = dict(
        session.execute(
            select(ScheduledPair.id, ScheduledPair.gold_choice).where(
                ScheduledPair.campaign_id == campaign.id, ScheduledPair.gold_choice.is_not(None)
            )
        ).all()
    )
    report: dict[str, dict[str, int]] = defaultdict(lambda: {"answered": 0, "correct": 0})
    statement = (
        select(Annotator.handle, Vote.pair_id, Vote.choice)
        .join(Annotator, Vote.annotator_id == Annotator.id)
        .where(
            Vote.campaign_id == campaign.id,
            Vote.retracted_at.is_(None),
            Vote.skip_reason.is_(None),
            Vote.criterion == criterion,
            Vote.pair_id.in_(list(gold)),
        )
    )
    for handle, pair_id, choice in session.execute(statement):
        report[handle]["answered"] += 1
        report[handle]["correct"] += int(pair_id is not None and choice == gold.get(pair_id))
    return dict(sorted(report.items()))


def campaign_details(bundle: Bundle, name: str) -> dict[str, Any]:
    """Everything about a campaign for the person running it: settings, the full schedule with
    positions and models, vote counts per task, per-annotator progress and attention checks."""
    with bundle.read_session() as session:
        campaign = find_campaign(session, name)
        typed = settings_of(campaign)
        # every setting, at its default where it was never stored, and any a newer app stored
        settings = {**campaign.settings, **typed.to_json()}
        settings.pop("pack_salt", None)
        models = dict(session.execute(select(Model.id, Model.name)).all())
        items = {
            item_id: (source, external_id)
            for item_id, source, external_id in session.execute(
                select(Item.id, Source.name, Item.external_id)
                .join(Source)
                .join(ScheduledPair, ScheduledPair.item_id == Item.id)
                .where(ScheduledPair.campaign_id == campaign.id)
                .distinct()
            )
        }
        votes = _active_votes(session, campaign.id)
        criterion = typed.criterion
        counted = [vote for vote in votes if vote.criterion == criterion or vote.skip_reason]
        voted = Counter(vote.pair_id for vote in counted if vote.skip_reason is None)
        skipped = Counter(vote.pair_id for vote in counted if vote.skip_reason is not None)
        pairs = list(
            session.scalars(
                select(ScheduledPair)
                .where(ScheduledPair.campaign_id == campaign.id)
                .order_by(ScheduledPair.sequence)
            )
        )
        progress = {
            handle: {"answered": answered, "skipped": skipped}
            for handle, answered, skipped in session.execute(
                select(
                    Annotator.handle,
                    CampaignAnnotatorCount.answered,
                    CampaignAnnotatorCount.skipped,
                )
                .join(Annotator, Annotator.id == CampaignAnnotatorCount.annotator_id)
                .where(
                    CampaignAnnotatorCount.campaign_id == campaign.id,
                    (CampaignAnnotatorCount.answered + CampaignAnnotatorCount.skipped) > 0,
                )
            )
        }
        totals = session.get(CampaignCount, campaign.id)
        schedule = [
            {
                "sequence": pair.sequence,
                "source": items[pair.item_id][0],
                "item": items[pair.item_id][1],
                "turn": pair.turn_index,
                "left": models.get(pair.left_model_id) if pair.left_model_id else None,
                "right": models.get(pair.right_model_id) if pair.right_model_id else None,
                "reference_side": _reference_side(typed, pair),
                "votes_target": pair.votes_target,
                "votes": voted[pair.id],
                "skips": skipped[pair.id],
                "gold": pair.gold_choice,
            }
            for pair in pairs
        ]
        return {
            "name": campaign.name,
            "protocol": campaign.protocol,
            "status": campaign.status,
            "seed": campaign.seed,
            "votes_per_pair": campaign.votes_per_pair,
            "created_at": campaign.created_at.isoformat(),
            "settings": settings,
            "tasks": len(pairs),
            "complete_tasks": totals.complete_tasks if totals else 0,
            "annotators": dict(sorted(progress.items())),
            "gold": gold_report(session, campaign),
            "schedule": schedule,
        }


# --- annotators --------------------------------------------------------------------------------


def add_annotator(
    bundle: Bundle,
    handle: str,
    display_name: str | None = None,
    expertise: str | None = None,
) -> AnnotatorInfo:
    """Add an annotator profile; the handle is how votes and packs name them."""
    handle = handle.strip()
    if not handle:
        raise CampaignError("an annotator needs a handle")
    with bundle.session() as session:
        if session.scalar(select(Annotator.id).where(Annotator.handle == handle)) is not None:
            raise CampaignError(f"an annotator '{handle}' already exists in this bundle")
        session.add(Annotator(handle=handle, display_name=display_name, expertise=expertise))
    return AnnotatorInfo(handle, display_name, expertise)


def list_annotators(bundle: Bundle) -> list[AnnotatorInfo]:
    with bundle.read_session() as session:
        return [
            AnnotatorInfo(annotator.handle, annotator.display_name, annotator.expertise)
            for annotator in session.scalars(select(Annotator).order_by(Annotator.handle))
        ]
