"""Render docs/annotation.md's screenshots (the annotator's window, the coordinator's docked
monitor with its flags table, the adjudication dialog) at 1366x768, offscreen, from the demo
bundle with a campaign voted on as the pictures describe, and docs/importers/chirp.md's (the
Benchmark panel's CHIRP page on its median-Elo-per-question-category heatmap):

    python scripts/docs_screenshots.py [--out docs/images] [--size 1366x768]

The demo bundle is generated into a temporary folder; campaign ``eyes-1`` (arena-battle, two
votes per task) is created on it; annotator ``ana`` casts 5 votes and 1 skip and flags one
answer ("names_model") and one item ("broken_image"); annotator ``ben`` answers the same five
tasks, opposite to ``ana`` on two of them, so adjudication has disputes to show. Each picture is
then taken by the app's own ``--screenshot`` option in a fresh process (read-only: the
screenshot writes nothing). Run it from the project root with the project on PYTHONPATH.

CHIRP's human judgments are not published, so its picture is drawn from a survey made up here
in the canonical JSONL (source ``chirp``, three Robin models, one participant per matchup,
seeded choices whose favourite differs by question category; one category has too few
questions and shows as not rated). The ``--screenshot`` option renders the page's first tab, so
this picture is taken in a fresh process that opens the same window, selects the heatmap's tab
once the page is computed, and saves it the same way.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
from pathlib import Path

from workbench.demo import generate_demo_bundle
from workbench.domain.protocols import swap_sides
from workbench.services.campaigns import CampaignSpec, add_annotator, create_campaign
from workbench.services.importing import import_files
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


CHIRP_MODELS = ("robin-llava-7b", "robin-llava-13b", "robin-llava-34b")
#: questions per category, and how likely the survey's participant prefers the larger model of
#: a matchup there (the last category has too few questions to be rated)
CHIRP_CATEGORIES = {
    "Visual Reasoning": (6, 0.85),
    "Humor": (6, 0.2),
    "Poetry": (6, 0.55),
    "Counting": (2, 0.5),
}
#: how long the heatmap's page may take to compute and draw (a loaded machine takes a while)
PAGE_PATIENCE_S = 600.0


def prepare_chirp_bundle(path: Path) -> None:
    """Questions by category with the three models' answers and a survey of one participant
    per matchup, imported as canonical JSONL."""
    draw = random.Random(29)
    lines = []
    participant = 0
    for category, (questions, larger_wins) in CHIRP_CATEGORIES.items():
        for number in range(questions):
            question = f"{category.split()[0].lower()}-{number + 1}"
            judgments = []
            for small, large in ((0, 1), (1, 2), (0, 2)):
                participant += 1
                judgments.append(
                    {
                        "kind": "human",
                        "model_a": CHIRP_MODELS[small],
                        "model_b": CHIRP_MODELS[large],
                        "outcome": "b" if draw.random() < larger_wins else "a",
                        "criterion": "overall",
                        "rater": f"participant-{participant}",
                    }
                )
            lines.append(
                {
                    "format": "vlm-workbench/item",
                    "format_version": 1,
                    "source": "chirp",
                    "id": question,
                    "category": category,
                    "turns": [{"prompt": f"What could happen next in scene {question}?"}],
                    "outputs": [
                        {"model": model, "text": f"{model} describes scene {question}."}
                        for model in CHIRP_MODELS
                    ],
                    "judgments": judgments,
                }
            )
    source = path.parent / "chirp-survey.jsonl"
    source.write_text("".join(json.dumps(line) + "\n" for line in lines))
    import_files(path, [source], "jsonl")


def render_chirp_categories(bundle: Path, target: Path, size: str) -> None:
    """In this process (a fresh one): the main window on ``bundle``, the Benchmark panel's
    CHIRP page, its per-category heatmap's tab chosen, saved to ``target``."""
    from workbench_chirp.figures import category_heatmap_name

    from workbench.gui.app import _application, parse_size, render_window, wait_until_idle
    from workbench.gui.main_window import MainWindow

    _application()
    window = MainWindow(persist_layout=False, read_only=True)
    window.open_bundle(bundle)
    window.analysis.show_panel("benchmark")
    window.resize(*parse_size(size))
    window.show()
    if not wait_until_idle(window, PAGE_PATIENCE_S):
        raise SystemExit("the benchmark page was not computed in time")
    tabs = window.analysis.benchmark.tabs
    wanted = category_heatmap_name("human survey")
    found = [index for index in range(tabs.count()) if tabs.tabText(index) == wanted]
    if not found:
        names = [tabs.tabText(index) for index in range(tabs.count())]
        raise SystemExit(f"no tab {wanted!r} on the benchmark page: {names}")
    tabs.setCurrentIndex(found[0])
    if not wait_until_idle(window, PAGE_PATIENCE_S):
        raise SystemExit("the heatmap was not drawn in time")
    target.parent.mkdir(parents=True, exist_ok=True)
    render_window(window, target)
    window.close()


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


def render_chirp(folder: Path, out: Path, size: str) -> Path:
    bundle = folder / "chirp.wbb"
    prepare_chirp_bundle(bundle)
    target = out / "chirp-question-categories.png"
    environment = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    child = [sys.executable, __file__, "--chirp-page", str(bundle), str(target), size]
    subprocess.run(child, check=True, env=environment)
    return target


def main() -> None:
    if sys.argv[1:2] == ["--chirp-page"]:  # the child process of render_chirp
        bundle, target, size = sys.argv[2:5]
        render_chirp_categories(Path(bundle), Path(target), size)
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("docs/images"))
    parser.add_argument("--size", default="1366x768")
    parser.add_argument(
        "--only", choices=("annotation", "chirp"), help="render one document's pictures only"
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="workbench-docs-shots-") as folder:
        if args.only in (None, "annotation"):
            bundle = Path(folder) / "demo.wbb"
            prepare_bundle(bundle)
            for path in render(bundle, args.out, args.size):
                print(path)
        if args.only in (None, "chirp"):
            print(render_chirp(Path(folder), args.out, args.size))


if __name__ == "__main__":
    main()
