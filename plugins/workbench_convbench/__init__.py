"""ConvBench (Liu et al., 2024), a three-turn conversation benchmark: its importer, and what
else the app needs to know about it."""

from workbench.plugins import LazyImporter, Plugin
from workbench_convbench.judge_templates import JUDGE_TEMPLATES
from workbench_convbench.protocols import PROTOCOLS
from workbench_convbench.score_manifest import CONVBENCH_SCORES

__version__ = "0.1.0"

plugin = Plugin(
    name="convbench",
    version=__version__,
    description="ConvBench: three-turn conversations (perception, reasoning, creation)",
    api_version=1,
    importers=(
        LazyImporter(
            "convbench",
            "1",
            "ConvBench: ConvBench.xlsx with images/ and pairwise.npy beside it",
            "workbench_convbench.importer:ConvBenchImporter",
        ),
    ),
    protocols=PROTOCOLS,
    judge_templates=JUDGE_TEMPLATES,
    scores=(CONVBENCH_SCORES,),
)
