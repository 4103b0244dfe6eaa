"""The names of the two scopes a preference cycle is looked for in, and the default bound on a
cycle's length: plain constants, so the command line can offer them without importing the
graph stack."""

from __future__ import annotations

#: the two scopes of a preference cycle, by their names on the command line and their labels in
#: the panels and the report. Per evaluator (CHIRP's contradiction, the default): one
#: evaluator's own judgments of one item form the cycle, so it measures that evaluator's
#: consistency. Pooled per item: every judgment of the item counts together, so three raters
#: who each ranked consistently can still form a cycle between them (a Condorcet cycle of the
#: majorities): a sign of disagreement rather than of an inconsistent evaluator.
PER_EVALUATOR, POOLED_PER_ITEM = "per-evaluator", "pooled-per-item"
CYCLE_SCOPES: dict[str, str] = {
    PER_EVALUATOR: "per evaluator",
    POOLED_PER_ITEM: "pooled per item",
}
DEFAULT_CYCLE_SCOPE = PER_EVALUATOR
#: cycles longer than this are not enumerated by default (a dense graph of many models holds
#: very many); the panels, ``workbench contradictions`` and the report share it
DEFAULT_MAX_CYCLE_LENGTH = 6
