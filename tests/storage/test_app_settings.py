"""The one settings file (storage/app_settings.py): versioned, migrated on load in order, left
alone when a newer app wrote it, and holding no secret whatever it is given."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from workbench.domain.settings import AppSettings, EndpointMemory, JudgeMemory
from workbench.judge.cost import Price
from workbench.judge.last_used import load_last_used, remember_endpoint, remembered
from workbench.paths import config_dir
from workbench.recent import recent_locations, remember_location
from workbench.storage import app_settings
from workbench.storage.app_settings import (
    SETTINGS_VERSION,
    load_settings,
    save_settings,
    settings_path,
    update_settings,
)
from workbench.storage.backup_settings import BackupSettings, load_backup_settings

SECRET = "sk-test-0123456789abcdef"


def test_old_files_are_carried_over_once_and_left_in_place(tmp_path: Path) -> None:
    """Version 0 (the separate files, written here in their old formats) becomes version 1."""
    folder = config_dir()
    old: dict[str, Any] = {
        "recent.json": {"version": 1, "bundles": [str(tmp_path / "a.wbb"), "postgresql://h/db"]},
        "backups.json": {
            "version": 1,
            "folder": str(tmp_path / "kept"),
            "size_limit_bytes": 1000,
            "keep": 5,
            "first_backup_shown": True,
        },
        "judge-last-used.json": {"base_url": "http://127.0.0.1:9/v1", "model": "judge-1"},
    }
    for name, data in old.items():
        (folder / name).write_text(json.dumps(data))
    before = {name: (folder / name).read_bytes() for name in old}

    assert recent_locations() == old["recent.json"]["bundles"]
    assert load_backup_settings() == BackupSettings(tmp_path / "kept", 1000, 5, True)
    last = load_last_used()
    assert (last.base_url, last.model) == ("http://127.0.0.1:9/v1", "judge-1")
    assert json.loads(settings_path().read_text())["version"] == SETTINGS_VERSION
    assert {name: (folder / name).read_bytes() for name in old} == before
    # migrated once: later changes to the old files are no longer read
    (folder / "recent.json").write_text(json.dumps({"version": 1, "bundles": ["/elsewhere"]}))
    assert recent_locations() == old["recent.json"]["bundles"]


def test_migrations_run_in_order_from_the_stored_version(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    ran: list[str] = []

    def second(data: dict[str, Any], _folder: Path) -> dict[str, Any]:
        ran.append("1->2")
        return {**data, "version": 2, "recent": [*data.get("recent", []), "/added-by-2"]}

    settings_path().write_text(json.dumps({"version": 1, "recent": ["/kept"]}))
    monkeypatch.setattr(app_settings, "MIGRATIONS", (*app_settings.MIGRATIONS, second))
    monkeypatch.setattr(app_settings, "SETTINGS_VERSION", 2)
    assert load_settings().recent == ("/kept", "/added-by-2")
    assert ran == ["1->2"]  # the 0->1 step did not run again
    assert json.loads(settings_path().read_text())["version"] == 2
    load_settings()
    assert ran == ["1->2"]  # written back: not migrated twice


def test_a_failing_migration_keeps_the_old_file_and_warns(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    def broken(data: dict[str, Any], _folder: Path) -> dict[str, Any]:
        raise KeyError("window")

    old = json.dumps({"version": 1, "recent": ["/kept"], "backups": {"keep": 7}})
    settings_path().write_text(old)
    monkeypatch.setattr(app_settings, "MIGRATIONS", (*app_settings.MIGRATIONS, broken))
    monkeypatch.setattr(app_settings, "SETTINGS_VERSION", 2)
    with caplog.at_level("WARNING", logger="workbench.storage.app_settings"):
        assert load_settings() == AppSettings(writable=False)
    assert "could not bring the settings" in caplog.text and "version 1" in caplog.text
    # nothing writes over it: a later version that migrates it finds every value
    remember_location("/some/bundle.wbb")
    update_settings(lambda s: s.with_changes(recent=("/y",)))
    assert settings_path().read_text() == old


def test_the_file_holds_every_setting_by_the_models_field_names() -> None:
    settings = AppSettings(
        recent=("/a.wbb",),
        backups=BackupSettings(folder=Path("/backups"), keep=4),
        judge=JudgeMemory("http://h/v1", {"http://h/v1": EndpointMemory("m", (1.0, 2.5), 3)}),
    )
    save_settings(settings)
    stored = json.loads(settings_path().read_text())
    assert stored["version"] == SETTINGS_VERSION and "writable" not in stored
    assert stored["backups"] == {
        "folder": "/backups",
        "size_limit_bytes": None,
        "keep": 4,
        "first_backup_shown": False,
    }
    assert stored["judge"]["endpoints"]["http://h/v1"] == {
        "model": "m",
        "price": [1.0, 2.5],
        "concurrency": 3,
    }
    assert load_settings() == settings


def test_a_file_from_a_newer_app_is_read_as_defaults_and_never_overwritten() -> None:
    newer = json.dumps({"version": SETTINGS_VERSION + 1, "recent": ["/x"], "new": {"a": 1}})
    settings_path().write_text(newer)
    settings = load_settings()
    assert settings == AppSettings(writable=False)
    remember_location("/some/bundle.wbb")
    update_settings(lambda s: s.with_changes(recent=("/y",)))
    assert settings_path().read_text() == newer


def test_an_unreadable_file_is_kept_aside_and_defaults_are_used() -> None:
    settings_path().write_text("{not json")
    assert load_settings() == AppSettings()
    kept = settings_path().with_name(settings_path().name + ".unreadable")
    assert kept.read_text() == "{not json"


def test_wrong_values_become_defaults_field_by_field() -> None:
    settings_path().write_text(
        json.dumps(
            {
                "version": SETTINGS_VERSION,
                "window": {"geometry": "not base64!", "raw_text": "yes", "chosen_models": [1]},
                "recent": ["/a", 7],
                "backups": {"keep": "many", "folder": 3},
                "judge": {"endpoints": {"http://h/v1": {"price": [-1, 2], "concurrency": 0}}},
            }
        )
    )
    settings = load_settings()
    assert settings.window.geometry is None and settings.window.raw_text is False
    assert settings.window.chosen_models == () and settings.recent == ("/a",)
    assert settings.backups == BackupSettings()
    assert settings.judge.endpoints == {"http://h/v1": EndpointMemory()}


def test_each_endpoint_remembers_its_model_price_and_concurrency() -> None:
    remember_endpoint("http://a.example/v1", "judge-a", Price(1, 2), 3)
    remember_endpoint("http://b.example/v1", "judge-b", None, 16)
    a, b = remembered("http://a.example/v1"), remembered("http://b.example/v1")
    assert (a.model, a.price, a.concurrency) == ("judge-a", Price(1, 2), 3)
    assert (b.model, b.price, b.concurrency) == ("judge-b", None, 16)
    assert remembered("http://c.example/v1").model is None
    last = load_last_used()
    assert (last.base_url, last.model) == ("http://b.example/v1", "judge-b")


def test_no_api_key_can_reach_the_settings_file() -> None:
    """Neither through the judge's memory (which keeps public URLs) nor by handing the storage
    layer a URL with credentials, a query or a fragment directly."""
    remember_endpoint(f"https://user:{SECRET}@api.example/v1?api-key={SECRET}#{SECRET}", "m")
    assert remembered("https://api.example/v1").model == "m"
    leaky = {
        f"https://u:{SECRET}@h/v1": EndpointMemory("m"),
        f"https://h/v1?key={SECRET}": EndpointMemory("m"),
        f"https://h/v1#{SECRET}": EndpointMemory("m"),
        f"https://{SECRET}@h/v1": EndpointMemory("m"),
    }
    update_settings(lambda s: s.with_changes(judge=JudgeMemory(f"https://u:{SECRET}@h/v1", leaky)))
    save_settings(load_settings().with_changes(judge=JudgeMemory(endpoints=leaky)))
    text = settings_path().read_text()
    assert SECRET not in text
    # the model has no field a key could go in
    assert not any("key" in name for name in EndpointMemory.__dataclass_fields__)
    assert not any("key" in name or "secret" in name for name in JudgeMemory.__dataclass_fields__)
