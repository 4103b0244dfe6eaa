"""Annotation protocols: what an annotator is shown and how they answer (the choices with their
keys, the criteria, a grade scale). Plugins contribute them; campaigns name one.

A protocol says nothing about which model wrote what: choices are about screen positions
("Response 1" is the left output), and the campaign service maps them back to models.
"""

from __future__ import annotations

import math
import string
from dataclasses import dataclass
from enum import StrEnum

#: keys a protocol may bind: one digit or one upper-case letter. The annotation view keeps
#: modified keys (Ctrl+Z), Escape, Enter, F1 and "?" for its own actions.
ALLOWED_KEYS = frozenset(string.digits + string.ascii_uppercase)


class Display(StrEnum):
    """How many outputs a task shows."""

    PAIR = "pair"  # two outputs, as "Response 1" (left) and "Response 2" (right)
    SINGLE = "single"  # one output, graded or checked on its own
    NONE = "none"  # no model output: the reference and caption are what is judged


class ProtocolError(ValueError):
    """A protocol definition contradicts itself (a programming error in a plugin)."""


@dataclass(frozen=True, slots=True)
class Choice:
    """One answer an annotator can give.

    ``value`` is what a vote stores: for pairwise protocols one of the ``Outcome`` values
    ("a" = the left output, "b" = the right one, "tie", "both_bad"), so a vote together with
    its stored (left, right) models says which model won.
    """

    value: str
    label: str
    key: str
    description: str = ""


@dataclass(frozen=True, slots=True)
class Criterion:
    """One question asked about a task; single-question protocols have just ``overall``."""

    name: str
    label: str
    description: str = ""


@dataclass(frozen=True, slots=True)
class GradeScale:
    """A numeric grade (ConvBench's 0-10 per turn), in whole steps of ``step``."""

    minimum: float
    maximum: float
    step: float = 1.0

    def __post_init__(self) -> None:
        if not self.minimum < self.maximum or self.step <= 0:
            raise ProtocolError(f"bad grade scale {self.minimum}..{self.maximum} by {self.step}")

    def contains(self, grade: float) -> bool:
        if not math.isfinite(grade) or not self.minimum <= grade <= self.maximum:
            return False
        steps = (grade - self.minimum) / self.step
        return math.isclose(steps, round(steps), abs_tol=1e-9)

    def values(self) -> tuple[float, ...]:
        count = round((self.maximum - self.minimum) / self.step)
        return tuple(self.minimum + index * self.step for index in range(count + 1))


OVERALL = Criterion("overall", "Overall")

#: what the view labels the two outputs, by position
RESPONSE_LABELS = ("Response 1", "Response 2")


@dataclass(frozen=True, slots=True)
class AnnotationProtocol:
    """How one kind of blind annotation task looks and is answered.

    Every criterion is answered with one of ``choices`` or, when ``grade_scale`` is set, with a
    grade (then ``choices`` is empty). ``reference_as_response`` means one of the two outputs
    shown is the reference answer, unlabelled (ConvBench's pairwise grading), so the reference
    is then never also shown as such. ``comment_required_for`` lists choices that need a
    comment (a verification flag must say what is wrong); a comment is optional otherwise.
    ``reference_kinds`` says which reference to use where a turn has several (VisIT-Bench has a
    human-verified one and the GPT-4 candidate that verification judges): the first of these
    kinds the turn has, else its first reference.
    """

    name: str
    title: str
    description: str
    display: Display
    choices: tuple[Choice, ...] = ()
    criteria: tuple[Criterion, ...] = (OVERALL,)
    grade_scale: GradeScale | None = None
    shows_reference: bool = False
    shows_caption: bool = False
    per_turn: bool = False
    reference_as_response: bool = False
    comment_required_for: tuple[str, ...] = ()
    reference_kinds: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        problems = self._problems()
        if problems:
            raise ProtocolError(f"protocol {self.name!r}: " + "; ".join(problems))

    def _problems(self) -> list[str]:
        problems = []
        if not self.name or not self.criteria:
            problems.append("needs a name and at least one criterion")
        if len({criterion.name for criterion in self.criteria}) != len(self.criteria):
            problems.append("criterion names repeat")
        if (self.grade_scale is None) == (not self.choices):
            problems.append("needs either choices or a grade scale, not both")
        values = [choice.value for choice in self.choices]
        keys = [choice.key for choice in self.choices]
        if len(set(values)) != len(values) or len(set(keys)) != len(keys):
            problems.append("choice values and keys must be unique")
        if not set(keys) <= ALLOWED_KEYS:
            problems.append(f"keys must be one digit or capital letter, not {sorted(keys)}")
        if not set(self.comment_required_for) <= set(values):
            problems.append("comment_required_for names unknown choices")
        if self.reference_as_response and (self.display is not Display.PAIR):
            problems.append("only a pair can have the reference as one of its responses")
        if self.reference_as_response and self.shows_reference:
            problems.append("showing the reference would reveal which response it is")
        if self.display is Display.NONE and not (self.shows_reference or self.shows_caption):
            problems.append("a task without outputs must show the reference or caption")
        return problems

    @property
    def output_count(self) -> int:
        return {Display.PAIR: 2, Display.SINGLE: 1, Display.NONE: 0}[self.display]

    @property
    def response_labels(self) -> tuple[str, ...]:
        return RESPONSE_LABELS[: self.output_count]

    def choice(self, value: str) -> Choice:
        for choice in self.choices:
            if choice.value == value:
                return choice
        raise KeyError(value)

    def choice_for_key(self, key: str) -> Choice | None:
        """The choice bound to a key (case-insensitive), or None."""
        wanted = key.upper()
        return next((choice for choice in self.choices if choice.key == wanted), None)


# The pairwise answers most protocols share, keyed by the response numbers on screen.
RESPONSE_1_BETTER = Choice("a", "Response 1", "1", "Response 1 is better")
RESPONSE_2_BETTER = Choice("b", "Response 2", "2", "Response 2 is better")
TIE = Choice("tie", "Tie", "3", "Both are equally good")
BOTH_BAD = Choice("both_bad", "Both bad", "4", "Neither response is acceptable")


def swap_sides(value: str | None) -> str | None:
    """A pairwise answer with the two responses' places exchanged ("a" <-> "b"); an answer
    that names no side (a tie, both bad, a verification choice) is the same either way."""
    return {"a": "b", "b": "a"}.get(value, value) if value is not None else None
