"""Render docs/annotation.md's screenshots (the annotator's window, the coordinator's docked
monitor with its flags table, the adjudication dialog) at 1366x768, offscreen, from the demo
bundle with a campaign voted on as the pictures describe:

    python scripts/docs_screenshots.py [--out docs/images] [--size 1366x768]

The demo bundle is generated into a temporary folder; campaign ``eyes-1`` (arena-battle, two
votes per task) is created on it; annotator ``ana`` casts 5 votes and 1 skip and flags one
answer ("names_model") and one item ("broken_image"); annotator ``ben`` answers the same five
tasks, opposite to ``ana`` on two of them, so adjudication has disputes to show. Each picture is
then taken by the app's own ``--screenshot`` option in a fresh process (read-only: the
screenshot writes nothing). Run it from the project root with the project on PYTHONPATH.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from workbench.demo import generate_demo_bundle
from workbench.domain.protocols import swap_sides
from workbench.services.campaigns import CampaignSpec, add_annotator, create_campaign
from workbench.services.voting import AnnotationSession
from workbench.storage import Bundle

CAMPAIGN = "eyes-1"
ANNOTATORS = ("ana", "ben")
VOTES = 5
SKIP_REASON = "the chart's labels are unreadable"
# ana's answers in scheduled terms ("a": the scheduled left model); ben differs on the 2nd and 4th
ANA_ANSWERS = ("a", "b", "a", "a", "b")
DISPUTED = (1, 3)


def _as_shown(session: AnnotationSession, answer: str) -> str:
    """The answer in the order the session shows the task, as the annotator's key gives it."""
    shown = session._shown
    assert shown is not None
    return str(swap_sides(answer)) if shown.swapped else answer


def prepare_bundle(path: Path) -> None:
    generate_demo_bundle(path)
    with Bundle.open(path) as bundle:
        for handle in ANNOTATORS:
            add_annotator(bundle, handle)
        create_campaign(
            bundle, CampaignSpec(CAMPAIGN, "arena-battle", seed=1, votes_per_pair=2), None
        )
        ana = AnnotationSession(bundle, CAMPAIGN, "ana")
        for number, answer in enumerate(ANA_ANSWERS):
            task = ana.next_task()
            assert task is not None
            if number == 0:
                ana.flag(task.token, "names_model", response=1, note="says it is Idefics")
            if number == 2:
                ana.flag(task.token, "broken_image", note="second image is black")
            ana.cast(task.token, _as_shown(ana, answer))
        task = ana.next_task()
        assert task is not None
        ana.skip(task.token, SKIP_REASON)
        ben = AnnotationSession(bundle, CAMPAIGN, "ben")
        for number, answer in enumerate(ANA_ANSWERS):
            task = ben.next_task()
            assert task is not None
            mine = str(swap_sides(answer)) if number in DISPUTED else answer
            ben.cast(task.token, _as_shown(ben, mine))


def _workbench(*arguments: str) -> None:
    environment = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    command = [sys.executable, "-c", "import sys; from workbench.cli import main; sys.exit(main())"]
    subprocess.run([*command, *arguments], check=True, env=environment)


def render(bundle: Path, out: Path, size: str) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    pictures = {
        "annotator-window.png": ["annotate", str(bundle), "--campaign", CAMPAIGN],
        "campaign-monitor.png": ["open", str(bundle), "--page", "monitor", "--campaign", CAMPAIGN],
        "adjudication.png": ["open", str(bundle), "--page", "adjudicate", "--campaign", CAMPAIGN],
    }
    written = []
    for name, arguments in pictures.items():
        target = out / name
        extra = ["--annotator", "ana"] if arguments[0] == "annotate" else []
        _workbench(*arguments, *extra, "--screenshot", str(target), "--size", size)
        written.append(target)
    return written


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("docs/images"))
    parser.add_argument("--size", default="1366x768")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="workbench-docs-shots-") as folder:
        bundle = Path(folder) / "demo.wbb"
        prepare_bundle(bundle)
        for path in render(bundle, args.out, args.size):
            print(path)


if __name__ == "__main__":
    main()
