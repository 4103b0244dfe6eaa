"""VisIT-Bench (Bitton et al., 2023): importers for its instances and its human preferences."""

from workbench.plugins import Plugin
from workbench_visit_bench.benchmark import VisitBenchImporter
from workbench_visit_bench.judge_templates import JUDGE_TEMPLATES
from workbench_visit_bench.preferences import VisitBenchPreferencesImporter
from workbench_visit_bench.protocols import PROTOCOLS
from workbench_visit_bench.score_manifest import VISIT_BENCH_SCORES

__version__ = "0.1.0"

plugin = Plugin(
    name="visit_bench",
    version=__version__,
    description="VisIT-Bench: instances with captions and verified references; human preferences",
    importers=(VisitBenchImporter(), VisitBenchPreferencesImporter()),
    protocols=PROTOCOLS,
    judge_templates=JUDGE_TEMPLATES,
    scores=(VISIT_BENCH_SCORES,),
)
