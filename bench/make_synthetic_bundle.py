"""Generate a large synthetic bundle for the browsing benchmark (bench/browse.py).

    python bench/make_synthetic_bundle.py OUT.wbb [--items 100000] [--models 20] [--seed 0]
        [--votes 0]

Everything is synthetic and labelled so (source "synthetic"): procedurally drawn images, one
caption per item, a tenth of the items with three turns, a reference per turn (some flagged as
problematic), every model's answer to every turn, a few missing images, and human and judge
judgments on some items. ``--votes N`` adds an Arena-style campaign with annotators, its
scheduled pairs (two votes wanted per pair) and N cast votes, each drawn from a Bradley-Terry
model over hidden model strengths (:func:`model_strengths`) so ratings computed from them can
be checked. Rows go in through SQLAlchemy Core inserts in one transaction, which
is what makes 100,000 items and two million outputs take about a minute rather than the import
pipeline's per-record checks; the schema is the app's own (Bundle.create).
"""

from __future__ import annotations

import argparse
import hashlib
import io
import math
import random
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from PIL import Image as PILImage
from PIL import ImageDraw
from sqlalchemy import Table, insert

from workbench.storage import Bundle
from workbench.storage.models import (
    Annotator,
    Base,
    Campaign,
    Caption,
    Image,
    Item,
    ItemImage,
    Model,
    Output,
    PriorJudgment,
    Reference,
    ScheduledPair,
    Source,
    Turn,
    Vote,
)

SOURCE = "synthetic"
FAMILIES = ("counting", "colours", "charts", "ocr", "spatial", "captioning", "reasoning", "humour")
LANGUAGES = ("English", "English", "English", "German", "French", "Chinese")
_VOCABULARY = (
    "the image shows a red blue green square circle triangle chart bar line label text sign "
    "person dog cat car tree house window left right above below beside three two one four many "
    "small large bright dark because therefore however likely appears contains near far top "
    "bottom middle corner title axis value increases decreases answer question reason"
)
WORDS = _VOCABULARY.split()
CHUNK = 20_000
MULTI_TURN_SHARE = 0.1
MISSING_IMAGE_SHARE = 0.02
REFERENCE_PROBLEM_SHARE = 0.05
JUDGED_SHARE = 0.05
CAMPAIGN = "synthetic-arena"
CAMPAIGN_PROTOCOL = "arena-battle"
VOTES_PER_PAIR = 2
ANNOTATORS = 50
TIE_SHARE = 0.1
BOTH_BAD_SHARE = 0.05
EXPERTISE = ("radiologist", "linguist", "crowd worker", "graduate student", "teacher")


def table_of(model: type[Base]) -> Table:
    """A model's table, for inserts keyed by column name (SQLAlchemy's stubs type
    ``__table__`` as any FROM clause)."""
    table = model.__table__
    assert isinstance(table, Table)
    return table


def model_strengths(models: int) -> list[float]:
    """The hidden Bradley-Terry strength (natural-log scale) of each synthetic model, model 1
    the strongest, evenly spaced over 3 units so the true order is clear from enough votes."""
    return [3.0 * (models - number) / max(models - 1, 1) for number in range(1, models + 1)]


def annotator_handle(number: int) -> str:
    return f"synthetic-annotator-{number:03d}"


def draw_image(rng: random.Random, index: int) -> bytes:
    """A 512x384 PNG of a few coloured shapes and a number."""
    image = PILImage.new("RGB", (512, 384), tuple(rng.randrange(180, 256) for _ in range(3)))
    draw = ImageDraw.Draw(image)
    for _ in range(rng.randint(2, 6)):
        x, y = rng.randrange(0, 440), rng.randrange(0, 320)
        w, h = rng.randrange(30, 120), rng.randrange(30, 120)
        colour = tuple(rng.randrange(0, 200) for _ in range(3))
        if rng.random() < 0.5:
            draw.ellipse((x, y, x + w, y + h), fill=colour)
        else:
            draw.rectangle((x, y, x + w, y + h), fill=colour)
    draw.text((16, 16), f"synthetic #{index}", fill=(0, 0, 0))
    buffer = io.BytesIO()
    image.save(buffer, "PNG")
    return buffer.getvalue()


def sentences(rng: random.Random, count: int) -> list[str]:
    return [
        " ".join(rng.choices(WORDS, k=rng.randint(8, 24))).capitalize() + "." for _ in range(count)
    ]


def _chunked(rows: Iterator[dict[str, Any]]) -> Iterator[list[dict[str, Any]]]:
    chunk: list[dict[str, Any]] = []
    for row in rows:
        chunk.append(row)
        if len(chunk) >= CHUNK:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def make_synthetic_bundle(
    path: Path, items: int, models: int, seed: int = 0, votes: int = 0
) -> dict[str, int]:
    """Create the bundle at ``path`` (which must not exist); return the row counts written."""
    rng = random.Random(seed)
    texts = sentences(rng, 4000)
    image_pool = [draw_image(rng, index) for index in range(200)]
    model_names = [f"synthetic-model-{number:02d}" for number in range(1, models + 1)]
    counts = dict.fromkeys(("items", "turns", "outputs", "images", "references", "judgments"), 0)
    if votes:
        counts.update(dict.fromkeys(("annotators", "scheduled pairs", "votes"), 0))

    item_turns = [3 if rng.random() < MULTI_TURN_SHARE else 1 for _ in range(items)]
    turn_ids: list[tuple[int, int, int]] = []  # (turn id, item id, turn index)
    for item_id, turn_count in enumerate(item_turns, start=1):
        for index in range(1, turn_count + 1):
            turn_ids.append((len(turn_ids) + 1, item_id, index))

    bundle = Bundle.create(path)
    try:
        with bundle.session() as session:
            connection = session.connection()
            connection.execute(insert(table_of(Source)), [{"id": 1, "name": SOURCE}])
            connection.execute(
                insert(table_of(Model)),
                [
                    {"id": number, "name": name, "display_name": name, "metadata": {}}
                    for number, name in enumerate(model_names, start=1)
                ],
            )
            connection.execute(
                insert(table_of(Image)),
                [
                    {
                        "id": number,
                        "sha256": hashlib.sha256(data).hexdigest(),
                        "format": "png",
                        "width": 512,
                        "height": 384,
                        "size_bytes": len(data),
                        "data": data,
                    }
                    for number, data in enumerate(image_pool, start=1)
                ],
            )
            counts["images"] = len(image_pool)

            def item_rows() -> Iterator[dict[str, Any]]:
                for item_id in range(1, items + 1):
                    yield {
                        "id": item_id,
                        "source_id": 1,
                        "external_id": f"syn-{item_id:06d}",
                        "family": FAMILIES[item_id % len(FAMILIES)],
                        "category": None,
                        "language": LANGUAGES[item_id % len(LANGUAGES)],
                        "metadata": {"synthetic": True},
                    }

            for chunk in _chunked(item_rows()):
                connection.execute(insert(table_of(Item)), chunk)
            counts["items"] = items

            def slot_rows() -> Iterator[dict[str, Any]]:
                for item_id in range(1, items + 1):
                    for position in range(2 if item_id % 10 == 0 else 1):
                        missing = rng.random() < MISSING_IMAGE_SHARE
                        yield {
                            "item_id": item_id,
                            "position": position,
                            "image_id": None if missing else rng.randrange(1, len(image_pool) + 1),
                            "original_ref": f"images/synthetic-{item_id}-{position}.png",
                        }

            for chunk in _chunked(slot_rows()):
                connection.execute(insert(table_of(ItemImage)), chunk)

            def caption_rows() -> Iterator[dict[str, Any]]:
                for item_id in range(1, items + 1):
                    yield {
                        "item_id": item_id,
                        "image_position": 0,
                        "kind": "instruction-conditioned",
                        "source": SOURCE,
                        "text": texts[(item_id * 7) % len(texts)],
                    }

            for chunk in _chunked(caption_rows()):
                connection.execute(insert(table_of(Caption)), chunk)

            def turn_rows() -> Iterator[dict[str, Any]]:
                for turn_id, item_id, index in turn_ids:
                    yield {
                        "id": turn_id,
                        "item_id": item_id,
                        "index": index,
                        "prompt": "Question: " + texts[(turn_id * 13) % len(texts)],
                        "category": None if item_turns[item_id - 1] == 1 else f"step {index}",
                        "focus_points": "1. " + texts[turn_id % len(texts)] if index == 3 else None,
                    }

            for chunk in _chunked(turn_rows()):
                connection.execute(insert(table_of(Turn)), chunk)
            counts["turns"] = len(turn_ids)

            def reference_rows() -> Iterator[dict[str, Any]]:
                for turn_id, _item_id, _index in turn_ids:
                    problem = rng.random() < REFERENCE_PROBLEM_SHARE
                    yield {
                        "turn_id": turn_id,
                        "kind": "reference",
                        "source": SOURCE,
                        "text": texts[(turn_id * 17) % len(texts)],
                        "verified_correct": not problem,
                        "problem_in_caption": False,
                        "problem_in_reference": problem,
                    }

            for chunk in _chunked(reference_rows()):
                connection.execute(insert(table_of(Reference)), chunk)
            counts["references"] = len(turn_ids)

            def output_rows() -> Iterator[dict[str, Any]]:
                for turn_id, _item_id, _index in turn_ids:
                    for model_id in range(1, models + 1):
                        first = texts[(turn_id * 31 + model_id * 101) % len(texts)]
                        second = texts[(turn_id * 53 + model_id * 7) % len(texts)]
                        yield {
                            "turn_id": turn_id,
                            "model_id": model_id,
                            "context": "standard",
                            "text": f"**{first}** {second}",
                            "metadata": {},
                        }

            for chunk in _chunked(output_rows()):
                connection.execute(insert(table_of(Output)), chunk)
                counts["outputs"] += len(chunk)

            import_id = _synthetic_import(connection)

            def judgment_rows() -> Iterator[dict[str, Any]]:
                for item_id in range(1, items + 1):
                    if rng.random() >= JUDGED_SHARE:
                        continue
                    model_a, model_b = rng.sample(range(1, models + 1), 2)
                    for kind in ("human", "human", "human", "judge"):
                        yield {
                            "import_id": import_id,
                            "item_id": item_id,
                            "kind": kind,
                            "criterion": "overall",
                            "model_a_id": model_a,
                            "model_b_id": model_b,
                            "outcome": rng.choice(("a", "b", "tie")),
                            "strength": 1,
                            "metadata": {},
                        }

            for chunk in _chunked(judgment_rows()):
                connection.execute(insert(table_of(PriorJudgment)), chunk)
                counts["judgments"] += len(chunk)

            if votes:
                counts.update(_insert_votes(connection, rng, items, models, votes, seed))
            # rows written directly: the judgment counts per cell are counted from them
            from workbench.storage.judgment_counts import recount

            recount(connection)
    finally:
        bundle.close()
    return counts


def cached_synthetic_bundle(items: int, models: int, votes: int = 0) -> Path:
    """The synthetic bundle of these sizes in the cache folder, generated on first use and
    reused by every bench that asks for the same sizes (seed 0)."""
    from workbench.paths import cache_dir

    name = f"synthetic-{items}x{models}" + (f"-votes{votes}" if votes else "") + ".wbb"
    path = cache_dir() / "bench" / name
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        print(f"generating {path} …", flush=True)
        make_synthetic_bundle(path, items, models, votes=votes)
    return path


def _battle_choice(rng: random.Random, strength_left: float, strength_right: float) -> str:
    draw = rng.random()
    if draw < BOTH_BAD_SHARE:
        return "both_bad"
    if draw < BOTH_BAD_SHARE + TIE_SHARE:
        return "tie"
    left_wins = 1.0 / (1.0 + math.exp(strength_right - strength_left))
    return "a" if rng.random() < left_wins else "b"


def _insert_votes(
    connection: Any, rng: random.Random, items: int, models: int, votes: int, seed: int
) -> dict[str, int]:
    """One campaign, its annotators, ``ceil(votes / 2)`` scheduled pairs and ``votes`` votes."""
    from datetime import UTC, datetime, timedelta

    strengths = model_strengths(models)
    started = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)
    connection.execute(
        insert(table_of(Campaign)),
        [
            {
                "id": 1,
                "name": CAMPAIGN,
                "protocol": CAMPAIGN_PROTOCOL,
                "seed": seed,
                "votes_per_pair": VOTES_PER_PAIR,
                "settings": {"synthetic": True},
                "status": "open",
                "created_at": started,
            }
        ],
    )
    connection.execute(
        insert(table_of(Annotator)),
        [
            {
                "id": number,
                "handle": annotator_handle(number),
                "display_name": f"Synthetic Annotator {number}",
                "expertise": EXPERTISE[number % len(EXPERTISE)],
                "created_at": started,
            }
            for number in range(1, ANNOTATORS + 1)
        ],
    )
    pair_count = -(-votes // VOTES_PER_PAIR)
    pairs: list[tuple[int, int, int]] = []  # (item id, left model, right model)
    for _ in range(pair_count):
        left, right = rng.sample(range(1, models + 1), 2)
        pairs.append((rng.randrange(1, items + 1), left, right))

    def pair_rows() -> Iterator[dict[str, Any]]:
        for sequence, (item_id, left, right) in enumerate(pairs, start=1):
            yield {
                "id": sequence,
                "campaign_id": 1,
                "sequence": sequence,
                "item_id": item_id,
                "turn_index": None,
                "left_model_id": left,
                "right_model_id": right,
                "votes_target": VOTES_PER_PAIR,
                "gold_choice": None,
            }

    for chunk in _chunked(pair_rows()):
        connection.execute(insert(table_of(ScheduledPair)), chunk)

    def vote_rows() -> Iterator[dict[str, Any]]:
        for number in range(votes):
            pair_id = number // VOTES_PER_PAIR + 1
            item_id, left, right = pairs[pair_id - 1]
            # the two votes on a pair come from two different annotators
            annotator = (pair_id + (number % VOTES_PER_PAIR) * 7) % ANNOTATORS + 1
            shown_at = started + timedelta(seconds=number * 3)
            duration_ms = rng.randrange(2_000, 60_000)
            yield {
                "uuid": uuid.UUID(int=rng.getrandbits(128), version=4).hex,
                "campaign_id": 1,
                "pair_id": pair_id,
                "annotator_id": annotator,
                "item_id": item_id,
                "turn_index": None,
                "criterion": "overall",
                "model_a_id": left,
                "model_b_id": right,
                "choice": _battle_choice(rng, strengths[left - 1], strengths[right - 1]),
                "grade": None,
                "comment": None,
                "skip_reason": None,
                "shown_at": shown_at,
                "cast_at": shown_at + timedelta(milliseconds=duration_ms),
                "duration_ms": duration_ms,
                "retracted_at": None,
            }

    for chunk in _chunked(vote_rows()):
        connection.execute(insert(table_of(Vote)), chunk)
    # rows written directly: the campaign's progress counters are recounted from them
    from workbench.storage.counters import rebuild_counters

    rebuild_counters(connection, [1])
    return {"annotators": ANNOTATORS, "scheduled pairs": pair_count, "votes": votes}


def _synthetic_import(connection: Any) -> int:
    """The provenance row prior judgments must point at."""
    from datetime import UTC, datetime

    from workbench import __version__
    from workbench.storage.models import Import

    now = datetime.now(UTC)
    result = connection.execute(
        insert(table_of(Import)).values(
            importer="synthetic",
            importer_version="1",
            fingerprint=hashlib.sha256(b"synthetic").hexdigest(),
            counts={},
            warnings={},
            app_version=__version__,
            started_at=now,
            finished_at=now,
        )
    )
    return int(result.inserted_primary_key[0])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path, help="bundle to create (must not exist)")
    parser.add_argument("--items", type=int, default=100_000)
    parser.add_argument("--models", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--votes", type=int, default=0, help="campaign votes to add")
    args = parser.parse_args()
    if args.out.exists():
        print(f"{args.out} exists; remove it first", file=sys.stderr)
        return 1
    start = time.perf_counter()
    counts = make_synthetic_bundle(args.out, args.items, args.models, args.seed, args.votes)
    elapsed = time.perf_counter() - start
    size_mb = args.out.stat().st_size / 1e6
    summary = ", ".join(f"{value:,} {name}" for name, value in counts.items())
    print(f"{args.out}: {summary}; {size_mb:,.0f} MB in {elapsed:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
