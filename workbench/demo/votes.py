"""Simulated human votes for the demo bundle, so the vote-based panels have data before anyone
annotates: three pretend raters compare baselines on every item, preferring the answer with
more correct turns; when the answers are equally right each follows a taste of its own in
answer style (markdown, a plain sentence, the bare value), and each is careless at its own
rate. The different tastes and the noise make the raters disagree about as often as real
annotators do, and make some items' pooled preferences circular. Every vote says in its
metadata that it is simulated."""

from __future__ import annotations

import itertools
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from workbench.demo.answerers import DemoAnswer
from workbench.domain import Outcome

FORMATTED, SENTENCE, BARE = "formatted", "sentence", "bare"


@dataclass(frozen=True)
class RaterProfile:
    """How one simulated rater decides. ``carelessness``: how often it picks an outcome at
    random. When both answers are equally right, it prefers the one whose style (markdown,
    plain sentence or bare value) comes first in ``style_order`` with probability
    ``taste``, and otherwise calls a tie."""

    name: str
    carelessness: float
    taste: float
    style_order: tuple[str, str, str]


#: Three tastes, each reasonable on its own: one wants explanations, one plain prose, one the
#: value at a glance. Together they are a Condorcet triple: on three equally right answers in
#: the three styles the majority prefers formatted over sentence, sentence over bare, and bare
#: over formatted, the kind of cycle CHIRP counts as a contradiction.
RATER_PROFILES = (
    RaterProfile("demo-rater-1", 0.05, 0.95, (FORMATTED, SENTENCE, BARE)),
    RaterProfile("demo-rater-2", 0.1, 0.9, (SENTENCE, BARE, FORMATTED)),
    RaterProfile("demo-rater-3", 0.15, 0.9, (BARE, FORMATTED, SENTENCE)),
)
RATERS = tuple(profile.name for profile in RATER_PROFILES)
#: every this many items, the raters compare all three pairs of three baselines (one answering
#: in each style) instead of one pair, so items have preference graphs in which cycles appear
ROUND_ROBIN_EVERY = 4

VOTE_METADATA = {
    "demo": True,
    "simulated": "demo vote derived from whether each baseline's answers are correct, "
    "with simulated rater noise and each rater's taste in answer style",
}

_LABELS = {
    (Outcome.A, 1): "A is better",
    (Outcome.A, 2): "A is much better",
    (Outcome.B, 1): "B is better",
    (Outcome.B, 2): "B is much better",
    (Outcome.TIE, 1): "Tie",
    (Outcome.BOTH_BAD, 1): "Both are bad",
}


def model_pairs(names: Sequence[str]) -> list[tuple[str, str]]:
    return list(itertools.combinations(names, 2))


def answer_style(answers: Sequence[DemoAnswer]) -> str:
    """``formatted`` (markdown headings, tables or bold), ``sentence`` or ``bare`` (the value
    alone), judged on the first answer: each baseline keeps one style."""
    text = answers[0].text.strip()
    if text.startswith("#") or "**" in text or "|" in text:
        return FORMATTED
    return SENTENCE if text.endswith(".") else BARE


def compared_pairs(
    index: int, names: Sequence[str], styles: Mapping[str, str]
) -> list[tuple[str, str]]:
    """The model pairs compared on the ``index``-th item: one pair, rotating through all pairs,
    or on every :data:`ROUND_ROBIN_EVERY`-th item the three pairs of the first three models
    answering in three different styles (``styles``: each model's style)."""
    if index % ROUND_ROBIN_EVERY == ROUND_ROBIN_EVERY - 1:
        triple = next(
            (
                triple
                for triple in itertools.combinations(names, 3)
                if len({styles[name] for name in triple}) == 3
            ),
            None,
        )
        if triple is not None:
            return model_pairs(triple)
    pairs = model_pairs(names)
    return [pairs[index % len(pairs)]]


def correct_turns(answers: Sequence[DemoAnswer]) -> int:
    return sum(answer.correct for answer in answers)


def answer_length(answers: Sequence[DemoAnswer]) -> int:
    return sum(len(answer.text) for answer in answers)


def _verdict(
    profile: RaterProfile, a: Sequence[DemoAnswer], b: Sequence[DemoAnswer], rng: random.Random
) -> tuple[Outcome, int]:
    if rng.random() < profile.carelessness:
        return rng.choice(list(Outcome)), 1
    right_a, right_b = correct_turns(a), correct_turns(b)
    if right_a != right_b:
        winner = Outcome.A if right_a > right_b else Outcome.B
        # Much better when one side is all right and the other all wrong.
        strength = 2 if {right_a, right_b} == {0, len(a)} else 1
        return winner, strength
    if right_a == 0:
        return Outcome.BOTH_BAD, 1
    rank_a = profile.style_order.index(answer_style(a))
    rank_b = profile.style_order.index(answer_style(b))
    if rank_a != rank_b and rng.random() < profile.taste:
        return (Outcome.A if rank_a < rank_b else Outcome.B), 1
    return Outcome.TIE, 1


def simulated_votes(
    item_id: str,
    pairs: Sequence[tuple[str, str]],
    answers: Mapping[str, Sequence[DemoAnswer]],
    multi_turn: bool,
    rng: random.Random,
) -> list[dict[str, object]]:
    """Canonical-JSONL judgment entries: each rater's vote on each of ``pairs`` for one item.

    Which model is shown first is drawn per pair. A single-turn item is judged on its turn; a
    conversation is judged as a whole (turn null), as ConvBench's pairwise grading does."""
    votes: list[dict[str, object]] = []
    for pair in pairs:
        model_a, model_b = pair if rng.random() < 0.5 else pair[::-1]
        for profile in RATER_PROFILES:
            outcome, strength = _verdict(profile, answers[model_a], answers[model_b], rng)
            votes.append(
                {
                    "kind": "human",
                    "model_a": model_a,
                    "model_b": model_b,
                    "outcome": outcome.value,
                    "strength": strength,
                    "label": _LABELS[outcome, strength],
                    "rater": profile.name,
                    "group": f"{item_id}/{model_a}|{model_b}",
                    "turn": None if multi_turn else 1,
                    "criterion": "overall",
                    "metadata": VOTE_METADATA,
                }
            )
    return votes
