"""Refusal detection in answers: a documented phrase rule, so VisionArena's "Exclude Refusal"
board can be drawn from data that does not tag refusals (WildVision-Bench's answers).

Chatbot Arena's and VisionArena's own refusal view labels conversations with an LLM classifier
(FastChat ``CategoryRefusal``, later a fine-tuned one), which cannot run offline. This rule
instead follows the refusal-phrase matching of Zou et al., "Universal and Transferable
Adversarial Attacks on Aligned Language Models" (2023), the usual keyword test of refusal
studies, restricted to the opening of the answer: an answer that apologises or says it cannot do
the task in its first :data:`OPENING_CHARACTERS` characters refuses. A refusal further in (after
a real answer) is not counted, so a caveat at the end of a full answer does not make it one.
"""

from __future__ import annotations

import re

#: how much of an answer's opening the phrases are looked for in
OPENING_CHARACTERS = 200

_CANNOT = (
    r"(?:can ?not|can't|can’t|won't|will not|"
    r"(?:am|'m|’m) unable to|(?:am|'m|’m) not able to)"
)
_TASK = (
    r"(?:help|assist|provide|identify|recogni[sz]e|comply|fulfil+|answer|determine|"
    r"generate|create|describe|read|see|view|access|analy[sz]e|process|interpret|tell|"
    r"give|share|complete|do that|rank|rate)"
)
#: the refusal phrases, matched case-insensitively in the opening
REFUSAL_PATTERN = re.compile(
    r"\b(?:i(?:'m| am|’m) sorry|i apologi[sz]e|my apologies|unfortunately,? i "
    + _CANNOT
    + r"|as an ai\b|i "
    + _CANNOT
    + r" "
    + _TASK
    + r"|i do not feel comfortable|i don't feel comfortable|i must decline)",
    re.IGNORECASE,
)


def is_refusal(text: str | None) -> bool:
    """Whether ``text`` refuses by the rule above (an empty answer is no refusal: it is
    missing, and counted as such elsewhere)."""
    if not text:
        return False
    return REFUSAL_PATTERN.search(text.strip()[:OPENING_CHARACTERS]) is not None
