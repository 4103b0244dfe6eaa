"""What the analysis panels ask of a bundle: a leaderboard under the panel's switches, preference
graphs and cycles per item, failure cases, and human-vs-judge agreement. Qt-free; every number
comes from :mod:`workbench.stats`, and every call opens its own short read transaction so the GUI
can run it on a worker thread.

One module per analysis (:mod:`.leaderboards`, :mod:`.cycles`, :mod:`.contradiction_lists`,
:mod:`.benchmark_scores`, :mod:`.failures`, :mod:`.agreements`; :mod:`.choices` the panels'
switch values, :mod:`.common` what they share); the names the CLI, the panels, the report and
the plugins use are importable from here, so callers name the package, not a module."""

# matplotlib, networkx and scipy.stats are imported by the functions that use them: a CLI
# command such as ``workbench leaderboard`` then starts without loading them.

from workbench.services.analysis.agreements import AgreementResult as AgreementResult
from workbench.services.analysis.agreements import SideTables as SideTables
from workbench.services.analysis.agreements import agreement as agreement
from workbench.services.analysis.agreements import agreement_of_sides as agreement_of_sides
from workbench.services.analysis.agreements import human_judge_agreement as human_judge_agreement
from workbench.services.analysis.benchmark_scores import ScoresResult as ScoresResult
from workbench.services.analysis.benchmark_scores import (
    benchmarks_with_scores as benchmarks_with_scores,
)
from workbench.services.analysis.benchmark_scores import (
    read_model_attributes as read_model_attributes,
)
from workbench.services.analysis.benchmark_scores import score_provider as score_provider
from workbench.services.analysis.benchmark_scores import scores as scores
from workbench.services.analysis.benchmark_scores import scores_command as scores_command
from workbench.services.analysis.choices import CHOICE_COLUMNS as CHOICE_COLUMNS
from workbench.services.analysis.choices import AnalysisChoices as AnalysisChoices
from workbench.services.analysis.choices import analysis_choices as analysis_choices
from workbench.services.analysis.common import ALL_SOURCES as ALL_SOURCES
from workbench.services.analysis.common import HUMAN_SIDE as HUMAN_SIDE
from workbench.services.analysis.common import JUDGE_SIDE as JUDGE_SIDE
from workbench.services.analysis.common import MAX_CYCLE_LENGTH as MAX_CYCLE_LENGTH
from workbench.services.analysis.common import RATING_COLUMNS as RATING_COLUMNS
from workbench.services.analysis.common import SOURCE_FILTERS as SOURCE_FILTERS
from workbench.services.analysis.common import AnalysisError as AnalysisError
from workbench.services.analysis.contradiction_lists import (
    ContradictionsResult as ContradictionsResult,
)
from workbench.services.analysis.contradiction_lists import contradictions as contradictions
from workbench.services.analysis.cycles import EDGE_JUDGMENT_COLUMNS as EDGE_JUDGMENT_COLUMNS
from workbench.services.analysis.cycles import CycleRow as CycleRow
from workbench.services.analysis.cycles import category_graph as category_graph
from workbench.services.analysis.cycles import edge_judgments as edge_judgments
from workbench.services.analysis.cycles import item_graph as item_graph
from workbench.services.analysis.cycles import items_by_cycles as items_by_cycles
from workbench.services.analysis.failures import CYCLES as CYCLES
from workbench.services.analysis.failures import DISAGREEMENT as DISAGREEMENT
from workbench.services.analysis.failures import FAILURE_KINDS as FAILURE_KINDS
from workbench.services.analysis.failures import FAILURES_KIND_FLAG as FAILURES_KIND_FLAG
from workbench.services.analysis.failures import FILTERED_KINDS as FILTERED_KINDS
from workbench.services.analysis.failures import LOSES_TO_ALL as LOSES_TO_ALL
from workbench.services.analysis.failures import LOWEST_TURN_SCORE_ITEMS as LOWEST_TURN_SCORE_ITEMS
from workbench.services.analysis.failures import LOWEST_TURN_SCORES as LOWEST_TURN_SCORES
from workbench.services.analysis.failures import REFERENCE_FLAGGED as REFERENCE_FLAGGED
from workbench.services.analysis.failures import FailureCases as FailureCases
from workbench.services.analysis.failures import FailureRow as FailureRow
from workbench.services.analysis.failures import cycles_request as cycles_request
from workbench.services.analysis.failures import failure_cases as failure_cases
from workbench.services.analysis.leaderboards import LeaderboardRequest as LeaderboardRequest
from workbench.services.analysis.leaderboards import LeaderboardResult as LeaderboardResult
from workbench.services.analysis.leaderboards import default_anchor as default_anchor
from workbench.services.analysis.leaderboards import leaderboard as leaderboard
from workbench.services.analysis.leaderboards import resolved_request as resolved_request
from workbench.services.analysis_request import DEFAULT_BOOTSTRAP_ROUNDS as DEFAULT_BOOTSTRAP_ROUNDS
from workbench.services.judgment_activity import judgment_activity as judgment_activity
from workbench.storage.judgments import distinct_values as distinct_values
