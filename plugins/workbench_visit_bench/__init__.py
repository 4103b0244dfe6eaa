"""VisIT-Bench (Bitton et al., 2023): importers for its instances and its human preferences."""

from workbench.plugins import LazyImporter, Plugin
from workbench_visit_bench.judge_templates import JUDGE_TEMPLATES
from workbench_visit_bench.protocols import PROTOCOLS
from workbench_visit_bench.score_manifest import VISIT_BENCH_SCORES

__version__ = "0.1.0"

plugin = Plugin(
    name="visit_bench",
    version=__version__,
    description="VisIT-Bench: instances with captions and verified references; human preferences",
    api_version=1,
    importers=(
        LazyImporter(
            "visit-bench",
            "1",
            "VisIT-Bench instances (multi-image and single-image CSVs, images/ beside them)",
            "workbench_visit_bench.benchmark:VisitBenchImporter",
        ),
        LazyImporter(
            "visit-bench-preferences",
            "1",
            "VisIT-Bench human preference CSV (A/B answers, one column per rater)",
            "workbench_visit_bench.preferences:VisitBenchPreferencesImporter",
        ),
    ),
    protocols=PROTOCOLS,
    judge_templates=JUDGE_TEMPLATES,
    scores=(VISIT_BENCH_SCORES,),
)
