"""A small bundle for the report tests: four models answering twelve items (some without a
category, some with an image, one image missing), a campaign whose two annotators overlap on
every pair, and a judge run that judged the same pairs in both orders."""

from __future__ import annotations

import io
import random
from itertools import combinations
from pathlib import Path
from typing import cast

from PIL import Image

from tests.stats.bundle_helpers import (
    add_campaign_votes,
    add_judge_verdicts,
    build_bundle,
    item_line,
)

MODELS = ("alpha", "bravo", "charlie", "delta")
#: how often each model wins a comparison, so the boards have a clear order
STRENGTH = {"alpha": 0.8, "bravo": 0.6, "charlie": 0.45, "delta": 0.3}


def noisy_png(seed: int, side: int = 640) -> bytes:
    """A large image that compresses badly, so thumbnails matter."""
    rng = random.Random(seed)
    image = Image.frombytes("RGB", (side, side), rng.randbytes(side * side * 3))
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return buffer.getvalue()


def winner(rng: random.Random, first: str, second: str) -> str:
    share = STRENGTH.get(first, 0.5) / (STRENGTH.get(first, 0.5) + STRENGTH.get(second, 0.5))
    draw = rng.random()
    return "tie" if draw > 0.9 else ("a" if draw < share * 0.9 else "b")


def build_report_bundle(
    folder: Path, models: tuple[str, ...] = MODELS, items: int = 12, one_image: bool = False
) -> Path:
    """``one_image``: every item with an image shows the same one (stored once), so a bundle of
    many items stays small."""
    rng = random.Random(7)
    folder.mkdir(parents=True, exist_ok=True)
    lines = []
    for index in range(items):
        line = item_line(
            f"q{index}",
            [],
            category=("ocr", "chart", "none")[index % 3],
            outputs={
                model: f"answer of {model} to q{index}" + " **bold**" * (index % 2)
                for model in models
            },
        )
        if index % 3 == 2:  # optional fields missing, as real sources leave them
            del line["category"]
            del line["language"]
        if index % 4 == 0 or (one_image and index % 4 != 1):
            name = f"image-{0 if one_image else index}.png"
            if not (folder / name).exists():
                (folder / name).write_bytes(noisy_png(0 if one_image else index))
            line["images"] = [{"path": name}]
        elif index % 4 == 1:
            line["images"] = [{"missing": f"https://example.org/missing-{index}.png"}]
        lines.append(line)
    bundle = build_bundle(folder, lines)
    votes: list[tuple[str, str, str | None, str | None, str]] = []
    verdicts: list[tuple[str, str, str, str | None]] = []
    for index in range(items):
        for first, second in combinations(models, 2):
            left, right = (first, second) if rng.random() < 0.5 else (second, first)
            for annotator in ("ann1", "ann2"):
                choice = winner(rng, left, right)
                votes.append((annotator, f"q{index}", left, right, choice))
            for shown_a, shown_b in ((left, right), (right, left)):
                verdicts.append((f"q{index}", shown_a, shown_b, winner(rng, shown_a, shown_b)))
    add_campaign_votes(bundle, "pilot", votes)
    add_judge_verdicts(
        bundle,
        "judge-1",
        verdicts,
        parameters={"temperature": 0.0, "selection": {"swap": True}},
    )
    return cast("Path", bundle)
