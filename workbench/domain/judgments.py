"""Names every reader of judgments shares: where a judgment came from, what the side that was
the reference answer is called, and the conversation context judged unless one is named."""

from __future__ import annotations

from enum import StrEnum


class JudgmentOrigin(StrEnum):
    """Which store a judgment lives in: imported with a benchmark, cast in a campaign, given
    by a judge run, or settled by a coordinator's adjudication of a disputed campaign task."""

    IMPORTED = "imported"
    CAMPAIGN = "campaign"
    JUDGE_RUN = "judge-run"
    ADJUDICATION = "adjudication"


#: the name a pairwise judgment gives the side that was the reference answer, not a model
REFERENCE_SIDE = "reference"
#: the conversation context of a judgment that names none (ConvBench ablations name theirs)
STANDARD_CONTEXT = "standard"
#: the metadata key an importer sets on a judgment derived from other stored judgments (e.g.
#: WildVision-Bench's battles, derived from GPT-4o's verdicts; its value says what it is):
#: analyses leave such judgments out by default so the same evidence is not counted twice
DERIVED_KEY = "derived"
#: the metadata key of a judge verdict whose answer held no readable verdict, counted as its
#: template says (a tie); its value says why it could not be read
UNPARSED_KEY = "unparsed"
#: the judge model of every run made with the built-in simulated judge: its verdicts are drawn
#: at random, so analyses leave them out unless asked (``--include-simulated``)
SIMULATED_JUDGE_MODEL = "workbench-simulated-judge"


def selection_flags_text(
    include_derived: bool,
    multi_turn: bool,
    exclude_ties: bool,
    exclude_categories: tuple[str, ...],
    include_simulated: bool = False,
    exclude_flagged: bool = False,
) -> list[str]:
    """How a selection's switches read after its named values (``derived included``,
    ``multi-turn``...): one wording for the read model's filters and the analysis request."""
    parts = []
    if include_derived:
        parts.append("derived included")
    if include_simulated:
        parts.append("simulated judge included")
    if multi_turn:
        parts.append("multi-turn")
    if exclude_ties:
        parts.append("ties excluded")
    if exclude_categories:
        parts.append(f"category not {'|'.join(exclude_categories)}")
    if exclude_flagged:
        parts.append("flagged comparisons excluded")
    return parts
