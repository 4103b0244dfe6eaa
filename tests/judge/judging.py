"""Running judge jobs in tests: plan and run with a template, against a fake server."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from tests.judge.fake_openai_server import FakeOpenAIServer
from tests.judge.helpers import FAKE_KEY
from tests.patience import HANG_GUARD_SECONDS
from workbench.judge.client import RetryPolicy
from workbench.judge.secrets import Secret
from workbench.judge.templates import JudgeTemplate
from workbench.services.judging.runner import (
    JudgePlan,
    JudgeRunner,
    JudgeSettings,
    JudgeSummary,
    plan_run,
)
from workbench.services.judging.worklist import JudgeScope

#: retries fast enough for tests; an attempt's timeout is only a hang guard, so that on a busy
#: machine a slow answer is never retried (which would send requests a test does not expect).
#: A test of timeouts gives its own, with a fault that hangs far longer
QUICK_RETRY = RetryPolicy(
    max_attempts=6, base_delay=0.01, max_delay=0.1, timeout=float(HANG_GUARD_SECONDS)
)


def settings_for(
    server: FakeOpenAIServer, template: JudgeTemplate, **options: Any
) -> JudgeSettings:
    selection = options.pop("selection", JudgeScope())
    values: dict[str, Any] = {
        "base_url": server.base_url,
        "judge_model": "gpt-4o-mini",
        "template": template.name,
        "selection": selection,
        "concurrency": 8,
        "retry": QUICK_RETRY,
    }
    values.update(options)
    return JudgeSettings(**values)


def judge(
    bundle: Path,
    settings: JudgeSettings,
    template: JudgeTemplate,
    *,
    key: str = FAKE_KEY,
    on_progress: Any = None,
    cancel_after: int | None = None,
) -> tuple[JudgePlan, JudgeSummary]:
    plan = plan_run(bundle, settings, template=template)
    job: JudgeRunner

    def progress(state: Any) -> None:
        if on_progress is not None:
            on_progress(state)
        if cancel_after is not None and state.done >= cancel_after:
            job.cancel()

    job = JudgeRunner(bundle, plan, Secret(key), on_progress=progress)
    return plan, asyncio.run(job.run())
