"""The per-turn judgments J1..Jn of a judge's answer, cut out of its text for the overall pass
(:class:`~workbench.judge.templates.OverallPass`), which is fed them to give the conversation's
overall verdict."""

from __future__ import annotations

import re
from collections.abc import Sequence

from workbench.judge.parsing import ParsedVerdict, plain

#: a line that opens a turn's part of the answer: "Turn 2 judgment: ...", "**Turn 2:** ..."
_TURN_LINE = re.compile(r"^\W*Turn\s*(?P<turn>\d{1,2})\b", re.IGNORECASE)
#: a line that opens the part about the whole conversation, which closes the last turn's part
_OVERALL_LINE = re.compile(r"^\W*Overall\b", re.IGNORECASE)

NO_JUDGMENT = "(no judgment of this turn could be read)"


def turn_sections(answer: str) -> dict[int, str]:
    """Each turn's part of ``answer``: the lines from one that opens with "Turn N" up to the
    next line opening with another turn or with "Overall". Text before the first turn's line
    (a preamble) belongs to no turn; a turn discussed in several places gets them all."""
    sections: dict[int, list[str]] = {}
    current: int | None = None
    for line in plain(answer).splitlines():
        opened = _TURN_LINE.match(line)
        if opened is not None:
            current = int(opened.group("turn"))
        elif _OVERALL_LINE.match(line):
            current = None
        if current is not None:
            sections.setdefault(current, []).append(line)
    return {turn: "\n".join(lines).strip() for turn, lines in sections.items()}


def turn_judgments_text(
    answer: str, verdicts: Sequence[ParsedVerdict], turns: Sequence[int]
) -> str:
    """J1..Jn as the overall pass shows them: per turn shown, the judge's own part of the
    answer about it, else the verdict read for it, else a note that there was none."""
    sections = turn_sections(answer)
    by_turn = {v.turn_index: v for v in verdicts if v.turn_index is not None}
    blocks = []
    for turn in turns:
        text = sections.get(turn)
        if not text:
            verdict = by_turn.get(turn)
            text = f"Turn {turn}: [[{verdict.label}]]" if verdict and verdict.label else None
        blocks.append(f"[Judgment of turn {turn}]\n{text or NO_JUDGMENT}")
    return "\n\n".join(blocks)
