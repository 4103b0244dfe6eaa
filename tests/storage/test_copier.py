"""The copier's one normaliser and its conflict policies, as packs and push/pull use them."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from typing import Any

from workbench.storage.copier import (
    PACK_POLICY,
    SYNC_POLICY,
    VOTE_CONTENT,
    content_key,
    digest,
    first_set,
    newer_wins,
    normal,
    reconcile_votes,
)

NAIVE_UTC = datetime(2026, 3, 1, 10, 0, 0)
#: the same instant as NAIVE_UTC, written by a machine two hours east of UTC
AWARE_EAST = datetime(2026, 3, 1, 12, 0, 0, tzinfo=timezone(timedelta(hours=2)))


def _vote(**changes: Any) -> dict[str, Any]:
    values: dict[str, Any] = {
        "criterion": "overall",
        "choice": "a",
        "grade": None,
        "comment": None,
        "skip_reason": None,
        "shown_at": NAIVE_UTC,
        "cast_at": NAIVE_UTC + timedelta(seconds=5),
        "duration_ms": 5000,
        "retracted_at": None,
    }
    values.update(changes)
    return values


def test_naive_timestamps_are_utc_and_aware_ones_are_converted() -> None:
    assert normal(NAIVE_UTC) == normal(AWARE_EAST) == "2026-03-01T10:00:00+00:00"
    # ordering follows the instant, not the wall clock
    later_instant = datetime(2026, 3, 1, 11, 0, 0, tzinfo=timezone(timedelta(hours=-5)))
    assert normal(later_instant) > normal(AWARE_EAST)


def test_a_pack_merge_and_a_push_pull_treat_aware_and_naive_timestamps_identically() -> None:
    """The bug two normalisers caused: a pack merge stripped the offset (so 12:00+02:00 was not
    10:00 UTC and one vote looked changed) while push/pull converted to UTC."""
    stored = _vote()
    arriving = _vote(
        shown_at=AWARE_EAST,
        cast_at=AWARE_EAST + timedelta(seconds=5),
        retracted_at=AWARE_EAST + timedelta(minutes=1),
    )
    stored_retracted = {**stored, "retracted_at": NAIVE_UTC + timedelta(minutes=1)}

    # pack merge: same content, same retraction -> nothing to change
    pack_rule = PACK_POLICY.rule("votes")
    assert content_key(stored, VOTE_CONTENT) == content_key(arriving, VOTE_CONTENT)
    assert pack_rule.resolve(stored_retracted, arriving) == {}

    # push/pull: the fixed columns hash the same, and the retraction is not re-applied
    sync_rule = SYNC_POLICY.rule("votes")
    fixed = [name for name in VOTE_CONTENT if name not in sync_rule.mutable]
    assert digest([stored[c] for c in fixed]) == digest([arriving[c] for c in fixed])
    mutable = {name: arriving[name] for name in sync_rule.mutable}
    assert sync_rule.resolve({"retracted_at": stored_retracted["retracted_at"]}, mutable) == {}


def test_reconcile_votes_is_order_independent() -> None:
    one = _vote(choice="a", retracted_at=NAIVE_UTC + timedelta(hours=2))
    other = _vote(choice="b", retracted_at=AWARE_EAST + timedelta(hours=1))

    def merged(target: dict[str, Any], source: dict[str, Any]) -> dict[str, Any]:
        result = {**target, **reconcile_votes(target, source)}
        return {name: normal(value) for name, value in result.items()}

    assert merged(one, other) == merged(other, one)
    winner = merged(one, other)
    assert winner["choice"] == "a"  # the smaller content
    assert winner["retracted_at"] == normal(NAIVE_UTC + timedelta(hours=1))  # the earliest


def test_a_retraction_is_never_undone() -> None:
    retracted = {"retracted_at": NAIVE_UTC}
    assert first_set({"retracted_at": None}, retracted) == retracted
    assert first_set(retracted, {"retracted_at": None}) == {}
    assert reconcile_votes(_vote(retracted_at=NAIVE_UTC), _vote()) == {}


def test_the_run_that_finished_last_wins_across_time_zones() -> None:
    # 11:30+02:00 is 09:30 UTC: earlier than 10:00 UTC although its wall clock reads later
    earlier = datetime(2026, 3, 1, 11, 30, tzinfo=timezone(timedelta(hours=2)))
    assert newer_wins({"finished_at": NAIVE_UTC, "status": "done"}, {"finished_at": earlier}) == {}
    later = datetime(2026, 3, 1, 10, 30, tzinfo=UTC)
    assert newer_wins(
        {"finished_at": NAIVE_UTC, "status": "running"},
        {"finished_at": later, "status": "done"},
    ) == {"finished_at": later, "status": "done"}
