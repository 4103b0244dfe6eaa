"""Time ``workbench report`` on the bundle of all shared data plus a 2,000-vote campaign and a
simulated judge run; report wall time and peak memory (goals: 20 s, 600 MB).

    python bench/report.py [--data DIR] [--keep DIR] [--bootstrap 100]

Setup (not timed): everything in the shared data (default: $VLM_WORKBENCH_SHARED_DATA or
../shared/data, as for the tests) is imported as the test suite's full_bundle
fixture imports it (tests/conftest.py SHARED_IMPORTS); then a campaign "bench-campaign" of four
annotators casts 2,000 votes, two on each of 1,000 pairs of WildVision-Bench answers on random
items with randomized sides, and a judge run "bench-judge" judges the same pairs in both orders
(2,000 verdicts), both drawn from a Bradley-Terry model over hidden strengths. The timed step is
``workbench report BUNDLE --out FILE`` in a child process (its wall time and its own peak RSS
from ``wait4``). With ``--keep DIR`` the bundle is kept (and reused when it is already there).
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(PROJECT))

from sqlalchemy import select  # noqa: E402

from tests.conftest import SHARED_DATA, SHARED_IMPORTS  # noqa: E402
from workbench.services.importing import import_files  # noqa: E402
from workbench.storage import Bundle  # noqa: E402
from workbench.storage.models import (  # noqa: E402
    Annotator,
    Campaign,
    Item,
    JudgeRun,
    JudgeVerdict,
    Model,
    Output,
    Source,
    Turn,
    Vote,
)

SOURCE = "wildvision-bench"
PAIRS, VOTES_PER_PAIR = 1_000, 2
ANNOTATORS = ("ann-1", "ann-2", "ann-3", "ann-4")
TARGET_SECONDS, TARGET_MB = 20.0, 600.0


def _outcome(rng: random.Random, strength_a: float, strength_b: float) -> str:
    if rng.random() < 0.1:
        return "tie"
    return "a" if rng.random() < strength_a / (strength_a + strength_b) else "b"


def add_campaign_and_judge(bundle_path: Path, seed: int = 0) -> None:
    rng = random.Random(seed)
    with Bundle.open(bundle_path) as bundle, bundle.session() as session:
        answered = session.execute(
            select(Item.id, Model.id, Model.name)
            .join(Source, Item.source_id == Source.id)
            .join(Turn, Turn.item_id == Item.id)
            .join(Output, Output.turn_id == Turn.id)
            .join(Model, Output.model_id == Model.id)
            .where(Source.name == SOURCE)
        ).all()
        by_item: dict[int, list[tuple[int, str]]] = {}
        for item, model, name in answered:
            by_item.setdefault(item, []).append((model, name))
        names = sorted({name for _, _, name in answered})
        strength = {name: rng.lognormvariate(0, 0.8) for name in names}
        campaign = Campaign(name="bench-campaign", protocol="pairwise", seed=seed)
        run = JudgeRun(
            name="bench-judge",
            template_name="pairwise",
            template_version="1",
            template_text="(simulated)",
            judge_model="simulated-judge",
            parameters={"temperature": 0.0, "max_tokens": 1024, "selection": {"swap": True}},
            status="finished",
        )
        annotators = [Annotator(handle=handle) for handle in ANNOTATORS]
        session.add_all([campaign, run, *annotators])
        session.flush()
        items = sorted(by_item)
        for index in range(PAIRS):
            item = rng.choice(items)
            (id_a, name_a), (id_b, name_b) = rng.sample(by_item[item], 2)
            if rng.random() < 0.5:  # the schedule's counterbalanced sides
                (id_a, name_a), (id_b, name_b) = (id_b, name_b), (id_a, name_a)
            for annotator in rng.sample(annotators, VOTES_PER_PAIR):
                session.add(
                    Vote(
                        uuid=uuid.uuid4().hex,
                        campaign_id=campaign.id,
                        annotator_id=annotator.id,
                        item_id=item,
                        turn_index=1,
                        model_a_id=id_a,
                        model_b_id=id_b,
                        choice=_outcome(rng, strength[name_a], strength[name_b]),
                    )
                )
            for order, (first, second) in enumerate(
                (((id_a, name_a), (id_b, name_b)), ((id_b, name_b), (id_a, name_a)))
            ):
                session.add(
                    JudgeVerdict(
                        run_id=run.id,
                        item_id=item,
                        turn_index=1,
                        model_a_id=first[0],
                        model_b_id=second[0],
                        outcome=_outcome(rng, strength[first[1]], strength[second[1]]),
                        position_flip=order == 1,
                        request_hash=f"bench-{index}-{order}",
                    )
                )
        session.flush()
        # rows added directly, not through the vote path or the judge runner: counted here
        from workbench.storage.judgment_counts import recount

        recount(session)


def build(data: Path, bundle: Path) -> None:
    for folder, format_name in SHARED_IMPORTS:
        import_files(bundle, [data / folder], format_name)
    add_campaign_and_judge(bundle)


def run_report(bundle: Path, out: Path, bootstrap: int) -> dict[str, float | int]:
    command = [
        sys.executable,
        "-c",
        "import sys; from workbench.cli import main; sys.exit(main(sys.argv[1:]))",
        "report",
        str(bundle),
        "--out",
        str(out),
        "--bootstrap",
        str(bootstrap),
    ]
    began = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - began
    return {
        "seconds": seconds,
        "peak_mb": usage.ru_maxrss / 1024,  # kilobytes on Linux
        "exit_code": os.waitstatus_to_exitcode(status),
        "cpu_seconds": usage.ru_utime + usage.ru_stime,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=SHARED_DATA)
    parser.add_argument("--keep", type=Path, help="keep (and reuse) the bundle in this folder")
    parser.add_argument("--bootstrap", type=int, default=100)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        folder = args.keep or Path(scratch)
        folder.mkdir(parents=True, exist_ok=True)
        bundle = folder / "all-plus-campaign.wbb"
        if not bundle.exists():
            began = time.perf_counter()
            build(args.data, bundle)
            print(
                f"setup (import all shared data, campaign, judge run): "
                f"{time.perf_counter() - began:.1f} s"
            )
        out = folder / "report.html"
        result = run_report(bundle, out, args.bootstrap)
        size_mb = out.stat().st_size / 1e6 if out.exists() else float("nan")
        print(f"{'step':<10}{'seconds':>9}{'cpu s':>8}{'peak MB':>9}{'file MB':>9}  target")
        print(
            f"{'report':<10}{result['seconds']:>9.1f}{result['cpu_seconds']:>8.1f}"
            f"{result['peak_mb']:>9.0f}{size_mb:>9.2f}  {TARGET_SECONDS:g} s, {TARGET_MB:g} MB"
        )
        met = (
            result["exit_code"] == 0
            and result["seconds"] <= TARGET_SECONDS
            and result["peak_mb"] <= TARGET_MB
        )
        print("targets met" if met else "targets NOT met")
        load = os.getloadavg()[0]
        if not met and result["cpu_seconds"] <= TARGET_SECONDS and load > (os.cpu_count() or 1):
            # the report runs on one core: on a machine this busy its wall time is mostly waiting
            print(
                f"(load average {load:.1f} on {os.cpu_count()} cores: the report's own CPU time "
                f"is {result['cpu_seconds']:.1f} s)"
            )
    return 0 if result["exit_code"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
