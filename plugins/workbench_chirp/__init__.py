"""CHIRP: five-criteria pairwise judging of long-form answers (its annotation protocol)."""

from workbench import __version__
from workbench.plugins import Plugin
from workbench_chirp.judge_templates import JUDGE_TEMPLATES
from workbench_chirp.protocols import PROTOCOLS
from workbench_chirp.score_manifest import CHIRP_SCORES

plugin = Plugin(
    name="chirp",
    version=__version__,
    description="CHIRP: pairwise judging on five criteria",
    protocols=PROTOCOLS,
    judge_templates=JUDGE_TEMPLATES,
    scores=(CHIRP_SCORES,),
)
