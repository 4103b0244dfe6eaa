"""Labeled pairs aggregated over their judgments: one record per (item, turn, criterion,
context, pair of sides) with the votes each side got, for training sets that want a label per
pair rather than per judgment. Sides are put in name order, so a pair judged in both orders
(counterbalanced positions) is one record."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from workbench.export.canonical_json import dumps
from workbench.export.external_sort import sorted_by_key
from workbench.export.pairwise import PAIR_COLUMNS

AGGREGATE_TAG = "vlm-workbench/pairwise-aggregate"
AGGREGATE_VERSION = 1
_SWAPPED = {"a": "b", "b": "a"}

CSV_COLUMNS = (
    "format",
    "format_version",
    *PAIR_COLUMNS,
    "judgments",
    "wins_a",
    "wins_b",
    "ties",
    "both_bad",
    "majority",
    "kinds",
    "images",
)


def _majority(record: dict[str, Any]) -> str | None:
    counts = {
        record["model_a"]: record["wins_a"],
        record["model_b"]: record["wins_b"],
        "tie": record["ties"],
        "both_bad": record["both_bad"],
    }
    best = max(counts.values())
    leaders = [name for name, count in counts.items() if count == best]
    return leaders[0] if len(leaders) == 1 else None


def _pairs(records: Iterable[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    pairs: dict[str, dict[str, Any]] = {}
    for record in records:
        if record["outcome"] is None or record["model_b"] is None:
            continue
        first, second = sorted((record["model_a"], record["model_b"]))
        flipped = record["model_a"] != first
        outcome = (
            _SWAPPED.get(record["outcome"], record["outcome"]) if flipped else record["outcome"]
        )
        key = dumps(
            [
                record["source"],
                record["item_id"],
                record["turn"],
                record["criterion"],
                record["context"],
                first,
                second,
            ]
        )
        pair = pairs.get(key)
        if pair is None:
            output_a, output_b = record["output_a"], record["output_b"]
            pair = pairs[key] = {
                "format": AGGREGATE_TAG,
                "format_version": AGGREGATE_VERSION,
                "source": record["source"],
                "item_id": record["item_id"],
                "turn": record["turn"],
                "criterion": record["criterion"],
                "context": record["context"],
                "instruction": record["instruction"],
                "images": record["images"],
                "model_a": first,
                "model_b": second,
                "output_a": output_b if flipped else output_a,
                "output_b": output_a if flipped else output_b,
                "judgments": 0,
                "wins_a": 0,
                "wins_b": 0,
                "ties": 0,
                "both_bad": 0,
                "kinds": [],
            }
        pair["judgments"] += 1
        field = {"a": "wins_a", "b": "wins_b", "tie": "ties", "both_bad": "both_bad"}[outcome]
        pair[field] += 1
        if record["kind"] not in pair["kinds"]:
            pair["kinds"] = sorted([*pair["kinds"], record["kind"]])
    for pair in pairs.values():
        pair["majority"] = _majority(pair)
    return pairs


def aggregate_pairs(records: Iterable[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    """Pairwise records (``pairwise.pairwise_records``) with an outcome between two named
    sides, summed per pair; ``majority`` is the side (or ``tie``/``both_bad``) with most votes,
    null when that is itself tied."""
    pairs = _pairs(records)
    for key in sorted(pairs):
        yield pairs[key]


def aggregated_texts(groups: Iterable[list[dict[str, Any]]]) -> Iterator[str]:
    """What :func:`aggregate_pairs` gives, as canonical JSON text, from the records grouped by
    item (``pairwise.records_by_item``): a pair's key names its item, so each group is summed
    alone and only the sums are sorted (externally, beyond a run), never every record.

    The fields a pair takes from its first record (instruction, images, outputs) are the same
    in every record of the pair (they depend only on the item, turn, context and sides, all in
    the key), so summing in stored rather than content order changes no byte."""
    yield from sorted_by_key(
        (key, dumps(pair)) for records in groups for key, pair in _pairs(records).items()
    )
