"""VisionArena's and WildVision-Bench's tables as the plugin lists them, one page per source;
the pandas code runs only when they are computed (:mod:`workbench_arena.scores`)."""

from workbench.stats.benchmark_scores import BenchmarkScores, loaded_on_call

_DESCRIPTION = (
    "the boards (overall, Multi-Turn, Exclude Ties, Exclude Refusal), both-bad share and "
    "battles per category, refusals, style control with rank change, and the benchmark's "
    "board against the arena's (Spearman, Kendall, Pearson, confidence agreement)"
)

WILDVISION_SCORES = BenchmarkScores(
    name="wildvision-bench",
    source="wildvision-bench",
    description=f"WildVision-Bench: verdict counts per model, {_DESCRIPTION}",
    compute=loaded_on_call("workbench_arena.scores", "score_tables"),
    from_boards=loaded_on_call("workbench_arena.scores", "board_tables"),
)

VISIONARENA_SCORES = BenchmarkScores(
    name="visionarena",
    source="arena",
    description=f"VisionArena and arena battles: verdict counts per model, {_DESCRIPTION}",
    compute=loaded_on_call("workbench_arena.scores", "score_tables"),
    from_boards=loaded_on_call("workbench_arena.scores", "board_tables"),
)
