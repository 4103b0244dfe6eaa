"""`workbench judge` remembers, per endpoint, the model, the price the user gave and the
requests at once of a run that starts, and starts the next command on that endpoint from them
(in the one settings file, never with the key)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, cast

import pytest

import workbench.plugins
from tests.judge.fake_openai_server import FakeOpenAIServer
from tests.judge.helpers import FAKE_KEY, build_bundle, registry_with_all_templates
from workbench.cli import main
from workbench.storage.app_settings import settings_path

TEMPLATE = ["--template", "visit-bench-pairwise"]


@pytest.fixture(autouse=True)
def templates(monkeypatch: pytest.MonkeyPatch) -> None:
    registry = registry_with_all_templates()
    monkeypatch.setattr(workbench.plugins, "registry", lambda: registry)
    monkeypatch.setenv("OPENAI_API_KEY", FAKE_KEY)


def dry_run(bundle: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> dict[str, Any]:
    capsys.readouterr()
    assert main(["judge", str(bundle), *TEMPLATE, "--dry-run", "--json", *extra]) == 0
    return cast("dict[str, Any]", json.loads(capsys.readouterr().out))


def test_each_endpoint_prefills_its_own_model_price_and_concurrency(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bundle = build_bundle(tmp_path, 4, models=("m-a", "m-b"))
    with FakeOpenAIServer() as first, FakeOpenAIServer() as second:
        run = ["judge", str(bundle), *TEMPLATE, "--limit", "1"]
        first_args = ["--base-url", first.base_url, "--model", "gpt-4o-mini", "--price", "1,2"]
        assert main([*run, *first_args, "--concurrency", "3"]) == 0
        second_args = ["--base-url", second.base_url, "--model", "local-judge"]
        assert main([*run, *second_args, "--concurrency", "5"]) == 0

        on_first = dry_run(bundle, capsys, "--base-url", first.base_url)
        assert (on_first["judge_model"], on_first["concurrency"]) == ("gpt-4o-mini", 3)
        assert on_first["estimate"]["price_per_million"] == {"input": 1.0, "output": 2.0}
        origin = on_first["estimate"]["price_origin"]
        assert origin["by_user"] and origin["source"] == "remembered for this endpoint"

        on_second = dry_run(bundle, capsys, "--base-url", second.base_url)
        assert (on_second["judge_model"], on_second["concurrency"]) == ("local-judge", 5)
        assert on_second["estimate"]["price_per_million"] is None

        # the last endpoint is the default; what is given on the command line wins
        assert dry_run(bundle, capsys)["judge_model"] == "local-judge"
        given = dry_run(bundle, capsys, "--base-url", first.base_url, "--concurrency", "7")
        assert given["concurrency"] == 7
        # the remembered price is that model's: another model does not inherit it
        other = dry_run(bundle, capsys, "--base-url", first.base_url, "--model", "gpt-4o")
        assert other["estimate"]["price_origin"]["by_user"] is False
    text = settings_path().read_text(encoding="utf-8")
    assert FAKE_KEY not in text
    # a listed price is not frozen into the settings: only the user's
    assert json.loads(text)["judge"]["endpoints"][second.base_url]["price"] is None
