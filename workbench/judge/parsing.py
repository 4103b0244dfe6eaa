"""Reading a verdict out of a judge's free text: the parsed-verdict types and generic parsers
(a verdict sentence, labelled fields such as ``Overall: [[A]]`` or ``Turn 2 score: [[7]]``).
Benchmark-specific formats are built from these by the plugins' templates.

Verdicts here are positional: ``Outcome.A`` means the response shown as A won.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Literal, Protocol

from workbench.domain import Outcome

#: What one verdict is about: a criterion and, for per-turn verdicts, the turn (None = the
#: whole task the judge was shown).
Slot = tuple[str, int | None]

OVERALL = "overall"

_EMPHASIS = re.compile(r"(\*\*|__|`)")
_SPACES = re.compile(r"[ \t]+")

_CHOICES = {
    "A": Outcome.A,
    "B": Outcome.B,
    "TIE": Outcome.TIE,
    "C": Outcome.TIE,
    "A=B": Outcome.TIE,
    "EQUAL": Outcome.TIE,
    "SAME": Outcome.TIE,
}


@dataclass(frozen=True, slots=True)
class ParsedVerdict:
    """One verdict read from a judge's answer: a positional outcome (pairwise templates) or a
    score (grading templates), with the label as the judge wrote it."""

    criterion: str = OVERALL
    turn_index: int | None = None
    outcome: Outcome | None = None
    strength: int = 1
    label: str | None = None
    score: float | None = None

    @property
    def slot(self) -> Slot:
        return (self.criterion, self.turn_index)


@dataclass(frozen=True, slots=True)
class ParseResult:
    """What a parser found, and what it could not read (one line per problem)."""

    verdicts: tuple[ParsedVerdict, ...] = ()
    problems: tuple[str, ...] = ()

    def by_slot(self) -> dict[Slot, ParsedVerdict]:
        return {verdict.slot: verdict for verdict in self.verdicts}

    def missing(self, expected: Iterable[Slot]) -> list[Slot]:
        found = self.by_slot()
        return [slot for slot in expected if slot not in found]


class VerdictParser(Protocol):
    """Reads verdicts from a judge's answer. ``name`` and ``description`` are stored with each
    run, so a run says how its verdicts were read."""

    @property
    def name(self) -> str: ...

    @property
    def description(self) -> str: ...

    def __call__(self, text: str) -> ParseResult: ...

    def write(self, verdicts: Sequence[ParsedVerdict]) -> str | None:
        """An answer this parser reads as ``verdicts``, or None when the parser cannot say how
        its format is written (the simulated judge then cannot use its template)."""
        ...


def plain(text: str | None) -> str:
    """The text without markdown emphasis and with runs of spaces collapsed, which is how
    judges decorate their verdict lines ("**Overall:** [[A]]")."""
    return _SPACES.sub(" ", _EMPHASIS.sub("", text or ""))


def read_choice(token: str, *, allow_tie: bool = True) -> Outcome | None:
    """The outcome a choice token names ("A", "B", "tie"...), or None ("Unknown", anything
    else, or a tie where none is allowed)."""
    outcome = _CHOICES.get(re.sub(r"[\s()\[\].:]", "", token).upper())
    if outcome is Outcome.TIE and not allow_tie:
        return None
    return outcome


def _written_choice(verdict: ParsedVerdict) -> str:
    if verdict.score is not None:
        return f"{verdict.score:g}"
    return {Outcome.A: "A", Outcome.B: "B"}.get(verdict.outcome, "tie")  # type: ignore[arg-type]


def choice_label(outcome: Outcome) -> str:
    return {Outcome.A: "A", Outcome.B: "B"}.get(outcome, "tie")


@dataclass(frozen=True)
class SentenceParser:
    """One verdict stated in a sentence, found by ``pattern`` whose group ``choice`` names the
    winner. The last match counts: judges often restate the expected format before answering."""

    name: str
    description: str
    pattern: str
    flags: int = re.IGNORECASE
    allow_tie: bool = False
    criterion: str = OVERALL
    #: the sentence as a judge writes it, ``{choice}`` standing for the winner's letter ("" when
    #: the pattern is the only description of the format)
    written_as: str = ""

    @cached_property
    def _regex(self) -> re.Pattern[str]:
        return re.compile(self.pattern, self.flags)

    def write(self, verdicts: Sequence[ParsedVerdict]) -> str | None:
        chosen = [v for v in verdicts if v.criterion == self.criterion and v.turn_index is None]
        if not self.written_as or not chosen:
            return None
        return self.written_as.format(choice=_written_choice(chosen[0]))

    def __call__(self, text: str) -> ParseResult:
        matches = list(self._regex.finditer(plain(text)))
        if not matches:
            return ParseResult(problems=("no verdict sentence found",))
        token = matches[-1].group("choice")
        outcome = read_choice(token, allow_tie=self.allow_tie)
        if outcome is None:
            return ParseResult(problems=(f"the verdict names no winner ({token.strip()!r})",))
        verdict = ParsedVerdict(self.criterion, None, outcome, 1, choice_label(outcome))
        return ParseResult((verdict,))


@dataclass(frozen=True, slots=True)
class LabelledField:
    """A verdict field: its name as a regular expression (``Relevance\\s+and\\s+completeness``)
    and the slot its value fills."""

    label: str
    criterion: str = OVERALL
    turn_index: int | None = None
    #: the field's name as a judge writes it; by default the label, when it is plain text
    written_as: str = ""

    def name_as_written(self) -> str | None:
        if self.written_as:
            return self.written_as
        return self.label if re.escape(self.label) == self.label else None


@dataclass(frozen=True)
class FieldParser:
    """Verdicts written as labelled fields with the value in double brackets, one per criterion
    (``Hallucination: [[B]]``) and, with ``turn_fields``, one per turn (``Turn 2: [[7]]``).

    ``kind="choice"`` reads A / B / tie; ``kind="score"`` reads a number within ``scale``
    (``7``, ``7.5`` or ``7/10``). The last occurrence of a field counts.
    """

    name: str
    description: str
    fields: tuple[LabelledField, ...]
    kind: Literal["choice", "score"] = "choice"
    allow_tie: bool = True
    scale: tuple[float, float] = (0.0, 10.0)
    turn_fields: bool = False
    turn_criterion: str = OVERALL

    @cached_property
    def _field_regexes(self) -> tuple[tuple[LabelledField, re.Pattern[str]], ...]:
        return tuple((spec, _field_regex(spec.label)) for spec in self.fields)

    def write(self, verdicts: Sequence[ParsedVerdict]) -> str | None:
        by_slot = {verdict.slot: verdict for verdict in verdicts}
        lines = []
        if self.turn_fields:
            turns = sorted(
                (turn, verdict)
                for (criterion, turn), verdict in by_slot.items()
                if turn is not None and criterion == self.turn_criterion
            )
            lines += [f"Turn {turn}: [[{_written_choice(verdict)}]]" for turn, verdict in turns]
        for spec in self.fields:
            verdict = by_slot.get((spec.criterion, spec.turn_index))
            name = spec.name_as_written()
            if verdict is None:
                continue
            if name is None:
                return None
            lines.append(f"{name}: [[{_written_choice(verdict)}]]")
        return "\n".join(lines) if lines else None

    def __call__(self, text: str) -> ParseResult:
        body = plain(text)
        verdicts: list[ParsedVerdict] = []
        problems: list[str] = []
        for spec, regex in self._field_regexes:
            matches = list(regex.finditer(body))
            if matches:
                self._read(
                    matches[-1].group("value"),
                    spec.criterion,
                    spec.turn_index,
                    verdicts,
                    problems,
                    spec.label,
                )
        if self.turn_fields:
            last_by_turn: dict[int, str] = {}
            for match in _TURN_FIELD.finditer(body):
                last_by_turn[int(match.group("turn"))] = match.group("value")
            for turn, value in sorted(last_by_turn.items()):
                self._read(value, self.turn_criterion, turn, verdicts, problems, f"turn {turn}")
        return ParseResult(tuple(verdicts), tuple(problems))

    def _read(
        self,
        value: str,
        criterion: str,
        turn: int | None,
        verdicts: list[ParsedVerdict],
        problems: list[str],
        where: str,
    ) -> None:
        if self.kind == "score":
            score = read_score(value, self.scale)
            if score is None:
                problems.append(
                    f"{where}: {value.strip()!r} is not a score in "
                    f"{self.scale[0]:g}..{self.scale[1]:g}"
                )
            else:
                verdicts.append(ParsedVerdict(criterion, turn, None, 1, f"{score:g}", score))
            return
        outcome = read_choice(value, allow_tie=self.allow_tie)
        if outcome is None:
            problems.append(f"{where}: {value.strip()!r} is not a valid choice")
        else:
            verdicts.append(ParsedVerdict(criterion, turn, outcome, 1, choice_label(outcome)))


_VALUE = r"\[\[\s*(?P<value>[^\[\]\n]{1,24}?)\s*\]\]"
_TURN_FIELD = re.compile(r"\bTurn\s*(?P<turn>\d{1,2})\b[^\[\n]{0,40}?" + _VALUE, re.IGNORECASE)
_SCORE = re.compile(r"^\s*(?P<score>\d+(?:\.\d+)?)\s*(?:/\s*\d+(?:\.\d+)?)?\s*$")


def _field_regex(label: str) -> re.Pattern[str]:
    # The value must sit on the same line, shortly after the field's name.
    return re.compile(rf"\b(?:{label})\b[^\[\n]{{0,40}}?" + _VALUE, re.IGNORECASE)


def read_score(value: str, scale: tuple[float, float]) -> float | None:
    match = _SCORE.match(value)
    if match is None:
        return None
    score = float(match.group("score"))
    return score if scale[0] <= score <= scale[1] else None


@dataclass(frozen=True)
class CallbackParser:
    """A parser written as a plain function, for formats with their own reading rules."""

    name: str
    description: str
    function: Callable[[str], ParseResult] = field(repr=False)
    #: writes an answer in the format ``function`` reads (None: not known)
    writer: Callable[[Sequence[ParsedVerdict]], str | None] | None = field(default=None, repr=False)

    def __call__(self, text: str) -> ParseResult:
        return self.function(text)

    def write(self, verdicts: Sequence[ParsedVerdict]) -> str | None:
        return None if self.writer is None else self.writer(verdicts)
