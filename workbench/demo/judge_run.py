"""A simulated LLM-judge run for the demo bundle, so the Agreement and Failures panels can put
the humans beside a judge before anyone runs a real one.

The simulated judge sees every comparison the simulated raters voted on, in both orders, as a
real pairwise judge run does. It mostly picks the side with more correct turns; when the
answers are equally right it prefers the longer one or, failing that, whichever was shown
first (the position bias real judges show, Zheng et al. 2023 sec. 3.3), so some verdicts flip
when the order is swapped. It is stored as a judge run like any other (``judge_runs`` and
``judge_verdicts``, position flips marked by the judge's own
:func:`~workbench.services.judging.verdicts.mark_position_flips`), named and labelled as simulated.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from sqlalchemy import insert, select

from workbench.demo.answerers import DemoAnswer
from workbench.demo.votes import answer_length, correct_turns
from workbench.domain import Outcome
from workbench.services.judging.verdicts import mark_position_flips
from workbench.storage.bundle import Bundle
from workbench.storage.judgment_counts import counting_verdicts
from workbench.storage.models import Item, JudgeRun, JudgeVerdict, Model

SIMULATED_JUDGE = "simulated-judge (demo)"
TEMPLATE_NAME = "demo-simulated-pairwise"
TEMPLATE_TEXT = (
    "No prompt: this run was simulated by the demo generator. Each verdict follows which answer "
    "has more correct turns, with simulated noise, a preference for longer answers and a bias "
    "toward the answer shown first."
)
#: how often the judge picks the side with more correct turns
ACCURACY = 0.9
#: when both answers are equally right: how often it prefers the longer one
VERBOSITY_BIAS = 0.15
#: ... and otherwise how often it picks the answer shown first instead of calling a tie
POSITION_BIAS = 0.7

_LABELS = {
    Outcome.A: "[[A>B]]",
    Outcome.B: "[[B>A]]",
    Outcome.TIE: "[[A=B]]",
    Outcome.BOTH_BAD: "[[A=B]] both bad",
}


@dataclass(frozen=True)
class SimulatedVerdict:
    """One simulated verdict: ``model_a`` was shown first; ``turn`` None judges the whole
    conversation."""

    item: str
    turn: int | None
    model_a: str
    model_b: str
    outcome: Outcome


def _decide(a: Sequence[DemoAnswer], b: Sequence[DemoAnswer], rng: random.Random) -> Outcome:
    right_a, right_b = correct_turns(a), correct_turns(b)
    if right_a != right_b:
        better = Outcome.A if right_a > right_b else Outcome.B
        return better if rng.random() < ACCURACY else better.swapped()
    if right_a == 0:
        return Outcome.BOTH_BAD if rng.random() < 0.5 else Outcome.A
    length_a, length_b = answer_length(a), answer_length(b)
    if length_a != length_b and rng.random() < VERBOSITY_BIAS:
        return Outcome.A if length_a > length_b else Outcome.B
    return Outcome.A if rng.random() < POSITION_BIAS else Outcome.TIE


def simulated_verdicts(
    item_id: str,
    pairs: Sequence[tuple[str, str]],
    answers: Mapping[str, Sequence[DemoAnswer]],
    multi_turn: bool,
    rng: random.Random,
) -> list[SimulatedVerdict]:
    """The judge's verdicts on each of ``pairs`` of one item, in both orders."""
    turn = None if multi_turn else 1
    return [
        SimulatedVerdict(item_id, turn, a, b, _decide(answers[a], answers[b], rng))
        for pair in pairs
        for a, b in (pair, pair[::-1])
    ]


def store_judge_run(bundle: Bundle, verdicts: Sequence[SimulatedVerdict], seed: int) -> int:
    """Store ``verdicts`` as one completed judge run of :data:`SIMULATED_JUDGE`, mark its
    position flips, and return the run's id."""
    with bundle.session() as session:
        models = {name: id_ for name, id_ in session.execute(select(Model.name, Model.id))}
        items = {ext: id_ for ext, id_ in session.execute(select(Item.external_id, Item.id))}
        run = JudgeRun(
            name=SIMULATED_JUDGE,
            template_name=TEMPLATE_NAME,
            template_version="1",
            template_text=TEMPLATE_TEXT,
            judge_model=SIMULATED_JUDGE,
            base_url=None,
            parameters={"demo": True, "simulated": True, "seed": seed},
            budget={},
            status="completed",
            finished_at=datetime.now(UTC),
        )
        session.add(run)
        session.flush()
        rows = []
        for verdict in verdicts:
            raw = f"{_LABELS[verdict.outcome]} (simulated demo verdict)"
            key = f"demo/{seed}/{verdict.item}/{verdict.turn}/{verdict.model_a}|{verdict.model_b}"
            rows.append(
                {
                    "run_id": run.id,
                    "item_id": items[verdict.item],
                    "turn_index": verdict.turn,
                    "criterion": "overall",
                    "model_a_id": models[verdict.model_a],
                    "model_b_id": models[verdict.model_b],
                    "outcome": verdict.outcome.value,
                    "strength": 1,
                    "label": _LABELS[verdict.outcome],
                    "request_hash": hashlib.sha256(key.encode()).hexdigest(),
                    "raw_text": raw,
                    "prompt_tokens": 0,
                    "completion_tokens": 0,
                    "cost_usd": 0.0,
                    "latency_ms": 0,
                    "metadata_": {"demo": True, "simulated": True},
                }
            )
        with counting_verdicts(session, rows):
            session.execute(insert(JudgeVerdict), rows)
        mark_position_flips(session, run.id)
        return run.id
