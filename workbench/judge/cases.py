"""What a judge is shown for one request: the item's turns with the responses of side A (and B),
its captions, references and images, and the template placeholders filled from them.

A case names no model: the judge sees responses by position only.
"""

from __future__ import annotations

from dataclasses import dataclass

#: placeholder -> what it holds; templates may use these and no others
PLACEHOLDERS: dict[str, str] = {
    "instruction": "the user's prompt of the judged turn (the last turn shown)",
    "caption": "the item's captions (one per image, numbered when there are several)",
    "reference": "the reference answer of the judged turn",
    "focus_points": "what a good answer must address (per turn, where the benchmark gives them)",
    "response_a": "side A's answer to the judged turn",
    "response_b": "side B's answer to the judged turn",
    "response": "the graded answer to the judged turn (single-output templates)",
    "transcript_a": "every turn shown: its prompt and side A's answer",
    "transcript_b": "every turn shown: its prompt and side B's answer",
    "transcript": "every turn shown: its prompt and the graded answer",
    "reference_transcript": "every turn shown: its prompt and the reference answer",
    "graded_transcript": "every turn shown: prompt, reference answer and the graded answer",
    "turn_count": "how many turns are shown",
}

#: the one placeholder of an answer-extraction follow-up prompt
JUDGMENT_PLACEHOLDER = "judgment"
#: the placeholder of an overall pass's prompt that holds the per-turn judgments J1..Jn
TURN_JUDGMENTS_PLACEHOLDER = "turn_judgments"


@dataclass(frozen=True, slots=True)
class ImageRef:
    """An image of the item as stored in the bundle; bytes are fetched only when sent."""

    position: int
    image_id: int
    sha256: str
    width: int
    height: int


@dataclass(frozen=True, slots=True)
class CaseTurn:
    """One turn as the judge sees it: ``answers`` holds side A's answer (and side B's)."""

    index: int
    prompt: str
    reference: str | None
    focus_points: str | None
    answers: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class JudgeCase:
    """Everything one request shows. ``turns`` are the turns shown, in order; the last one is
    the judged turn."""

    source: str
    external_id: str
    turns: tuple[CaseTurn, ...]
    captions: tuple[tuple[int | None, str], ...] = ()
    images: tuple[ImageRef, ...] = ()

    @property
    def judged(self) -> CaseTurn:
        return self.turns[-1]

    def context(self) -> dict[str, str]:
        """The value of every placeholder for this case."""
        judged = self.judged
        answers = judged.answers
        return {
            "instruction": judged.prompt,
            "caption": _captions(self.captions),
            "reference": judged.reference or "",
            "focus_points": _focus_points(self.turns),
            "response_a": answers[0] if answers else "",
            "response_b": answers[1] if len(answers) > 1 else "",
            "response": answers[0] if answers else "",
            "transcript_a": _transcript(self.turns, side=0),
            "transcript_b": _transcript(self.turns, side=1),
            "transcript": _transcript(self.turns, side=0),
            "reference_transcript": _transcript(self.turns, side=None),
            "graded_transcript": _graded_transcript(self.turns),
            "turn_count": str(len(self.turns)),
        }


def _captions(captions: tuple[tuple[int | None, str], ...]) -> str:
    if len(captions) == 1:
        return captions[0][1]
    lines = []
    for number, (position, text) in enumerate(captions, start=1):
        name = f"Image {position + 1}" if position is not None else f"Caption {number}"
        lines.append(f"{name}: {text}")
    return "\n".join(lines)


def _focus_points(turns: tuple[CaseTurn, ...]) -> str:
    given = [turn for turn in turns if turn.focus_points]
    if not given:
        return ""
    if len(turns) == 1:
        return given[0].focus_points or ""
    return "\n".join(f"Turn {turn.index}: {turn.focus_points}" for turn in given)


#: how a transcript heads each turn; :data:`TURN_HEADING_PATTERN` finds them again
TURN_HEADING = "[Turn {index}]"
TURN_HEADING_PATTERN = r"^\[Turn (\d{1,3})\]$"


def _transcript(turns: tuple[CaseTurn, ...], side: int | None) -> str:
    blocks = []
    for turn in turns:
        if side is None:
            answer = turn.reference or ""
        else:
            answer = turn.answers[side] if side < len(turn.answers) else ""
        heading = TURN_HEADING.format(index=turn.index)
        blocks.append(f"{heading}\nInstruction: {turn.prompt}\nAnswer: {answer}")
    return "\n\n".join(blocks)


def _graded_transcript(turns: tuple[CaseTurn, ...]) -> str:
    blocks = []
    for turn in turns:
        answer = turn.answers[0] if turn.answers else ""
        blocks.append(
            f"{TURN_HEADING.format(index=turn.index)}\nInstruction: {turn.prompt}\n"
            f"Reference answer: {turn.reference or ''}\nAnswer to grade: {answer}"
        )
    return "\n\n".join(blocks)
