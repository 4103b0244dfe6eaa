"""Judge prompt templates: a versioned system and user text with placeholders, how the answer is
parsed, what a request shows (images, references, sides), and the answer-extraction follow-up
used when the verdict cannot be read. Plugins contribute templates; runs store them whole.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import string
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Literal

from workbench.errors import WorkbenchError
from workbench.judge.cases import (
    JUDGMENT_PLACEHOLDER,
    PLACEHOLDERS,
    TURN_JUDGMENTS_PLACEHOLDER,
    JudgeCase,
)
from workbench.judge.parsing import OVERALL, Slot, VerdictParser


class TemplateError(WorkbenchError):
    """A template cannot be used as written (an unknown placeholder, contradictory options)."""


class JudgeMode(StrEnum):
    """What one request shows."""

    PAIR = "pair"  # two responses, A and B (one of them may be the reference answer)
    SINGLE = "single"  # one response, graded on its own


def placeholders_in(text: str) -> set[str]:
    """The placeholder names in ``text``; raises TemplateError for anything but plain names."""
    names = set()
    try:
        parsed = list(string.Formatter().parse(text))
    except ValueError as error:
        raise TemplateError(f"unbalanced braces in template text: {error}") from error
    for _literal, name, spec, conversion in parsed:
        if name is None:
            continue
        if not name.isidentifier() or spec or conversion:
            raise TemplateError(
                f"placeholder {{{name}}} must be a plain name (write literal braces as {{{{ }}}})"
            )
        names.add(name)
    return names


@dataclass(frozen=True)
class ExtractionStep:
    """The follow-up request sent when a verdict cannot be read: it shows the judge's answer
    (``{judgment}``) and asks for the verdict alone."""

    system: str
    user: str
    parse: VerdictParser
    max_tokens: int = 16

    def __post_init__(self) -> None:
        unknown = placeholders_in(self.system + self.user) - {JUDGMENT_PLACEHOLDER}
        if unknown:
            raise TemplateError(
                f"the extraction prompt may only use {{{JUDGMENT_PLACEHOLDER}}}, not "
                + ", ".join(sorted(unknown))
            )

    def render(self, judgment: str) -> tuple[str, str]:
        values = {JUDGMENT_PLACEHOLDER: judgment}
        return self.system.format_map(values), self.user.format_map(values)


@dataclass(frozen=True)
class OverallPass:
    """The judgment of the whole conversation as a request of its own, sent after the per-turn
    judgments J1..Jn came back (ConvBench's ConvEval: the overall score S0 is asked for with
    the turns' judgments in hand). Its prompt may use every placeholder a case fills and
    ``{turn_judgments}``, the per-turn judgments as the judge wrote them; its answer gives the
    template's criteria for the whole item (no turn), read by ``parse``. ``extraction`` is its
    own follow-up for an answer whose verdict cannot be read."""

    system: str
    user: str
    parse: VerdictParser
    extraction: ExtractionStep | None = None
    max_tokens: int = 512
    expected_completion_tokens: int = 200

    def __post_init__(self) -> None:
        used = placeholders_in(self.system + self.user)
        unknown = used - set(PLACEHOLDERS) - {TURN_JUDGMENTS_PLACEHOLDER}
        if unknown:
            raise TemplateError(
                "the overall pass may use a case's placeholders and "
                f"{{{TURN_JUDGMENTS_PLACEHOLDER}}}, not " + ", ".join(sorted(unknown))
            )
        if TURN_JUDGMENTS_PLACEHOLDER not in used:
            raise TemplateError(
                "the overall pass must show the turns' judgments "
                f"({{{TURN_JUDGMENTS_PLACEHOLDER}}})"
            )

    def render(self, case: JudgeCase, turn_judgments: str) -> tuple[str, str]:
        values = {**case.context(), TURN_JUDGMENTS_PLACEHOLDER: turn_judgments}
        return self.system.format_map(values), self.user.format_map(values)


@dataclass(frozen=True)
class JudgeTemplate:
    """A judge prompt and everything needed to send it and read the answer.

    - ``criteria`` name the verdicts each answer gives; with ``turn_verdicts`` the answer also
      gives one verdict per turn shown (criterion ``overall``, that turn's index).
    - ``per_turn`` makes one request per turn t, showing turns 1..t; otherwise one request per
      item, showing every turn.
    - ``reference_as_response``: side B (or A) is the reference answer, not a model's.
      ``fixed_side_key`` names the item metadata (0/1) that fixes which side the model takes.
    - ``reference_kinds`` / ``caption_kinds``: which reference and caption kinds to show, in
      order of preference (empty: the first reference, every caption).
    - ``unparsed``: what an answer with no readable verdict (after the extraction step, if any)
      becomes: a tie flagged as unparsed, or no outcome at all.
    - ``overall_pass``: the whole item's verdicts (each criterion, no turn) come from a second
      request fed the first one's per-turn judgments (:class:`OverallPass`); the first request
      gives the per-turn verdicts only.
    """

    name: str
    version: str
    title: str
    description: str
    system: str
    user: str
    parse: VerdictParser
    mode: JudgeMode = JudgeMode.PAIR
    criteria: tuple[str, ...] = (OVERALL,)
    turn_verdicts: bool = False
    per_turn: bool = False
    send_images: bool = False
    max_image_side: int = 1024
    reference_as_response: bool = False
    fixed_side_key: str | None = None
    reference_kinds: tuple[str, ...] = ()
    caption_kinds: tuple[str, ...] = ()
    needs_reference: bool = False
    extraction: ExtractionStep | None = None
    unparsed: Literal["tie", "missing"] = "missing"
    overall_pass: OverallPass | None = None
    temperature: float = 0.0
    max_tokens: int = 1024
    expected_completion_tokens: int = 400

    @property
    def swaps_by_default(self) -> bool:
        """Whether a run judges each pair in both orders unless told otherwise: yes, except
        when the benchmark fixed the side (ConvBench's pairwise.npy: one query per
        conversation, the model where the file puts it)."""
        return self.fixed_side_key is None

    def __post_init__(self) -> None:
        problems = []
        if not self.name or not self.version:
            problems.append("needs a name and a version")
        unknown = self.placeholders() - set(PLACEHOLDERS)
        if unknown:
            problems.append(
                "unknown placeholder(s) "
                + ", ".join(f"{{{name}}}" for name in sorted(unknown))
                + " (known: "
                + ", ".join(sorted(PLACEHOLDERS))
                + ")"
            )
        if self.mode is JudgeMode.SINGLE and (self.reference_as_response or self.fixed_side_key):
            problems.append("a single-output template has no sides to place")
        if self.fixed_side_key and not self.reference_as_response:
            problems.append("a fixed side only makes sense against the reference")
        if self.unparsed == "tie" and self.mode is not JudgeMode.PAIR:
            problems.append("only pairwise verdicts can fall back to a tie")
        if self.max_image_side < 64:
            problems.append("max_image_side must be at least 64 pixels")
        if not self.criteria:
            problems.append("needs at least one criterion")
        if self.overall_pass is not None and (not self.turn_verdicts or self.per_turn):
            problems.append(
                "an overall pass needs per-turn verdicts of the whole conversation in one "
                "request (turn_verdicts, not per_turn)"
            )
        if problems:
            raise TemplateError(f"judge template {self.name!r}: " + "; ".join(problems))

    @property
    def label(self) -> str:
        return f"{self.name}@{self.version}"

    def placeholders(self) -> set[str]:
        return placeholders_in(self.system) | placeholders_in(self.user)

    def expected_slots(self, shown_turns: Sequence[int], judged_turn: int | None) -> list[Slot]:
        """The verdicts a complete answer gives: each criterion (about ``judged_turn``, None for
        the whole conversation; left to the overall pass when there is one) and, with
        ``turn_verdicts``, each turn shown."""
        slots: list[Slot] = [(criterion, judged_turn) for criterion in self.criteria]
        if self.overall_pass is not None:
            slots = []  # the whole item's verdicts come from the overall pass
        if self.turn_verdicts:
            slots += [(OVERALL, turn) for turn in shown_turns if (OVERALL, turn) not in slots]
        return slots

    def overall_slots(self) -> list[Slot]:
        """The verdicts the overall pass gives: each criterion about the whole item."""
        return [(criterion, None) for criterion in self.criteria]

    def render(self, case: JudgeCase) -> tuple[str, str]:
        """The system and user messages for ``case``."""
        context = case.context()
        return self.system.format_map(context), self.user.format_map(context)

    def as_record(self) -> dict[str, Any]:
        """Everything that decides what is sent and how the answer is read, as stored with each
        run (parsers by name and description)."""
        record: dict[str, Any] = {
            "name": self.name,
            "version": self.version,
            "title": self.title,
            "mode": self.mode.value,
            "system": self.system,
            "user": self.user,
            "parser": {"name": self.parse.name, "description": self.parse.description},
            "criteria": list(self.criteria),
            "turn_verdicts": self.turn_verdicts,
            "per_turn": self.per_turn,
            "send_images": self.send_images,
            "max_image_side": self.max_image_side,
            "reference_as_response": self.reference_as_response,
            "fixed_side_key": self.fixed_side_key,
            "reference_kinds": list(self.reference_kinds),
            "caption_kinds": list(self.caption_kinds),
            "needs_reference": self.needs_reference,
            "unparsed": self.unparsed,
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
        }
        if self.extraction is not None:
            record["extraction"] = {
                "system": self.extraction.system,
                "user": self.extraction.user,
                "parser": {
                    "name": self.extraction.parse.name,
                    "description": self.extraction.parse.description,
                },
                "max_tokens": self.extraction.max_tokens,
            }
        if self.overall_pass is not None:
            record["overall_pass"] = _overall_pass_record(self.overall_pass)
        return record

    def as_text(self) -> str:
        return json.dumps(self.as_record(), indent=2, ensure_ascii=False, sort_keys=True)

    def edited(self, *, system: str | None = None, user: str | None = None) -> JudgeTemplate:
        """:func:`edited_template` with the text not given kept as it is."""
        return edited_template(
            self, self.system if system is None else system, self.user if user is None else user
        )


def _overall_pass_record(step: OverallPass) -> dict[str, Any]:
    record: dict[str, Any] = {
        "system": step.system,
        "user": step.user,
        "parser": {"name": step.parse.name, "description": step.parse.description},
        "max_tokens": step.max_tokens,
    }
    if step.extraction is not None:
        record["extraction"] = {
            "system": step.extraction.system,
            "user": step.extraction.user,
            "parser": {
                "name": step.extraction.parse.name,
                "description": step.extraction.parse.description,
            },
            "max_tokens": step.extraction.max_tokens,
        }
    return record


#: what an edited template's version carries after the original's: ``1+edited.<8 hex digits>``
EDITED_VERSION_MARK = "+edited."


def edited_template(template: JudgeTemplate, system: str, user: str) -> JudgeTemplate:
    """``template`` with new system and user text, as a version of its own:
    ``<version>+edited.<first 8 hex digits of SHA-256(system NUL user)>``, so that its runs (which
    store the version and the whole text) are never taken for the original's. The same text
    gives ``template`` itself. Editing an edited template versions it from the original.

    The text may use only the placeholders a case fills (:data:`PLACEHOLDERS`) and must keep
    every one ``template`` uses, in either message: without them the judge would not see what
    it is asked to judge. Raises :class:`TemplateError` naming every problem.
    """
    if system == template.system and user == template.user:
        return template
    problems = []
    used: set[str] = set()
    readable = True
    for part, text in (("system", system), ("user", user)):
        try:
            used |= placeholders_in(text)
        except TemplateError as error:
            problems.append(f"the {part} text: {error}")
            readable = False
    if not user.strip():
        problems.append("the user text is empty")
    unknown = used - set(PLACEHOLDERS)
    if unknown:
        problems.append(
            "unknown placeholder(s) "
            + _braced(unknown)
            + " (a case fills only "
            + _braced(PLACEHOLDERS)
            + ")"
        )
    missing = template.placeholders() - used
    if missing and readable:  # an unreadable text's placeholders are not known
        problems.append(
            f"the template needs {_braced(missing)}, which the edit removed "
            "(put it back in the system or the user text)"
        )
    if problems:
        raise TemplateError(
            f"the edited {template.name} prompt cannot be used: " + "; ".join(problems)
        )
    digest = hashlib.sha256(f"{system}\0{user}".encode()).hexdigest()[:8]
    base = template.version.split(EDITED_VERSION_MARK)[0]
    return dataclasses.replace(
        template, system=system, user=user, version=f"{base}{EDITED_VERSION_MARK}{digest}"
    )


def _braced(names: Iterable[str]) -> str:
    return ", ".join(f"{{{name}}}" for name in sorted(names))
