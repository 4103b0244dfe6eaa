"""The five-level pairwise verdict labels of Arena-Hard-Auto and WildVision-Bench judges
("A>>B", "A>B", "A=B", "B>A", "B>>A"): reading a label, and finding it in a judge's full text.

A judge answer ends with its label in double brackets ("My final verdict is: [[B>A]]"). Arena-Hard
(``get_score`` in gen_judgment.py) and WildVision-Bench (get_judgement.py) extract it with the
pattern ``\\[\\[([AB<>=]+)\\]\\]`` over the whole text and accept it only when every match is the
same label: no match, or two different labels, means no verdict. :func:`verdict_from_text`
follows that rule by default.
"""

from __future__ import annotations

import re
from typing import Any, Literal, NamedTuple

from workbench.domain import JudgmentKind, JudgmentRecord, Origin, Outcome

#: The labels in the order of the judge prompt: A much better ... B much better.
VERDICT_LABELS = ("A>>B", "A>B", "A=B", "B>A", "B>>A")

_OUTCOMES = {
    "A>>B": (Outcome.A, 2),
    "A>B": (Outcome.A, 1),
    "A=B": (Outcome.TIE, 1),
    "B>A": (Outcome.B, 1),
    "B>>A": (Outcome.B, 2),
}

#: Arena-Hard's own pattern; it also matches strings such as "[[A]]" that are no label, which
#: :func:`parse_verdict` then refuses.
BRACKETED_LABEL = re.compile(r"\[\[([AB<>=]+)\]\]")

_WHITESPACE = re.compile(r"\s+")


class Verdict(NamedTuple):
    """A judge's verdict: who won (in the A/B order the judge saw) and how clearly (2 = much
    better, 1 = better or tie)."""

    outcome: Outcome
    strength: int

    @property
    def label(self) -> str:
        """The canonical label of this verdict, such as ``"B>>A"``."""
        if self.outcome is Outcome.TIE:
            return "A=B"
        sign = ">>" if self.strength == 2 else ">"
        return f"A{sign}B" if self.outcome is Outcome.A else f"B{sign}A"


def verdict_judgment(
    *,
    source: str,
    question_id: str,
    models: tuple[str, str],
    verdict: Verdict | None,
    label: str | None,
    judge: str,
    group_key: str,
    text: str | None,
    metadata: dict[str, Any],
    origin: Origin,
) -> JudgmentRecord:
    """A judge's verdict on ``models`` (A and B as the judge saw them) as a judgment; one whose
    verdict could not be read is kept without an outcome."""
    return JudgmentRecord(
        source=source,
        item_external_id=question_id,
        kind=JudgmentKind.JUDGE,
        model_a=models[0],
        model_b=models[1],
        outcome=verdict.outcome if verdict else None,
        strength=verdict.strength if verdict else 1,
        label=label,
        rater=judge,
        group_key=group_key,
        raw_text=text,
        metadata=metadata,
        origin=origin,
    )


def parse_verdict(label: str | None) -> Verdict | None:
    """The verdict a label states, or None when it is not one of the five labels.

    Whitespace anywhere in the label and one pair of surrounding double brackets are tolerated
    (``" [[A >> B]] "`` reads as ``A>>B``). Other spellings ("B<A", "A==B") do not occur in the
    published WildVision-Bench or Arena-Hard files and are not guessed at.
    """
    if not isinstance(label, str):
        return None
    compact = _WHITESPACE.sub("", label)
    if compact.startswith("[[") and compact.endswith("]]"):
        compact = compact[2:-2]
    found = _OUTCOMES.get(compact)
    return Verdict(*found) if found else None


def labels_in_text(text: str | None) -> list[str]:
    """Every bracketed label in ``text``, in order (as Arena-Hard's pattern finds them)."""
    if not text:
        return []
    return [match for match in BRACKETED_LABEL.findall(text) if match]


def verdict_from_text(
    text: str | None, *, on_conflict: Literal["none", "last"] = "none"
) -> Verdict | None:
    """The verdict a judge's full answer ends with, or None when it gives none.

    With ``on_conflict="none"`` (Arena-Hard's rule) a text holding two different labels has no
    verdict; with ``"last"`` the last label wins, for judges that quote the label list before
    answering. A text whose only bracketed strings are not labels has no verdict either way.
    """
    found = labels_in_text(text)
    if not found:
        return None
    if on_conflict == "none" and len(set(found)) > 1:
        return None
    return parse_verdict(found[-1])
