"""The arena template over the real WildVision-Bench bundle: every model against the baseline,
and each request's text exactly the one GPT-4o was sent for the published judgments."""

from __future__ import annotations

import dataclasses
import gzip
import json
from pathlib import Path

import pytest
from workbench_arena.judge_templates import ANCHORED_FIVE_LEVEL

from workbench.services.judging.runner import JudgeSettings, RunSettingsError, plan_run
from workbench.services.judging.worklist import JudgeScope

pytestmark = pytest.mark.shared_data

BASELINE = "claude-3-sonnet-20240229"


def test_requests_reproduce_the_published_judge_prompts(
    full_bundle: Path, shared_data: Path
) -> None:
    folder = shared_data / "wildvision-bench"
    answered: dict[str, set[str]] = {}
    for path in sorted((folder / "model_answers").glob("*.jsonl.gz")):
        with gzip.open(path, "rt", encoding="utf-8") as handle:
            for line in handle:
                row = json.loads(line)
                answered.setdefault(row["model"], set()).add(row["question_id"])
    expected_comparisons = sum(
        len(questions & answered[BASELINE])
        for model, questions in answered.items()
        if model != BASELINE
    )

    settings = JudgeSettings(
        base_url="http://127.0.0.1:9/v1",
        judge_model="gpt-4o",
        template=ANCHORED_FIVE_LEVEL.name,
        selection=JudgeScope(items="wildvision-bench", anchor=BASELINE),
    )
    # the shared data holds no WildVision images: an image template refuses to go text-only
    # unless told, and then says so
    with pytest.raises(RunSettingsError, match="without any image"):
        plan_run(full_bundle, settings, template=ANCHORED_FIVE_LEVEL)
    settings = dataclasses.replace(settings, text_only=True)
    plan = plan_run(full_bundle, settings, template=ANCHORED_FIVE_LEVEL)
    assert plan.without_images == plan.missing_images == len(plan.pending)
    assert plan.comparisons == expected_comparisons
    assert plan.total_units == 2 * expected_comparisons  # both orders
    assert plan.skipped == {}

    ours = {
        (p.unit.case.external_id, p.unit.side_b): p.call.user
        for p in plan.pending
        if not p.unit.swapped
    }
    compared = 0
    for path in sorted((folder / "model_judgements").glob("*.jsonl.gz")):
        with gzip.open(path, "rt", encoding="utf-8") as handle:
            for line in handle:
                row = json.loads(line)
                for game in row["games"]:
                    prompt = game.get("user_prompt")
                    if not isinstance(prompt, list) or row["model"] == BASELINE:
                        continue  # one file keeps no prompts; the baseline against itself
                    (text,) = [part["text"] for part in prompt if part.get("type") == "text"]
                    assert ours[(row["question_id"], row["model"])] == text
                    compared += 1
    assert compared >= 0.9 * expected_comparisons
