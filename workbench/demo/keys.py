"""The shape of a demo item before it becomes a canonical JSONL line: its images, its turns, and
for each turn an answer key that states the exact answer and plausible wrong ones."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar


@dataclass(frozen=True)
class AnswerKey:
    """What one turn asks for, and how to put an answer to it into words.

    ``truth`` is the exact answer as data (a count, a cell, a time...). The phrasings turn any
    value of that type into text: ``state`` one plain sentence (used for the reference),
    ``terse`` the bare answer, ``explain`` a long markdown answer. ``mistake`` draws a
    plausible wrong value (never the truth); ``miscount`` is the value a reader who counts one
    too many would give, or None where the answer is not a count.
    """

    truth: Any
    state: Callable[[Any], str]
    terse: Callable[[Any], str]
    explain: Callable[[Any], str]
    mistake: Callable[[random.Random], Any]
    miscount: Callable[[Any], Any] | None = None

    @property
    def reference(self) -> str:
        return self.state(self.truth)


@dataclass(frozen=True)
class DemoTurn:
    prompt: str
    category: str
    key: AnswerKey
    focus_points: str | None = None


@dataclass(frozen=True)
class DemoImage:
    """A rendered PNG, with the file name it is written under and its size in pixels."""

    name: str
    png: bytes
    width: int
    height: int


@dataclass(frozen=True)
class DemoItem:
    external_id: str
    family: str
    category: str
    images: tuple[DemoImage, ...]
    turns: tuple[DemoTurn, ...]
    caption: str
    #: One caption per image, for items with more than one image.
    image_captions: tuple[str, ...] = ()
    #: The scene(s) as plain data, stored in the item's metadata.
    scene: dict[str, Any] = field(default_factory=dict)


_Answer = TypeVar("_Answer")


def other_than(truth: _Answer, candidates: list[_Answer], rng: random.Random) -> _Answer:
    """A random candidate that is not the truth (candidates must hold at least one)."""
    options = [c for c in candidates if c != truth]
    if not options:
        raise ValueError("no wrong answer to choose from")
    return rng.choice(options)


def near_miss(truth: int, rng: random.Random, spread: int = 2, floor: int = 0) -> int:
    """A whole number within ``spread`` of the truth, never the truth, never below ``floor``."""
    return other_than(
        truth, [n for n in range(truth - spread, truth + spread + 1) if n >= floor], rng
    )
