"""A simulated judge: answers any installed template's request in that template's own verdict
format, with verdicts drawn from a hash of the request. It lets a newcomer run the whole judge
path (plan, requests, parsing, storage, panels) before any model is served; its verdicts say
nothing about the answers, and every run made with it carries :data:`SIMULATED_MODEL` as its
judge model, so it is named as simulated wherever runs are listed.

The draw is a pure function of the seed and the request text: the same request gets the same
verdict in every run, as a cached real judge would."""

from __future__ import annotations

import hashlib
import random
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from workbench.domain import Outcome
from workbench.domain.judgments import SIMULATED_JUDGE_MODEL
from workbench.judge.cases import TURN_HEADING_PATTERN
from workbench.judge.parsing import ParsedVerdict
from workbench.judge.templates import JudgeMode, JudgeTemplate

#: the model name the simulated endpoint serves, and so every simulated run's judge model
SIMULATED_MODEL = SIMULATED_JUDGE_MODEL
#: the opening of every simulated answer: a reader of the raw text sees what it is at once
DISCLAIMER = (
    "Simulated verdict: drawn at random by VLM Workbench's simulated judge, without reading "
    "the answers."
)

_TURN_HEADING = re.compile(TURN_HEADING_PATTERN + r"\n(?=Instruction: )", re.MULTILINE)


class NotSimulable(Exception):
    """The template's verdict parser cannot say how its format is written."""


def turns_shown(user_text: str) -> list[int]:
    """The turns a request's transcript shows, in order (none for a single-turn request)."""
    return sorted({int(found) for found in _TURN_HEADING.findall(user_text)})


def _draw(seed: int, *parts: object) -> random.Random:
    digest = hashlib.sha256("\x1f".join(str(part) for part in (seed, *parts)).encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def _verdict(
    template: JudgeTemplate, criterion: str, turn: int | None, draw: random.Random
) -> ParsedVerdict:
    if template.mode is JudgeMode.SINGLE:
        return ParsedVerdict(criterion, turn, score=float(draw.randint(0, 10)))
    # a forced-choice format (VisIT-Bench's sentence, ConvBench's pairwise) has no tie to write
    ties = 10 if getattr(template.parse, "allow_tie", True) else 0
    outcome = draw.choices((Outcome.A, Outcome.B, Outcome.TIE), weights=(45, 45, ties))[0]
    strength = 2 if outcome is not Outcome.TIE and draw.random() < 0.3 else 1
    return ParsedVerdict(criterion, turn, outcome, strength)


def simulated_verdicts(
    template: JudgeTemplate, user_text: str, seed: int = 0
) -> list[ParsedVerdict]:
    """What the simulated judge decides for one request: a verdict per criterion and, for a
    per-turn template, per turn shown."""
    turns = turns_shown(user_text) if template.turn_verdicts else []
    slots: list[tuple[str, int | None]] = [(criterion, None) for criterion in template.criteria]
    if template.overall_pass is not None:
        slots = []  # the whole item's verdicts are the overall pass's
    slots += [(criterion, turn) for turn in turns for criterion in template.criteria[:1]]
    return [
        _verdict(template, criterion, turn, _draw(seed, template.name, user_text, criterion, turn))
        for criterion, turn in slots
    ]


def simulated_answer(template: JudgeTemplate, user_text: str, seed: int = 0) -> str:
    """The simulated judge's whole answer to one request of ``template``.

    Raises :class:`NotSimulable` when the template's parser cannot write its format."""
    verdicts = simulated_verdicts(template, user_text, seed)
    # a third-party parser may predate ``write``
    write = getattr(template.parse, "write", None)
    written = write(verdicts) if write is not None else None
    answer = f"{DISCLAIMER}\n\n{written}"
    wanted = {verdict.slot for verdict in verdicts}
    if written is None or not wanted <= {found.slot for found in template.parse(answer).verdicts}:
        raise NotSimulable(
            f"the simulated judge cannot write verdicts for the template '{template.name}' "
            f"(its parser '{template.parse.name}' does not say how its format is written)"
        )
    return answer


@dataclass(frozen=True)
class SimulatedResponder:
    """Answers chat requests of the given templates, which it recognises by their system
    prompt (fixed text in every installed template); a template's overall pass with drawn
    verdicts in its own format, and the answer-extraction follow-up with the letter of a
    drawn winner."""

    templates: tuple[JudgeTemplate, ...]
    seed: int = 0

    def _by_system(self) -> dict[str, JudgeTemplate]:
        return {template.system.strip(): template for template in self.templates}

    def answer(self, system: str, user: str) -> str:
        """The answer to one request, or :class:`NotSimulable` for a prompt of no template."""
        template = self._by_system().get(system.strip())
        if template is not None:
            return simulated_answer(template, user, self.seed)
        for candidate in self.templates:
            step = candidate.overall_pass
            if step is not None and step.system.strip() == system.strip():
                return self._overall_answer(candidate, user)
        for candidate in self.templates:
            extraction = candidate.extraction
            if extraction is not None and extraction.system.strip() == system.strip():
                return _draw(self.seed, candidate.name, user).choice(("A", "B"))
        raise NotSimulable(
            "the simulated judge answers only the installed templates' prompts; this request's "
            "system prompt is none of them"
        )

    def _overall_answer(self, template: JudgeTemplate, user: str) -> str:
        """The answer to ``template``'s overall pass: a drawn verdict per criterion."""
        step = template.overall_pass
        assert step is not None
        verdicts = [
            _verdict(template, criterion, None, _draw(self.seed, "overall", user, criterion))
            for criterion in template.criteria
        ]
        written = getattr(step.parse, "write", lambda _: None)(verdicts)
        if written is None:
            raise NotSimulable(
                f"the simulated judge cannot write the overall pass of '{template.name}'"
            )
        return f"{DISCLAIMER}\n\n{written}"


def simulable(templates: Iterable[JudgeTemplate]) -> Sequence[JudgeTemplate]:
    """The templates the simulated judge can answer (their parsers, and their overall pass's,
    write their format)."""
    found = []
    for template in templates:
        try:
            # a one-turn transcript, so that a template whose first request gives only
            # per-turn verdicts has one to write
            simulated_answer(template, _PROBE)
            if template.overall_pass is not None:
                SimulatedResponder((template,))._overall_answer(template, _PROBE)
        except NotSimulable:
            continue
        found.append(template)
    return found


_PROBE = "[Turn 1]\nInstruction: probe"
