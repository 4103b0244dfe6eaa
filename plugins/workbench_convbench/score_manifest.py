"""ConvBench's scores as the plugin lists them; the pandas code runs only when they are computed
(:mod:`workbench_convbench.scores`)."""

from workbench.stats.benchmark_scores import BenchmarkScores, loaded_on_call
from workbench_convbench.importer import SOURCE

CONVBENCH_SCORES = BenchmarkScores(
    name="convbench",
    source=SOURCE,
    description="ConvBench: S1, S2, S3, S0, R2, R1 per model and category, ablation deltas",
    compute=loaded_on_call("workbench_convbench.scores", "score_tables"),
    turn_scores=loaded_on_call("workbench_convbench.scores", "item_turn_scores"),
    # a judge's runs on the standard conversations and on an ablation pair up by these
    detail_columns=("template_name", "judge_model"),
    figures=loaded_on_call("workbench_convbench.figures", "score_figures"),
)
