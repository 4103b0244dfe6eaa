"""CHIRP's AI judge (2024): a vision judge compares two long-form answers to an open-ended
question about an image on five criteria (overall; relevance and completeness; understanding and
reasoning; hallucination; detail), each A, B or a tie; with or without a reference answer. The
"reasoning" variant explains its choices before the five lines; the "simple" one gives the
lines alone. When lines are missing, a short follow-up shows the judge its answer and asks for
the final choices alone (final-choice extraction).

The prompts are written for this project following the protocol; the criteria are those of the
CHIRP annotation protocol, so judge verdicts and human votes line up criterion by criterion.
"""

from __future__ import annotations

from dataclasses import replace

from workbench.judge.parsing import FieldParser, LabelledField
from workbench.judge.templates import ExtractionStep, JudgeMode, JudgeTemplate
from workbench_chirp.protocols import CRITERIA

#: 2: final-choice extraction for answers whose lines are missing
VERSION = "2"

_CRITERIA_TEXT = """\
- Overall: which answer is better as a whole.
- Relevance and completeness: which answer addresses the whole question and stays on it.
- Understanding and reasoning: which answer understands the image and the question better and
  reasons soundly.
- Hallucination: which answer invents less, that is, states fewer things that are not in the
  image or not true. The answer with fewer invented details wins this criterion.
- Detail: which answer gives more useful, specific detail."""

_SYSTEM = f"""\
You compare two answers to an open-ended question about an image, on five criteria:
{_CRITERIA_TEXT}

For each criterion choose A, B, or tie when neither answer is better on it. Look at the image
closely. {{reference_rule}}The order of the answers and their length say nothing about quality.

Explain your choices briefly, then end with exactly these five lines, putting A, B or tie in
each pair of brackets:
Overall: [[ ]]
Relevance and completeness: [[ ]]
Understanding and reasoning: [[ ]]
Hallucination: [[ ]]
Detail: [[ ]]"""

_REFERENCE_RULE = (
    "A reference answer written by a person is also given: use it to check facts and to see "
    "what a complete answer covers. "
)

_USER = """\
Question:
{instruction}

Answer A:
{response_a}

Answer B:
{response_b}"""

_USER_REFERENCE = """\
Question:
{instruction}

Reference answer:
{reference}

Answer A:
{response_a}

Answer B:
{response_b}"""

#: the way each criterion's line is recognised, by the protocol's criterion name
_FIELD_LABELS = {
    "overall": r"Overall",
    "relevance_completeness": r"Relevance\s*(?:and|&)\s*completeness",
    "understanding_reasoning": r"Understanding\s*(?:and|&)\s*reasoning",
    "hallucination": r"Hallucinations?",
    "detail": r"Detail(?:s|edness)?",
}

#: each criterion's line as the prompt asks a judge to write it
_WRITTEN = {
    "overall": "Overall",
    "relevance_completeness": "Relevance and completeness",
    "understanding_reasoning": "Understanding and reasoning",
    "hallucination": "Hallucination",
    "detail": "Detail",
}

FIVE_CRITERIA_CHOICES = FieldParser(
    name="chirp-five-criteria-choices",
    description='one "<criterion>: [[A|B|tie]]" line per criterion',
    fields=tuple(
        LabelledField(
            _FIELD_LABELS[criterion.name], criterion.name, written_as=_WRITTEN[criterion.name]
        )
        for criterion in CRITERIA
    ),
    kind="choice",
    allow_tie=True,
)


_LINES = """\
Overall: [[ ]]
Relevance and completeness: [[ ]]
Understanding and reasoning: [[ ]]
Hallucination: [[ ]]
Detail: [[ ]]"""

FINAL_CHOICE_EXTRACTION = ExtractionStep(
    system="You read an evaluation that compares two answers and report the final choices it "
    "made, nothing else.",
    user="""\
---
{judgment}
---
Report the final choices of the evaluation above in exactly this form, with A, B or tie in
each pair of brackets, and [[unknown]] where it made no choice:
"""
    + _LINES,
    parse=FIVE_CRITERIA_CHOICES,
    max_tokens=64,
)

FIVE_CRITERIA = JudgeTemplate(
    name="chirp-five-criteria",
    title="CHIRP five criteria",
    description="Vision judge: image, question, two answers; A/B/tie on each of five criteria",
    system=_SYSTEM.replace("{reference_rule}", ""),
    user=_USER,
    version=VERSION,
    parse=FIVE_CRITERIA_CHOICES,
    mode=JudgeMode.PAIR,
    criteria=tuple(criterion.name for criterion in CRITERIA),
    send_images=True,
    max_image_side=1024,
    extraction=FINAL_CHOICE_EXTRACTION,
    unparsed="missing",
    max_tokens=1536,
    expected_completion_tokens=500,
)

FIVE_CRITERIA_REFERENCE = replace(
    FIVE_CRITERIA,
    name="chirp-five-criteria-reference",
    title="CHIRP five criteria (with reference)",
    description="As the five-criteria judge, with a reference answer shown",
    system=_SYSTEM.replace("{reference_rule}", _REFERENCE_RULE),
    user=_USER_REFERENCE,
    needs_reference=True,
)

_SIMPLE_SYSTEM = f"""\
You compare two answers to an open-ended question about an image, on five criteria:
{_CRITERIA_TEXT}

For each criterion choose A, B, or tie when neither answer is better on it. Look at the image
closely. The order of the answers and their length say nothing about quality. Give no
explanation: answer with exactly these five lines, putting A, B or tie in each pair of
brackets:
{_LINES}"""

FIVE_CRITERIA_SIMPLE = replace(
    FIVE_CRITERIA,
    name="chirp-five-criteria-simple",
    title="CHIRP five criteria (simple)",
    description="As the five-criteria judge, answering with the five choices alone, without "
    "reasoning first",
    system=_SIMPLE_SYSTEM,
    max_tokens=96,
    expected_completion_tokens=40,
)

JUDGE_TEMPLATES = (FIVE_CRITERIA, FIVE_CRITERIA_REFERENCE, FIVE_CRITERIA_SIMPLE)
