"""CHIRP: five-criteria pairwise judging of long-form answers (its annotation protocol), its
questions and answers in the Robin suite's layout, and its agreement and consistency tables."""

from workbench import __version__
from workbench.plugins import LazyImporter, Plugin
from workbench_chirp.judge_templates import JUDGE_TEMPLATES
from workbench_chirp.protocols import PROTOCOLS
from workbench_chirp.score_manifest import CHIRP_SCORES

plugin = Plugin(
    name="chirp",
    version=__version__,
    description="CHIRP: pairwise judging on five criteria",
    api_version=1,
    importers=(
        LazyImporter(
            "chirp-robin",
            "1",
            "CHIRP questions (.json list) and answers (.jsonl) in the Robin suite's layout",
            "workbench_chirp.robin:RobinChirpImporter",
        ),
    ),
    protocols=PROTOCOLS,
    judge_templates=JUDGE_TEMPLATES,
    scores=(CHIRP_SCORES,),
)
