"""Arena-style pairwise benchmarks: WildVision-Bench's release folder, FastChat / VisionArena
battle files and Hugging Face arena datasets, Arena-Hard-Auto's judgments, plus the five-level
verdict labels (``A>>B`` .. ``B>>A``) their judges write."""

from workbench.plugins import Plugin
from workbench_arena.arena_hard import ArenaHardImporter
from workbench_arena.battles import ArenaBattlesImporter
from workbench_arena.judge_templates import JUDGE_TEMPLATES
from workbench_arena.protocols import PROTOCOLS
from workbench_arena.wildvision import WildVisionBenchImporter

__version__ = "0.1.0"

plugin = Plugin(
    name="arena",
    version=__version__,
    description="WildVision-Bench, Chatbot Arena / VisionArena battles and Arena-Hard-Auto",
    importers=(WildVisionBenchImporter(), ArenaBattlesImporter(), ArenaHardImporter()),
    protocols=PROTOCOLS,
    judge_templates=JUDGE_TEMPLATES,
)
