"""VisIT-Bench's scores as the plugin lists them; the pandas code runs only when they are
computed (:mod:`workbench_visit_bench.agreement`)."""

from workbench.stats.benchmark_scores import BenchmarkScores, loaded_on_call
from workbench_visit_bench.identity import SOURCE

VISIT_BENCH_SCORES = BenchmarkScores(
    name="visit-bench",
    source=SOURCE,
    description="VisIT-Bench: judge-human agreement by 5/5, 4/5, 3/5 majority; Elo; win rate "
    "vs the reference per family",
    compute=loaded_on_call("workbench_visit_bench.agreement", "score_tables"),
)
