"""VisIT-Bench's text-only pairwise judge (Bitton et al., 2023), reference-free and
reference-backed: the judge reads the instruction-conditioned caption instead of the image,
reasons, and ends with "Overall, Response X is better." When that sentence cannot be read, a
short follow-up asks for the judge's final choice; "Unknown" then counts as a tie (flagged).

The prompts are written for this project following the protocol's structure; the verdict
sentence is the benchmark's format and is kept exact.
"""

from __future__ import annotations

from dataclasses import replace

from workbench.judge.parsing import SentenceParser
from workbench.judge.templates import ExtractionStep, JudgeMode, JudgeTemplate
from workbench_visit_bench.benchmark import DENSE_CAPTION, HUMAN_VERIFIED

VERSION = "1"

_JUDGE_RULES = """\
You are an impartial judge of answers that AI assistants gave to instructions about images.
You cannot see the images. Instead you are given a detailed description of them, written for
this instruction: treat it as the truth about what the images show.

Read the instruction and the two responses. Think step by step about which response carries
out the instruction better: correct with respect to the description, helpful, and complete.
The order in which the responses appear says nothing about their quality, and neither does
their length. {reference_rule}Then end your answer with one final line, exactly in one of these
two forms:
Overall, Response A is better.
Overall, Response B is better."""

_REFERENCE_RULE = (
    "A verified correct answer is also given: use it to check the facts, but do not require "
    "the responses to word things the same way. "
)

_USER_FREE = """\
Description of the image(s):
{caption}

Instruction:
{instruction}

Response A:
{response_a}

Response B:
{response_b}"""

_USER_REFERENCE = """\
Description of the image(s):
{caption}

Instruction:
{instruction}

Verified correct answer:
{reference}

Response A:
{response_a}

Response B:
{response_b}"""

VERDICT_SENTENCE = SentenceParser(
    name="visit-bench-verdict-sentence",
    description='the last "Overall, Response A/B is better." sentence (case and markdown '
    "emphasis ignored)",
    pattern=r"Overall\s*,?\s*Response\s*\(?(?P<choice>[AB])\)?\s*is\s*(?:the\s*)?better",
    written_as="Overall, Response {choice} is better.",
)

EXTRACTED_CHOICE = SentenceParser(
    name="visit-bench-extracted-choice",
    description='the last standalone capital "A", "B" or "Unknown" in the follow-up answer; '
    '"Unknown" gives no verdict',
    pattern=r"\b(?P<choice>A|B|Unknown)\b",
    flags=0,
)

ANSWER_EXTRACTION = ExtractionStep(
    system="You read an evaluation written by another judge and report the decision it reached.",
    user="""\
Below is an evaluation that compares two responses, Response A and Response B.

---
{judgment}
---

Which response does the evaluation finally say is better? Reply with a single word: A, B, or
Unknown if the evaluation does not reach a decision.""",
    parse=EXTRACTED_CHOICE,
)


REFERENCE_FREE = JudgeTemplate(
    name="visit-bench-pairwise",
    title="VisIT-Bench pairwise (reference-free)",
    description="Text-only judge: caption, instruction and two responses; ends with "
    '"Overall, Response X is better."',
    system=_JUDGE_RULES.replace("{reference_rule}", ""),
    user=_USER_FREE,
    version=VERSION,
    parse=VERDICT_SENTENCE,
    mode=JudgeMode.PAIR,
    caption_kinds=(DENSE_CAPTION,),
    reference_kinds=(HUMAN_VERIFIED,),
    extraction=ANSWER_EXTRACTION,
    unparsed="tie",
    temperature=0.0,
    max_tokens=1024,
    expected_completion_tokens=350,
)

REFERENCE_BACKED = replace(
    REFERENCE_FREE,
    name="visit-bench-pairwise-reference",
    title="VisIT-Bench pairwise (reference-backed)",
    description="As the reference-free judge, with the human-verified reference shown as a "
    "correct example",
    system=_JUDGE_RULES.replace("{reference_rule}", _REFERENCE_RULE),
    user=_USER_REFERENCE,
    needs_reference=True,
)

JUDGE_TEMPLATES = (REFERENCE_FREE, REFERENCE_BACKED)
