"""Tests of the demo's answer keys and baseline answerers (workbench/demo/keys.py,
answerers.py): wrong answers are really wrong, and each baseline behaves as described."""

from __future__ import annotations

import random
from typing import Any

import pytest

from workbench.demo.answerers import (
    BASELINE_ANSWERERS,
    careful_counter,
    off_by_one,
    oracle_verbose,
    terse,
)
from workbench.demo.keys import DemoItem
from workbench.demo.plan import demo_plan


@pytest.fixture(scope="module", params=[0, 1, 7])
def plan(request: pytest.FixtureRequest) -> list[DemoItem]:
    return demo_plan(request.param)


def test_mistakes_and_miscounts_never_read_like_the_reference(plan: list[DemoItem]) -> None:
    rng = random.Random(0)
    for item in plan:
        for turn in item.turns:
            key = turn.key
            for _ in range(5):
                wrong = key.mistake(rng)
                assert wrong != key.truth, item.external_id
                assert key.state(wrong) != key.reference, item.external_id
                assert key.terse(wrong) != key.terse(key.truth), item.external_id
            if key.miscount is not None:
                assert key.state(key.miscount(key.truth)) != key.reference, item.external_id


def test_baselines_answer_as_described(plan: list[DemoItem]) -> None:
    rng = random.Random(0)
    turns = [turn for item in plan for turn in item.turns]
    for turn in turns:
        assert oracle_verbose(turn.key, rng).correct
        assert oracle_verbose(turn.key, rng).text.startswith("### ")
        if turn.key.miscount is not None:
            assert not off_by_one(turn.key, rng).correct
    for turn in turns:
        answer = careful_counter(turn.key, rng)
        assert answer.correct == (answer.text == turn.key.reference)
    short = [terse(turn.key, rng).text for turn in turns]
    assert sum(map(len, short)) < sum(len(turn.key.reference) for turn in turns)


def test_baseline_names_say_they_are_demos() -> None:
    names = [answerer.name for answerer in BASELINE_ANSWERERS]
    assert len(set(names)) == len(names) >= 4
    assert all(name.startswith("demo/") for name in names)
    assert all(a.display_name.startswith("Demo baseline") for a in BASELINE_ANSWERERS)


def test_plan_is_the_same_for_a_seed_and_differs_between_seeds() -> None:
    def fingerprint(seed: int) -> list[tuple[Any, ...]]:
        return [
            (
                item.external_id,
                [img.png for img in item.images],
                [t.key.reference for t in item.turns],
            )
            for item in demo_plan(seed)
        ]

    assert fingerprint(4) == fingerprint(4)
    assert fingerprint(4) != fingerprint(5)
