"""Arena-style pairwise benchmarks: WildVision-Bench's release folder, FastChat / VisionArena
battle files and Hugging Face arena datasets, Arena-Hard-Auto's judgments, plus the five-level
verdict labels (``A>>B`` .. ``B>>A``) their judges write."""

from workbench.plugins import LazyImporter, Plugin
from workbench_arena.judge_templates import JUDGE_TEMPLATES
from workbench_arena.protocols import PROTOCOLS
from workbench_arena.score_manifest import VISIONARENA_SCORES, WILDVISION_SCORES

__version__ = "0.1.0"

plugin = Plugin(
    name="arena",
    version=__version__,
    description="WildVision-Bench, Chatbot Arena / VisionArena battles and Arena-Hard-Auto",
    api_version=1,
    # named, not imported: the battles reader brings pyarrow, which a judge run never needs
    importers=(
        LazyImporter(
            "wildvision-bench",
            "1",
            "WildVision-Bench release folder, data/ folder or clone: answers, GPT-4o judgments, "
            "battles",
            "workbench_arena.wildvision:WildVisionBenchImporter",
        ),
        LazyImporter(
            "arena-battles",
            "2",
            "FastChat / VisionArena battles (JSON list or JSONL) and Hugging Face arena datasets "
            "(parquet, Arrow, dataset folders): votes, conversations, images",
            "workbench_arena.battles:ArenaBattlesImporter",
        ),
        LazyImporter(
            "arena-hard",
            "1",
            "Arena-Hard-Auto: question.jsonl, model answers, judge games in both orders",
            "workbench_arena.arena_hard:ArenaHardImporter",
        ),
    ),
    protocols=PROTOCOLS,
    judge_templates=JUDGE_TEMPLATES,
    scores=(WILDVISION_SCORES, VISIONARENA_SCORES),
)
