"""The WildVision-Bench / VisionArena-Bench judge: a vision judge sees the image, the user's
request and two answers (one of them a fixed anchor model's), writes its own answer first, and
ends with one of five labels, ``[[A>>B]]`` .. ``[[B>>A]]``. Run it with ``--anchor`` to compare
every model with the anchor, in both orders.

The prompt is written for this project following the protocol; the labels and the answer
block markers are the benchmark's format and are kept exact. Labels are read with
:mod:`workbench_arena.verdicts` (Arena-Hard's rule: two different labels give no verdict).
"""

from __future__ import annotations

from collections.abc import Sequence

from workbench.domain import Outcome
from workbench.judge.parsing import CallbackParser, ParsedVerdict, ParseResult
from workbench.judge.templates import JudgeMode, JudgeTemplate
from workbench_arena.verdicts import labels_in_text, verdict_from_text

VERSION = "1"

SYSTEM = """\
You compare how well two AI assistants answered a user's request about an image.

First write your own answer to the request, looking closely at the image. Then examine each
assistant's answer next to yours and next to the image: point out mistakes and details that
are not in the image, say whether the answer does what the user asked (asking for clarification
is better than guessing when the request is ambiguous), stays on topic and is clear without
padding, and note anything important it leaves out. Judge what the answers say, not the order
in which they are shown or how long they are.

Finish with your verdict, using exactly one of these labels:
Assistant A is much better: [[A>>B]]
Assistant A is slightly better: [[A>B]]
The two are about equally good: [[A=B]]
Assistant B is slightly better: [[B>A]]
Assistant B is much better: [[B>>A]]
For example: My final verdict is: [[A=B]]"""

USER = """\
<|User Prompt|>
{instruction}

<|The Start of Assistant A's Answer|>
{response_a}
<|The End of Assistant A's Answer|>

<|The Start of Assistant B's Answer|>
{response_b}
<|The End of Assistant B's Answer|>"""


def read_five_level(text: str) -> ParseResult:
    """The verdict label a judge's answer ends with, by Arena-Hard's rule."""
    verdict = verdict_from_text(text)
    if verdict is not None:
        return ParseResult(
            (
                ParsedVerdict(
                    outcome=verdict.outcome, strength=verdict.strength, label=verdict.label
                ),
            )
        )
    found = labels_in_text(text)
    if not found:
        problem = "no [[...]] verdict label" if (text or "").strip() else "empty answer"
    elif len(set(found)) > 1:
        problem = "different verdict labels: " + ", ".join(sorted(set(found)))
    else:
        problem = f"[[{found[-1]}]] is not one of the five verdict labels"
    return ParseResult(problems=(problem,))


def write_five_level(verdicts: Sequence[ParsedVerdict]) -> str | None:
    """The closing line of an answer :func:`read_five_level` reads as the first verdict."""
    if not verdicts or verdicts[0].outcome is None:
        return None
    verdict = verdicts[0]
    if verdict.outcome is Outcome.TIE:
        label = "A=B"
    else:
        winner, loser = ("A", "B") if verdict.outcome is Outcome.A else ("B", "A")
        label = f"{winner}{'>>' if verdict.strength >= 2 else '>'}{loser}"
    return f"My final verdict is: [[{label}]]"


FIVE_LEVEL = CallbackParser(
    name="arena-five-level-label",
    description="the [[A>>B]] .. [[B>>A]] label in the answer; none, or two different ones, "
    "give no verdict (Arena-Hard's rule); >> is stored with strength 2",
    function=read_five_level,
    writer=write_five_level,
)

ANCHORED_FIVE_LEVEL = JudgeTemplate(
    name="arena-five-level",
    version=VERSION,
    title="WildVision / VisionArena five-level verdict",
    description="Vision judge: image, request, two answers (use --anchor for the anchor "
    "model); verdict [[A>>B]] .. [[B>>A]]",
    system=SYSTEM,
    user=USER,
    parse=FIVE_LEVEL,
    mode=JudgeMode.PAIR,
    send_images=True,
    max_image_side=1024,
    unparsed="missing",
    temperature=0.0,
    max_tokens=2048,
    expected_completion_tokens=700,
)

JUDGE_TEMPLATES = (ANCHORED_FIVE_LEVEL,)
