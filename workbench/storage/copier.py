"""What copying rows between bundles agrees on, whoever copies: one normaliser (UTC everywhere)
that decides when two values are the same, and the policies that say per table how a row both
sides hold under one natural key is settled. Push/pull (:mod:`workbench.storage.transfer`) and
offline packs (:mod:`workbench.services.packs`) both copy through these, so a timestamp or a
vote compares the same way whichever path carried it.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

#: (target's values, source's values) of a table's mutable columns -> the updates to apply
Resolver = Callable[[Mapping[str, Any], Mapping[str, Any]], dict[str, Any]]


# --- values ------------------------------------------------------------------------------------


def utc(value: datetime) -> datetime:
    """A datetime in UTC with its offset: naive ones are UTC already (SQLite keeps no offset
    and the app writes UTC), aware ones are converted (PostgreSQL answers in the session's
    zone, and a hand-edited pack may carry any offset)."""
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def portable(value: Any) -> Any:
    """A value as it is written to either dialect: datetimes in UTC with their offset."""
    return utc(value) if isinstance(value, datetime) else value


_PLAIN_TYPES = frozenset({str, int, bool})


def normal(value: Any) -> Any:
    """A value in a form that compares equal across dialects and sorts by instant (and
    hashes): the one normaliser every copy path compares with."""
    if value is None or type(value) in _PLAIN_TYPES:  # most values: checked once, first
        return value
    if isinstance(value, datetime):
        return utc(value).isoformat()
    if isinstance(value, dict | list):
        return json.dumps(value, sort_keys=True, default=str)
    if isinstance(value, float):
        return repr(value)
    return value


def content_key(values: Mapping[str, Any], fields: Sequence[str]) -> str:
    """The normalised content of ``fields``: equal for equal content, and a total order."""
    return json.dumps([normal(values.get(name)) for name in fields], default=str)


def digest(values: Sequence[Any]) -> str:
    encoded = json.dumps([normal(value) for value in values], default=str)
    return hashlib.sha256(encoded.encode()).hexdigest()


# --- how a row both sides hold is settled ------------------------------------------------------


def keep_target(_target: Mapping[str, Any], _source: Mapping[str, Any]) -> dict[str, Any]:
    """The target's values stay (for columns that may differ without meaning anything)."""
    return {}


def first_set(target: Mapping[str, Any], source: Mapping[str, Any]) -> dict[str, Any]:
    """A value set on either side wins over an unset one (a retraction is never undone)."""
    return {
        name: value
        for name, value in source.items()
        if target.get(name) is None and value is not None
    }


def newer_wins(target: Mapping[str, Any], source: Mapping[str, Any]) -> dict[str, Any]:
    """A judge run resumed on one side: the state of the run that finished last wins."""
    theirs, ours = source.get("finished_at"), target.get("finished_at")
    if theirs is not None and (ours is None or utc(theirs) > utc(ours)):
        return {
            name: value
            for name, value in source.items()
            if normal(value) != normal(target.get(name))
        }
    return {}


#: the vote fields whose content two copies of one vote are compared by
VOTE_CONTENT = (
    "criterion",
    "choice",
    "grade",
    "comment",
    "skip_reason",
    "shown_at",
    "cast_at",
    "duration_ms",
)


def reconcile_votes(target: Mapping[str, Any], source: Mapping[str, Any]) -> dict[str, Any]:
    """Bring a vote both sides hold to one state whichever side is copied first: of two
    contents the smaller by :func:`content_key` wins, and the earliest retraction wins (a
    retraction is never undone). Order-independent, so merging in either order agrees."""
    updates: dict[str, Any] = {}
    if content_key(source, VOTE_CONTENT) < content_key(target, VOTE_CONTENT):
        updates.update((name, source.get(name)) for name in VOTE_CONTENT)
    retractions = [
        value
        for value in (target.get("retracted_at"), source.get("retracted_at"))
        if value is not None
    ]
    earliest = min(retractions, key=normal) if retractions else None
    if normal(earliest) != normal(target.get("retracted_at")):
        updates["retracted_at"] = earliest
    return updates


@dataclass(frozen=True)
class TableRule:
    """How rows of one table are matched. ``key`` names the natural key (None: the whole
    content is the key, so identical rows pair up one to one); ``mutable`` columns may differ
    between the sides without a conflict and ``resolve`` says what the target then keeps."""

    key: tuple[str, ...] | None
    mutable: tuple[str, ...] = ()
    resolve: Resolver = keep_target


@dataclass(frozen=True)
class CopyPolicy:
    """How one kind of copy settles conflicts: a rule per table it copies."""

    name: str
    rules: Mapping[str, TableRule]

    def rule(self, table: str) -> TableRule:
        return self.rules[table]


#: push/pull: every table of the bundle, with its natural key; a test checks none is missing.
#: A content difference outside the mutable columns is a conflict that stops the copy.
SYNC_POLICY = CopyPolicy(
    "sync",
    {
        "bundle_info": TableRule(("key",)),
        "sources": TableRule(("name",), ("created_at",)),
        "imports": TableRule(("importer", "fingerprint")),
        "import_files": TableRule(None),
        # the same item or output may have come in through different imports on the two sides
        "items": TableRule(("source_id", "external_id"), ("import_id",)),
        "turns": TableRule(("item_id", "index")),
        "images": TableRule(("sha256",)),
        "item_images": TableRule(("item_id", "position")),
        "item_categories": TableRule(("item_id", "category")),
        "captions": TableRule(None),
        "references": TableRule(None),
        "models": TableRule(("name",)),
        "outputs": TableRule(("turn_id", "model_id", "context"), ("import_id",)),
        "prior_judgments": TableRule(None),
        "annotators": TableRule(("handle",), ("created_at",)),
        "campaigns": TableRule(("name",)),
        "scheduled_pairs": TableRule(("campaign_id", "sequence")),
        "votes": TableRule(("uuid",), ("retracted_at",), first_set),
        "judge_runs": TableRule(
            ("name",),
            ("base_url", "parameters", "budget", "status", "started_at", "finished_at"),
            newer_wins,
        ),
        "judge_verdicts": TableRule(None),
        "adjudications": TableRule(("pair_id", "criterion")),
        "flags": TableRule(("uuid",), ("retracted_at",), first_set),
        # an adaptive campaign's choice log: one row per choice, never changed once written
        "pair_choices": TableRule(("campaign_id", "ordinal")),
        # a cache: two sides may hold different answers to one request; either serves
        "response_cache": TableRule(("request_hash",), ("response_text", "usage", "created_at")),
    },
)

#: offline packs: only votes come back, and an annotator may have edited one on either side,
#: so a vote's content is reconciled (reported as a conflict, never refused)
PACK_POLICY = CopyPolicy(
    "pack",
    {
        "votes": TableRule(("uuid",), (*VOTE_CONTENT, "retracted_at"), reconcile_votes),
        # flags the annotator raised in the pack
        "flags": TableRule(("uuid",), ("retracted_at",), first_set),
    },
)
