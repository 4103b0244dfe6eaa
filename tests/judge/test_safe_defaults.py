"""Safe judge defaults: a run starts with limits (1,000 requests, $5 when the price
is known) shown with the estimate and asks before going above them; the endpoint and model are
the last ones used, never a hosted endpoint nobody chose, and no key is remembered; the plan
says which requests lose an image and refuses image-less ones unless --text-only; and it says
how many identical requests are sent once."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any, cast

import pytest

import workbench.plugins
from tests.importers.canonical_helpers import item_line, write_jsonl
from tests.judge.fake_openai_server import FakeOpenAIServer
from tests.judge.helpers import FAKE_KEY, build_bundle, judge_item, registry_with_all_templates
from workbench.cli import main
from workbench.judge.last_used import load_last_used
from workbench.services.importing import import_files
from workbench.storage.app_settings import settings_path

TEMPLATE = ["--template", "visit-bench-pairwise"]


@pytest.fixture(autouse=True)
def templates(monkeypatch: pytest.MonkeyPatch) -> None:
    registry = registry_with_all_templates()
    monkeypatch.setattr(workbench.plugins, "registry", lambda: registry)
    monkeypatch.setenv("OPENAI_API_KEY", FAKE_KEY)


@pytest.fixture
def bundle(tmp_path: Path) -> Path:
    return build_bundle(tmp_path, 12, models=("m-a", "m-b"))  # 24 requests


def dry_run(bundle: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> dict[str, Any]:
    capsys.readouterr()
    assert main(["judge", str(bundle), *TEMPLATE, "--dry-run", "--json", *extra]) == 0
    return cast("dict[str, Any]", json.loads(capsys.readouterr().out))


def test_there_is_no_default_endpoint_then_the_last_one_is_used(
    bundle: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert load_last_used().base_url is None
    assert main(["judge", str(bundle), *TEMPLATE, "--model", "gpt-4o-mini"]) == 1
    err = capsys.readouterr().err
    assert "give the judge endpoint with --base-url" in err and "api.openai.com" in err
    assert main(["judge", str(bundle), *TEMPLATE]) == 1
    assert "give the judge model with --model" in capsys.readouterr().err
    # an estimate needs no endpoint
    assert dry_run(bundle, capsys, "--model", "gpt-4o-mini")["estimate"]["requests"] == 24
    with FakeOpenAIServer() as server:
        with_credentials = server.base_url.replace("http://", "http://user:pw@")
        args = ["--base-url", with_credentials, "--model", "gpt-4o-mini"]
        assert main(["judge", str(bundle), *TEMPLATE, *args, "--limit", "2"]) == 0
        assert server.stats.requests == 4
        # the next command starts from the endpoint and model used last
        assert main(["judge", str(bundle), *TEMPLATE, "--limit", "3"]) == 0
        assert server.stats.requests == 6
    remembered = settings_path().read_text(encoding="utf-8")
    judge = json.loads(remembered)["judge"]
    assert judge["last_endpoint"] == server.base_url
    assert judge["endpoints"][server.base_url]["model"] == "gpt-4o-mini"
    assert FAKE_KEY not in remembered and "pw" not in remembered


def test_a_run_starts_with_limits_shown_with_the_estimate(
    bundle: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    plan = dry_run(bundle, capsys, "--model", "gpt-4o-mini")
    assert plan["limits"] == {"max_requests": 1000, "max_tokens": None, "max_cost_usd": 5.0}
    # a model without a price has no cost to limit; 0 lifts a limit
    plan = dry_run(bundle, capsys, "--model", "my-local-model", "--max-requests", "0")
    assert plan["limits"] == {"max_requests": None, "max_tokens": None, "max_cost_usd": None}
    assert main(["judge", str(bundle), *TEMPLATE, "--model", "gpt-4o-mini", "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "limits: 1,000 requests, $5.00 (the run stops before exceeding them)" in out


def test_above_its_limits_a_run_asks_first(
    bundle: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with FakeOpenAIServer() as server:
        args = ["--base-url", server.base_url, "--model", "gpt-4o-mini", "--max-requests", "10"]
        assert main(["judge", str(bundle), *TEMPLATE, *args, "--dry-run"]) == 0
        assert "above the limits: 24 requests to send, above the limit of 10" in (
            capsys.readouterr().out
        )
        # no terminal to ask (the tests' stdin): refused, nothing sent
        assert main(["judge", str(bundle), *TEMPLATE, *args]) == 1
        err = capsys.readouterr().err
        assert "above the limit of 10" in err and "Pass --yes" in err
        assert server.stats.requests == 0
        assert main(["judge", str(bundle), *TEMPLATE, *args, "--yes"]) == 0
        assert server.stats.requests == 10  # it still stops at the limit
    assert "budget_exhausted" in capsys.readouterr().out


def missing_image_bundle(folder: Path) -> Path:
    lines = [
        judge_item(f"q{n}", ("m-a", "m-b"), images=[{"path": "images/gone.png"}]) for n in range(3)
    ]
    lines += [judge_item(f"r{n}", ("m-a", "m-b")) for n in range(2)]
    bundle = folder / "images.wbb"
    import_files(bundle, [write_jsonl(folder / "src", lines)], "jsonl")
    return bundle


def test_an_image_template_refuses_items_without_images_unless_text_only(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bundle = missing_image_bundle(tmp_path)
    args = ["judge", str(bundle), "--template", "arena-five-level", "--model", "gpt-4o-mini"]
    assert main([*args, "--dry-run"]) == 1
    err = capsys.readouterr().err
    assert "6 of 10 requests would be sent without any image" in err and "--text-only" in err
    assert main([*args, "--dry-run", "--text-only"]) == 0
    out = capsys.readouterr().out
    assert "6 requests lose an image (their items' images are missing), 6 of them sent as " in out
    assert main([*args, "--dry-run", "--text-only", "--json"]) == 0
    plan = json.loads(capsys.readouterr().out)
    assert (plan["requests_missing_images"], plan["requests_without_images"]) == (6, 6)
    # a text template loses nothing
    assert dry_run(bundle, capsys, "--model", "gpt-4o-mini")["requests_missing_images"] == 0
    # a run told to go text-only records it with its parameters
    with FakeOpenAIServer() as server:
        assert main([*args, "--text-only", "--base-url", server.base_url]) == 0
    with sqlite3.connect(bundle) as connection:
        (parameters,) = connection.execute("SELECT parameters FROM judge_runs").fetchone()
    assert json.loads(parameters)["text_only"] is True


def test_the_dry_run_explains_identical_requests(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # m-b and m-c answer alike: "m-a vs m-b" and "m-a vs m-c" are one request
    lines = [
        item_line(
            f"q{n}",
            turns=[{"prompt": f"What is in picture {n}?", "references": []}],
            outputs=[
                {"model": "m-a", "text": f"A cat, {n}."},
                {"model": "m-b", "text": "A dog."},
                {"model": "m-c", "text": "A dog."},
            ],
            judgments=[],
        )
        for n in range(4)
    ]
    bundle = tmp_path / "alike.wbb"
    import_files(bundle, [write_jsonl(tmp_path / "src", lines)], "jsonl")
    plan = dry_run(bundle, capsys, "--model", "gpt-4o-mini", "--models", "m-a,m-b,m-c")
    # per item: 3 pairs x 2 orders = 6 requests, 3 of them repeats: "a vs c" of "a vs b",
    # "c vs a" of "b vs a", and "c vs b" of "b vs c" (the same two texts)
    assert plan["requests_total"] == 24 and plan["identical_requests_sent_once"] == 12
    assert plan["estimate"]["requests"] == 12
    capsys.readouterr()
    args = ["--model", "gpt-4o-mini", "--models", "m-a,m-b,m-c", "--dry-run"]
    assert main(["judge", str(bundle), *TEMPLATE, *args]) == 0
    assert "12 identical requests are sent once" in capsys.readouterr().out
