"""The judge's Estimate (plan_run) reports its steps and stops at the next one when cancelled;
planning only reads, so a cancelled estimate leaves the bundle as it was."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from workbench_visit_bench.judge_templates import REFERENCE_FREE

from tests.judge.helpers import build_bundle
from workbench.progress import WorkCancelledError
from workbench.services.judging import runner, worklist
from workbench.services.judging.runner import JudgeSettings, plan_run
from workbench.services.judging.worklist import JudgeScope

SETTINGS = JudgeSettings(
    base_url="", judge_model="gpt-4o-mini", template=REFERENCE_FREE.name, selection=JudgeScope()
)


@pytest.fixture
def bundle(tmp_path: Path) -> Path:
    return build_bundle(tmp_path, 12, models=("m-a", "m-b"))


def judge_rows(path: Path) -> tuple[int, int]:
    connection = sqlite3.connect(path)
    try:
        return tuple(
            connection.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
            for table in ("judge_runs", "response_cache")
        )
    finally:
        connection.close()


def test_an_estimate_reports_its_steps_and_plans_the_same(
    bundle: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(runner, "UNITS_PER_STEP", 5)
    monkeypatch.setattr(worklist, "COMPARISONS_PER_STEP", 5)
    seen: list[tuple[str, int, int]] = []
    plan = plan_run(
        bundle,
        SETTINGS,
        template=REFERENCE_FREE,
        progress=lambda *step: seen.append(step),
        cancel_requested=lambda: False,
    )
    plain = plan_run(bundle, SETTINGS, template=REFERENCE_FREE)
    assert plan.estimate == plain.estimate and len(plan.pending) == len(plain.pending) == 24
    # 12 comparisons, checked then built (24 steps); each judged in both orders (24 requests)
    assert seen == [
        ("work list", 0, 0),
        *(("work list", done, 24) for done in (0, 5, 10, 12, 17, 22)),
        *(("requests", done, 24) for done in range(0, 24, 5)),
        ("cache", 0, 0),
        ("cache", 0, 24),
        ("images", 0, 0),
        # 24 planned, then 24 distinct requests counted
        *(("costs", done, 48) for done in (0, 5, 10, 15, 20)),
        *(("costs", 24 + done, 48) for done in (0, 5, 10, 15, 20)),
    ]


@pytest.mark.parametrize(
    "stop_at",
    [("work list", 5, 24), ("work list", 17, 24), ("requests", 10, 24), ("costs", 29, 48)],
    ids=["checking comparisons", "building the work list", "building requests", "costs"],
)
def test_a_cancelled_estimate_stops_mid_way_and_changes_nothing(
    bundle: Path, monkeypatch: pytest.MonkeyPatch, stop_at: tuple[str, int, int]
) -> None:
    monkeypatch.setattr(runner, "UNITS_PER_STEP", 5)
    monkeypatch.setattr(worklist, "COMPARISONS_PER_STEP", 5)
    before = judge_rows(bundle), bundle.read_bytes()
    seen: list[tuple[str, int, int]] = []

    def cancel_requested() -> bool:
        return seen[-1:] == [stop_at]

    with pytest.raises(WorkCancelledError, match="estimate cancelled"):
        plan_run(
            bundle,
            SETTINGS,
            template=REFERENCE_FREE,
            progress=lambda *step: seen.append(step),
            cancel_requested=cancel_requested,
        )
    assert seen[-1] == stop_at
    assert (judge_rows(bundle), bundle.read_bytes()) == before
