"""From a judge's answer to stored verdict rows, and the position-flip mark across both orders.

Stored rows follow the bundle's convention: ``model_a`` is the model shown as A and the outcome
is from the stored (a, b) order. The schema has no row for the reference answer, so when the
reference is one side, ``model_a`` is the model, ``model_b`` is empty, the outcome is from the
model's point of view, and the label ends with where the reference was shown
(``"A>B [reference as B]"``).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from workbench.domain import UNPARSED_KEY, Outcome
from workbench.judge.parsing import ParsedVerdict, Slot
from workbench.judge.templates import JudgeTemplate
from workbench.services.judging.worklist import REFERENCE, WorkUnit
from workbench.storage.models import JudgeVerdict

UNKNOWN_LABEL = "unknown"
#: metadata of a verdict given by a template's overall pass: the hash of the pass's request
OVERALL_PASS_KEY = "overall_pass_request"
EXTRACTED_SUFFIX = " (extracted)"
_REFERENCE_MARK = " [reference as {side}]"


@dataclass
class Resolution:
    """The verdicts of one request after parsing, the extraction follow-up and the fallback.

    ``extracted`` are the slots the follow-up resolved; ``unresolved`` those with no verdict in
    the end (stored as flagged ties or without an outcome, as the template says)."""

    verdicts: list[ParsedVerdict] = field(default_factory=list)
    extracted: set[Slot] = field(default_factory=set)
    unresolved: set[Slot] = field(default_factory=set)
    problems: list[str] = field(default_factory=list)
    #: the answer a slot's verdict was read from, where it is not the unit's first answer
    #: (the overall pass's verdicts)
    raw_texts: dict[Slot, str] = field(default_factory=dict)
    #: what a slot's row carries in its metadata besides the unparsed flag
    metadata: dict[Slot, dict[str, Any]] = field(default_factory=dict)


@dataclass(frozen=True)
class StoredSides:
    model_a: str
    model_b: str | None
    reversed: bool
    reference_side: str | None


def stored_sides(unit: WorkUnit) -> StoredSides:
    """How a unit's sides are stored (see the module docstring)."""
    if unit.side_b is None:
        return StoredSides(str(unit.side_a), None, False, None)
    if unit.side_a is REFERENCE:
        return StoredSides(str(unit.side_b), None, True, "A")
    if unit.side_b is REFERENCE:
        return StoredSides(str(unit.side_a), None, False, "B")
    return StoredSides(str(unit.side_a), str(unit.side_b), False, None)


def resolve(
    template: JudgeTemplate,
    expected: Sequence[Slot],
    found: Sequence[ParsedVerdict],
    problems: Sequence[str],
    extracted: Sequence[ParsedVerdict] = (),
) -> Resolution:
    """Combine the main answer's verdicts with the follow-up's and fill what is still missing
    by the template's rule."""
    resolution = Resolution(problems=list(problems))
    by_slot = {verdict.slot: verdict for verdict in found}
    from_follow_up = {verdict.slot: verdict for verdict in extracted}
    for slot in expected:
        if slot in by_slot:
            resolution.verdicts.append(by_slot[slot])
        elif slot in from_follow_up:
            verdict = from_follow_up[slot]
            resolution.verdicts.append(
                ParsedVerdict(
                    slot[0],
                    slot[1],
                    verdict.outcome,
                    verdict.strength,
                    (verdict.label or "") + EXTRACTED_SUFFIX,
                    verdict.score,
                )
            )
            resolution.extracted.add(slot)
        else:
            resolution.unresolved.add(slot)
            if template.unparsed == "tie":
                resolution.verdicts.append(
                    ParsedVerdict(slot[0], slot[1], Outcome.TIE, 1, UNKNOWN_LABEL)
                )
            else:
                resolution.verdicts.append(ParsedVerdict(slot[0], slot[1]))
    # Verdicts the template did not ask for (a judge grading an extra turn) are kept too.
    resolution.verdicts += [v for slot, v in by_slot.items() if slot not in set(expected)]
    return resolution


@dataclass(frozen=True)
class CallRecord:
    """What the calls behind one unit cost, as stored on its first verdict row."""

    request_hash: str
    raw_text: str
    prompt_tokens: int | None
    completion_tokens: int | None
    cost_usd: float | None
    latency_ms: int | None


def verdict_rows(
    unit: WorkUnit,
    template: JudgeTemplate,
    resolution: Resolution,
    call: CallRecord,
    run_id: int,
    model_ids: dict[str, int],
) -> list[dict[str, Any]]:
    """The ``judge_verdicts`` rows of one unit. A call's tokens, cost and latency are on the
    first row; the other rows of the same call (other criteria or turns) carry zero, so that
    sums over rows are right."""
    sides = stored_sides(unit)
    rows = []
    for position, verdict in enumerate(resolution.verdicts):
        outcome = verdict.outcome
        if outcome is not None and sides.reversed:
            outcome = outcome.swapped()
        label = verdict.label
        if label is not None and sides.reference_side is not None:
            label += _REFERENCE_MARK.format(side=sides.reference_side)
        error = None
        metadata: dict[str, Any] = dict(resolution.metadata.get(verdict.slot, {}))
        if verdict.slot in resolution.unresolved:
            reasons = "; ".join(resolution.problems) or "no verdict found"
            if template.unparsed == "tie":
                # a judgment the protocol counts (a tie), flagged so it can be told apart
                metadata[UNPARSED_KEY] = f"{reasons}; counted as a tie"
            else:
                # no judgment at all: kept out of the read model, like a failed request
                error = f"unparsed: {reasons}; no outcome stored"
        first = position == 0
        rows.append(
            {
                "run_id": run_id,
                "item_id": unit.item_id,
                "turn_index": verdict.turn_index
                if verdict.turn_index is not None
                else unit.judged_turn,
                "criterion": verdict.criterion,
                "model_a_id": model_ids[sides.model_a],
                "model_b_id": model_ids[sides.model_b] if sides.model_b is not None else None,
                "outcome": outcome.value if outcome is not None else None,
                "strength": verdict.strength,
                "label": label,
                "score": verdict.score,
                "position_flip": None,
                "request_hash": call.request_hash,
                "raw_text": resolution.raw_texts.get(verdict.slot, call.raw_text),
                "prompt_tokens": call.prompt_tokens if first else 0,
                "completion_tokens": call.completion_tokens if first else 0,
                "cost_usd": call.cost_usd if first else 0.0,
                "latency_ms": call.latency_ms if first else 0,
                "error": error,
                "metadata_": metadata,
            }
        )
    return rows


def mark_position_flips(session: Session, run_id: int) -> tuple[int, int]:
    """Set ``position_flip`` on the run's pairwise verdicts judged in both orders: True when
    the winner (or a tie) changes with the order, False when it holds. Verdicts without an
    outcome or counted as ties for want of one are left out. Returns (pairs compared, flips).
    """
    rows = session.execute(
        select(
            JudgeVerdict.id,
            JudgeVerdict.item_id,
            JudgeVerdict.turn_index,
            JudgeVerdict.criterion,
            JudgeVerdict.model_a_id,
            JudgeVerdict.model_b_id,
            JudgeVerdict.outcome,
            JudgeVerdict.label,
        ).where(
            JudgeVerdict.run_id == run_id,
            JudgeVerdict.outcome.is_not(None),
            JudgeVerdict.error.is_(None),
            JudgeVerdict.metadata_[UNPARSED_KEY].as_string().is_(None),
        )
    ).all()
    groups: dict[tuple[Any, ...], list[tuple[int, str, str]]] = defaultdict(list)
    for row_id, item_id, turn, criterion, model_a, model_b, stored_outcome, label in rows:
        outcome = str(stored_outcome)  # the query keeps rows with an outcome only
        if model_b is None:
            # the reference is the other side: the outcome is already the model's
            order = "A" if _REFERENCE_MARK.format(side="B") in (label or "") else "B"
            key = (item_id, turn, criterion, model_a, None)
            groups[key].append((row_id, order, outcome))
            continue
        low, high = sorted((model_a, model_b))
        seen_from_low = outcome if model_a == low else Outcome(outcome).swapped().value
        groups[(item_id, turn, criterion, low, high)].append(
            (row_id, "A" if model_a == low else "B", seen_from_low)
        )
    compared = flips = 0
    flipped_ids: list[int] = []
    steady_ids: list[int] = []
    for entries in groups.values():
        if len(entries) != 2 or entries[0][1] == entries[1][1]:
            continue
        compared += 1
        ids = [entries[0][0], entries[1][0]]
        if entries[0][2] != entries[1][2]:
            flips += 1
            flipped_ids += ids
        else:
            steady_ids += ids
    for ids, value in ((flipped_ids, True), (steady_ids, False)):
        for start in range(0, len(ids), 500):
            session.execute(
                update(JudgeVerdict)
                .where(JudgeVerdict.id.in_(ids[start : start + 500]))
                .values(position_flip=value)
            )
    return compared, flips
