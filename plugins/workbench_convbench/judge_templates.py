"""ConvBench's judge ("ConvEval", Liu et al., 2024) on whole three-turn conversations, reading
the instruction-conditioned caption instead of the image:

- pairwise: the model's answers against the reference answers, anonymised as Assistant A and B
  with the sides fixed per conversation by the benchmark (``pairwise_model_side``); a forced
  choice per turn, no ties; then the overall choice S0 in a second request fed the three
  turns' judgments J1..J3. The score is the model's win rate against the reference;
- direct: the model's answers beside the references, graded 0-10 per turn; then the overall
  grade S0 in a second request fed the three turns' judgments J1..J3.

Both ask S0 as ConvEval does, with the turns' judgments in hand
(:class:`~workbench.judge.templates.OverallPass`).

The prompts are written for this project following the protocol's structure.
"""

from __future__ import annotations

from workbench.judge.parsing import FieldParser, LabelledField
from workbench.judge.templates import ExtractionStep, JudgeMode, JudgeTemplate, OverallPass
from workbench_convbench.pairwise import PAIRWISE_SIDE_KEY

#: 2: an extraction step asks the judge to restate the verdict lines it did not write;
#: 3: the overall choice S0 in a request of its own, fed the turns' judgments
VERSION = "3"
#: 3: the overall grade S0 in a request of its own, fed the turns' judgments
DIRECT_VERSION = "3"
CAPTION_KIND = "instruction-conditioned"

_CONTEXT = """\
The conversation is about an image you cannot see; a detailed description of it is given
instead. Its turns build on each other: the first tests perception (what is in the image), the
second reasoning about it, the third creation (writing something new from it); the focus
points say what a good answer to a turn must cover."""

PAIRWISE_SYSTEM = f"""\
You compare two assistants' answers to the same multi-turn conversation, one turn at a time.
{_CONTEXT}

For each turn, decide which assistant answered it better: correct with respect to the
description, doing what the instruction asks, and covering the focus points. Ties are not
allowed: always choose A or B. The order of the assistants and the length of their answers say
nothing about quality. The conversations as a whole are compared later, from your judgments of
the turns.

For each turn in order, write its judgment and then your choice, in exactly this form:
Turn 1 judgment: (why one assistant answered turn 1 better)
Turn 1: [[A]]
Turn 2 judgment: ...
Turn 2: [[B]]
Turn 3 judgment: ...
Turn 3: [[A]]
(with your own choices in the brackets)."""

PAIRWISE_USER = """\
Description of the image:
{caption}

Focus points:
{focus_points}

=== Assistant A ===
{transcript_a}

=== Assistant B ===
{transcript_b}"""

DIRECT_SYSTEM = f"""\
You grade an assistant's answers in a multi-turn conversation, one turn at a time.
{_CONTEXT}

Each turn shows the instruction, a reference answer written by a person, and the assistant's
answer. Grade each turn from 0 (wrong or useless) to 10 (at least as good as the reference):
is it correct with respect to the description, does it do what the instruction asks, does it
cover the focus points? The conversation as a whole is graded later, from your judgments of
the turns.

For each turn in order, write its judgment and then its grade, in exactly this form:
Turn 1 judgment: (why the answer to turn 1 deserves its grade)
Turn 1 score: [[7]]
Turn 2 judgment: ...
Turn 2 score: [[5]]
Turn 3 judgment: ...
Turn 3 score: [[8]]
(with your own grades, whole numbers from 0 to 10)."""

DIRECT_USER = """\
Description of the image:
{caption}

Focus points:
{focus_points}

{graded_transcript}"""

PAIRWISE_CHOICES = FieldParser(
    name="convbench-turn-choices",
    description='"Turn N: [[A|B]]" per turn and "Overall: [[A|B]]"; no ties',
    fields=(LabelledField("Overall"),),
    kind="choice",
    allow_tie=False,
    turn_fields=True,
)

OVERALL_CHOICE = FieldParser(
    name="convbench-overall-choice",
    description='"Overall: [[A|B]]"; no ties',
    fields=(LabelledField("Overall"),),
    kind="choice",
    allow_tie=False,
)

DIRECT_SCORES = FieldParser(
    name="convbench-turn-scores",
    description='"Turn N score: [[0-10]]" per turn and "Overall score: [[0-10]]"',
    fields=(LabelledField("Overall"),),
    kind="score",
    scale=(0.0, 10.0),
    turn_fields=True,
)

OVERALL_SCORE = FieldParser(
    name="convbench-overall-score",
    description='"Overall score: [[0-10]]"',
    fields=(LabelledField("Overall"),),
    kind="score",
    scale=(0.0, 10.0),
)

_EXTRACTION_SYSTEM = (
    "You read an evaluation of an assistant's answers to a three-turn conversation and report "
    "the decisions it reached, nothing else."
)

PAIRWISE_EXTRACTION = ExtractionStep(
    system=_EXTRACTION_SYSTEM,
    user="""\
---
{judgment}
---
Report the decisions of the evaluation above in exactly this form, with A or B in each pair of
brackets, and [[unknown]] where it reached no decision:
Turn 1: [[ ]]
Turn 2: [[ ]]
Turn 3: [[ ]]""",
    parse=PAIRWISE_CHOICES,
    max_tokens=48,
)

DIRECT_EXTRACTION = ExtractionStep(
    system=_EXTRACTION_SYSTEM,
    user="""\
---
{judgment}
---
Report the grades of the evaluation above in exactly this form, a whole number from 0 to 10
in each pair of brackets, and [[unknown]] where it gave none:
Turn 1 score: [[ ]]
Turn 2 score: [[ ]]
Turn 3 score: [[ ]]""",
    parse=DIRECT_SCORES,
    max_tokens=48,
)

OVERALL_SYSTEM = f"""\
You grade an assistant's whole multi-turn conversation.
{_CONTEXT}

You are shown the conversation (each turn's instruction, a reference answer written by a
person, and the assistant's answer) and the judgments already made of each of its turns.
Taking those judgments into account, and how well the answers hold together across the turns,
grade the conversation as a whole from 0 (useless) to 10 (at least as good as the reference
conversation).

Explain your grade briefly, then end with exactly this line:
Overall score: [[6]]
(with your own grade, a whole number from 0 to 10)."""

OVERALL_USER = """\
Description of the image:
{caption}

Focus points:
{focus_points}

{graded_transcript}

Judgments of the turns:
{turn_judgments}"""

OVERALL_EXTRACTION = ExtractionStep(
    system=_EXTRACTION_SYSTEM,
    user="""\
---
{judgment}
---
Report the overall grade of the evaluation above in exactly this form, a whole number from 0
to 10 in the brackets, or [[unknown]] if it gave none:
Overall score: [[ ]]""",
    parse=OVERALL_SCORE,
    max_tokens=16,
)

#: ConvEval's second step: the conversation's overall score S0, given the turns' judgments
DIRECT_OVERALL_PASS = OverallPass(
    system=OVERALL_SYSTEM,
    user=OVERALL_USER,
    parse=OVERALL_SCORE,
    extraction=OVERALL_EXTRACTION,
    max_tokens=512,
    expected_completion_tokens=200,
)

PAIRWISE_OVERALL_SYSTEM = f"""\
You compare two assistants' whole multi-turn conversations.
{_CONTEXT}

You are shown both assistants' conversations and the judgments already made of each of their
turns. Taking those judgments into account, and how well each assistant's answers hold
together across the turns, decide which assistant's conversation is better as a whole. Ties
are not allowed: always choose A or B. The order of the assistants and the length of their
answers say nothing about quality.

Explain your decision briefly, then end with exactly this line:
Overall: [[A]]
(with your own choice in the brackets)."""

PAIRWISE_OVERALL_USER = (
    PAIRWISE_USER
    + """

Judgments of the turns:
{turn_judgments}"""
)

PAIRWISE_OVERALL_EXTRACTION = ExtractionStep(
    system=_EXTRACTION_SYSTEM,
    user="""\
---
{judgment}
---
Report the overall decision of the evaluation above in exactly this form, A or B in the
brackets, or [[unknown]] if it reached none:
Overall: [[ ]]""",
    parse=OVERALL_CHOICE,
    max_tokens=16,
)

#: ConvEval's second step for pairwise grading: which conversation is better as a whole (S0),
#: given the turns' judgments; the sides are the first request's
PAIRWISE_OVERALL_PASS = OverallPass(
    system=PAIRWISE_OVERALL_SYSTEM,
    user=PAIRWISE_OVERALL_USER,
    parse=OVERALL_CHOICE,
    extraction=PAIRWISE_OVERALL_EXTRACTION,
    max_tokens=512,
    expected_completion_tokens=200,
)

PAIRWISE = JudgeTemplate(
    name="convbench-pairwise",
    version=VERSION,
    title="ConvBench pairwise against the reference",
    description="The model's conversation against the reference conversation, sides fixed by "
    "pairwise.npy; a forced choice per turn, then the overall choice S0 in a second request "
    "fed the turns' judgments",
    system=PAIRWISE_SYSTEM,
    user=PAIRWISE_USER,
    parse=PAIRWISE_CHOICES,
    mode=JudgeMode.PAIR,
    turn_verdicts=True,
    reference_as_response=True,
    fixed_side_key=PAIRWISE_SIDE_KEY,
    caption_kinds=(CAPTION_KIND,),
    extraction=PAIRWISE_EXTRACTION,
    overall_pass=PAIRWISE_OVERALL_PASS,
    unparsed="missing",
    max_tokens=1024,
    expected_completion_tokens=400,
)

DIRECT = JudgeTemplate(
    name="convbench-direct",
    version=DIRECT_VERSION,
    title="ConvBench direct grading (0-10)",
    description="The model's answers beside the references; a 0-10 grade per turn (S1..S3), "
    "then the overall grade S0 in a second request fed the turns' judgments",
    system=DIRECT_SYSTEM,
    user=DIRECT_USER,
    parse=DIRECT_SCORES,
    mode=JudgeMode.SINGLE,
    turn_verdicts=True,
    caption_kinds=(CAPTION_KIND,),
    needs_reference=True,
    extraction=DIRECT_EXTRACTION,
    overall_pass=DIRECT_OVERALL_PASS,
    unparsed="missing",
    max_tokens=1024,
    expected_completion_tokens=400,
)

JUDGE_TEMPLATES = (PAIRWISE, DIRECT)
