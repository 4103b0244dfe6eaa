"""CHIRP's scores as the plugin lists them; the pandas code runs only when they are computed
(:mod:`workbench_chirp.scores`)."""

from workbench.stats.benchmark_scores import BenchmarkScores, loaded_on_call

#: the source name of CHIRP's questions in a bundle
SOURCE = "chirp"

CHIRP_SCORES = BenchmarkScores(
    name="chirp",
    source=SOURCE,
    description="CHIRP: Elo (median of 500 bootstrap rounds), kappa of each judge with the "
    "pooled human survey (Landis & Koch bands), preference cycles per evaluator",
    compute=loaded_on_call("workbench_chirp.scores", "score_tables"),
    # with --model-attributes FILE (a 'size' column): how often each prefers the larger model,
    # and the distance correlation of Elo with each attribute
    with_attributes=loaded_on_call("workbench_chirp.scores", "attribute_tables"),
    # the median Elo per model and criterion, one heatmap per evaluator
    figures=loaded_on_call("workbench_chirp.figures", "score_figures"),
)
