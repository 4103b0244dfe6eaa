"""Names every reader of judgments shares: where a judgment came from, what the side that was
the reference answer is called, and the conversation context judged unless one is named."""

from __future__ import annotations

from dataclasses import dataclass, fields
from enum import StrEnum
from typing import Any


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


@dataclass(frozen=True)
class JudgmentSelection:
    """Which judgments a question reads, declared once for the read model's filter and the
    analysis request (both extend it). The named sides and item dimensions: an empty tuple
    keeps every value, several values keep any of them, and the dimensions combine with AND.
    The switches: ``include_derived`` counts an importer's judgments derived from verdicts it
    also stored; VisionArena's boards keep only conversations of more than one user turn
    (``multi_turn``, "Multi-Turn"), no tie or both-bad outcome (``exclude_ties``, "Exclude
    Ties") and no item in ``exclude_categories`` ("Exclude Refusal" where the source tags
    refusals as a category); ``include_simulated`` counts the simulated judge's verdicts
    (drawn at random: :data:`SIMULATED_JUDGE_MODEL`); ``exclude_flagged`` leaves out the
    judgments on a flagged comparison (an item flagged as a whole, or an item on which one of
    the two sides' answers is flagged)."""

    sources: tuple[str, ...] = ()
    campaigns: tuple[str, ...] = ()
    annotators: tuple[str, ...] = ()
    judge_runs: tuple[str, ...] = ()
    raters: tuple[str, ...] = ()
    origins: tuple[str, ...] = ()
    categories: tuple[str, ...] = ()
    families: tuple[str, ...] = ()
    languages: tuple[str, ...] = ()
    turns: tuple[int, ...] = ()
    criteria: tuple[str, ...] = ()
    include_derived: bool = False
    multi_turn: bool = False
    exclude_ties: bool = False
    exclude_categories: tuple[str, ...] = ()
    include_simulated: bool = False
    exclude_flagged: bool = False

    def selection(self) -> dict[str, Any]:
        """The fields of the selection by name (what a filter or a request built from this one
        takes), each sequence as a tuple."""
        return {
            spec.name: tuple(value) if isinstance(value, list | tuple) else value
            for spec in fields(JudgmentSelection)
            for value in (getattr(self, spec.name),)
        }

    def switches_text(self) -> list[str]:
        """How the switches read after the named values (``derived included``,
        ``multi-turn``...): one wording for the read model's filters and the analysis
        request."""
        parts = []
        if self.include_derived:
            parts.append("derived included")
        if self.include_simulated:
            parts.append("simulated judge included")
        if self.multi_turn:
            parts.append("multi-turn")
        if self.exclude_ties:
            parts.append("ties excluded")
        if self.exclude_categories:
            parts.append(f"category not {'|'.join(self.exclude_categories)}")
        if self.exclude_flagged:
            parts.append("flagged comparisons excluded")
        return parts
