"""FastChat / Chatbot Arena battles JSON (the shape clean_battle_data.py writes, FastChat's
``elo_analysis.py --clean-battle-file`` and the ``arena-battles`` importer read): one battle
per pairwise outcome between two named sides, with ``model_a``, ``model_b``, ``winner``,
``tstamp``, ``anony`` and ``question_id``, and the judge when known.

Battles come in the read model's stored order, with a strictly increasing ``tstamp``, because
online Elo depends on the order and FastChat sorts by ``tstamp`` (with an unstable sort) before
rating. A "much better" verdict is written as several identical consecutive battles, as
WildVision-Bench does, since FastChat's tools read no weight field: FastChat's online Elo on the
file is then the bundle's own (``workbench leaderboard --method elo``, default weight 3).

The file answers what the leaderboard counts: judgments an importer derived from others it also
stored (WildVision-Bench's battles, derived from GPT-4o's verdicts) are left out unless asked
for, since FastChat's tools would count the same evidence twice (online Elo moved by up to 175
points, bootstrap intervals narrowed by a factor of about the square root of two).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from workbench.domain import DERIVED_KEY
from workbench.export.judgments import IMPORTED, Judgment
from workbench.stats.weighting import WILDVISION_DECISIVE_WEIGHT
from workbench.storage.models import Item

ARENA_VERSION = 1
WINNER_OF_OUTCOME = {"a": "model_a", "b": "model_b", "tie": "tie", "both_bad": "tie (bothbad)"}
#: facts FastChat battles carry that an arena import keeps in the judgment's metadata
_FACTS = ("language", "category_tag")
#: the step, in seconds, between a battle's ``tstamp`` and the next when the next has no stored
#: time or a stored time that is not later (a repeated battle, votes older than the verdicts
#: before them in stored order)
TSTAMP_STEP = 0.001


def _judge(judgment: Judgment) -> Any:
    if judgment.kind == "judge":
        prompt = judgment.metadata.get("judge_prompt")
        parts = [judgment.rater or "judge"]
        if isinstance(prompt, str) and prompt:
            parts.extend(prompt.split("/"))
        return parts
    return judgment.rater


def _epoch(text: Any) -> float | None:
    if not isinstance(text, str):
        return None
    moment = datetime.fromisoformat(text)
    if moment.tzinfo is None:  # stored times are naive UTC
        moment = moment.replace(tzinfo=UTC)
    return moment.timestamp()


def stored_time(judgment: Judgment) -> float | None:
    """When the judgment was given, in seconds since the epoch, where the bundle knows it: an
    imported battle's own ``tstamp``, a vote's cast time, a verdict's creation time."""
    meta = judgment.metadata
    imported = meta.get("tstamp")
    if isinstance(imported, int | float) and not isinstance(imported, bool):
        return float(imported)
    cast = _epoch(meta.get("cast_at"))
    return cast if cast is not None else _epoch(meta.get("created_at"))


def repeats(judgment: Judgment) -> int:
    """How many battles the judgment is written as: a decisive "much better" win (strength 2
    or more) counts WildVision-Bench's ``WEIGHT=3``, as the bundle's leaderboard counts it by
    default (:func:`workbench.stats.weighting.weight_by_strength`); any other verdict one."""
    if judgment.outcome in ("a", "b") and judgment.strength >= 2:
        return WILDVISION_DECISIVE_WEIGHT
    return 1


def _anonymous(judgment: Judgment) -> bool:
    # campaigns and judge runs are blind by construction; an imported battle keeps its own flag
    stored = judgment.metadata.get("anony")
    return stored if isinstance(stored, bool) else True


#: the ``left_out`` / ``included`` key counting derived judgments
DERIVED_JUDGMENTS = "derived_judgments"


def is_derived(judgment: Judgment) -> bool:
    """Whether an importer derived the judgment from other judgments it stored (the read
    model's ``derived`` mark)."""
    return judgment.origin == IMPORTED and judgment.metadata.get(DERIVED_KEY) is not None


def battles(
    session: Session,
    judgments: Iterable[Judgment],
    left_out: Counter[str] | None = None,
    *,
    include_derived: bool = False,
    included: Counter[str] | None = None,
) -> Iterator[dict[str, Any]]:
    """The battles, in the judgments' stored order, each with a ``tstamp`` greater than the one
    before it: the stored time where it is later, else the previous one plus
    :data:`TSTAMP_STEP` (a synthetic time, starting from 0 when the first is unknown).
    Judgments that are not an outcome between two named sides (grades, verifications, skips)
    have no battle form and are left out, counted in ``left_out["judgments_not_pairwise"]``.
    Derived judgments are left out (counted in ``left_out["derived_judgments"]``) unless
    ``include_derived``, when they are written and counted in ``included``.
    ``judgments`` is read once, as the battles are written."""
    external = {
        row.id: row.external_id for row in session.execute(select(Item.id, Item.external_id))
    }
    previous = 0.0
    for judgment in judgments:
        if not is_battle(judgment):
            if left_out is not None:
                left_out["judgments_not_pairwise"] += 1
            continue
        if is_derived(judgment):
            counted = included if include_derived else left_out
            if counted is not None:
                counted[DERIVED_JUDGMENTS] += 1
            if not include_derived:
                continue
        assert judgment.outcome is not None
        meta = judgment.metadata
        battle: dict[str, Any] = {
            "format_version": ARENA_VERSION,
            "model_a": judgment.model_a,
            "model_b": judgment.model_b,
            "winner": WINNER_OF_OUTCOME[judgment.outcome],
        }
        question = meta.get("question_id", external.get(judgment.item_id))
        if question is not None:
            battle["question_id"] = question
        judge = _judge(judgment)
        if judge is not None:
            battle["judge"] = judge
        turn = judgment.turn if judgment.turn is not None else meta.get("turn")
        if turn is not None:
            battle["turn"] = turn
        battle.update({key: meta[key] for key in _FACTS if meta.get(key) is not None})
        battle["anony"] = _anonymous(judgment)
        known = stored_time(judgment)
        for _ in range(repeats(judgment)):
            previous = known if known is not None and known > previous else previous + TSTAMP_STEP
            yield battle | {"tstamp": previous}


def is_battle(judgment: Judgment) -> bool:
    return judgment.outcome in WINNER_OF_OUTCOME and judgment.model_b is not None
