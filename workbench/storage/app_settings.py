"""The settings file: one versioned JSON file in the user's config folder, read into the typed
model of ``workbench.domain.settings`` and brought forward by an ordered list of migrations.

After napari's settings: the file carries ``version``; on load, ``MIGRATIONS[v]`` takes the data
from version ``v`` to ``v + 1`` until it is current, and the migrated file is written back once.
A file from a newer app is read as defaults and never overwritten, and so is one whose
migration fails (with a warning): the file stays as it was. Version 0 is the app before this
file, whose settings lived in separate files: the first migration carries over those of
``recent.json``, ``backups.json`` and ``judge-last-used.json`` and leaves them in place, so an
older app still finds its own. (The window layout of Qt's ``gui.ini``, from before the first
release, is not carried over: the window opens at its default layout once.)

The file is read into the typed model and written from it by the model's own type hints
(``workbench.domain.typed_json``): a value that does not fit its setting takes the default.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from workbench.domain.settings import AppSettings
from workbench.domain.typed_json import read_model, write_model
from workbench.paths import config_dir

log = logging.getLogger(__name__)

SETTINGS_FILE = "settings.json"
SETTINGS_VERSION = 1

#: the files of version 0, in the same config folder
LEGACY_RECENT = "recent.json"
LEGACY_BACKUPS = "backups.json"
LEGACY_JUDGE = "judge-last-used.json"

#: (the data at version v, the config folder) -> the data at version v + 1
Migration = Callable[[dict[str, Any], Path], dict[str, Any]]


def settings_path() -> Path:
    return config_dir() / SETTINGS_FILE


# --- version 0: the separate files ------------------------------------------------------------


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as error:
        log.warning("cannot read the old settings in %s (%s); left out", path, error)
        return None


def _from_separate_files(data: dict[str, Any], folder: Path) -> dict[str, Any]:
    """0 -> 1: one file instead of the recent list, the backup settings and the judge's last
    endpoint."""
    migrated: dict[str, Any] = {"version": 1}
    recent = _read_json(folder / LEGACY_RECENT)
    if isinstance(recent, dict) and recent.get("version") == 1:
        migrated["recent"] = recent.get("bundles", [])
    backups = _read_json(folder / LEGACY_BACKUPS)
    if isinstance(backups, dict) and int(backups.get("version", 0) or 0) <= 1:
        migrated["backups"] = {key: value for key, value in backups.items() if key != "version"}
    judge = _read_json(folder / LEGACY_JUDGE)
    if isinstance(judge, dict) and isinstance(judge.get("base_url"), str):
        migrated["judge"] = {
            "last_endpoint": judge["base_url"],
            "endpoints": {judge["base_url"]: {"model": judge.get("model")}},
        }
    return migrated


#: MIGRATIONS[v] takes the data from version v to v + 1; append, never edit or reorder
MIGRATIONS: tuple[Migration, ...] = (_from_separate_files,)
assert len(MIGRATIONS) == SETTINGS_VERSION, "a settings version without its migration"


# --- load, save -------------------------------------------------------------------------------


def load_settings(path: Path | None = None) -> AppSettings:
    """The settings, migrated to the current version (and written back once if they were
    older); defaults when there are none. An unreadable file is kept aside as
    ``settings.json.unreadable`` and a file from a newer app is left alone (both logged)."""
    path = path or settings_path()
    data: Any
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        data = {"version": 0}
    except (OSError, ValueError) as error:
        log.warning("cannot read the settings in %s (%s); starting from defaults", path, error)
        try:
            os.replace(path, path.with_name(path.name + ".unreadable"))
        except OSError:
            return AppSettings(writable=False)
        data = {"version": SETTINGS_VERSION}
    version = data.get("version") if isinstance(data, dict) else None
    if not isinstance(version, int) or version < 0:
        log.warning("%s has no valid version; starting from defaults", path)
        data, version = {"version": SETTINGS_VERSION}, SETTINGS_VERSION
    if version > SETTINGS_VERSION:
        log.warning("%s is from a newer version of the app; using defaults, not saving", path)
        return AppSettings(writable=False)
    try:
        for migration in MIGRATIONS[version:]:
            data = migration(data, path.parent)
        settings = read_model(AppSettings, data, str(path), lenient=True)
    except Exception:  # a migration's bug must not cost the user the file it could not read
        log.warning(
            "could not bring the settings in %s up from version %s; the file is kept as it is "
            "and defaults are used",
            path,
            version,
            exc_info=True,
        )
        return AppSettings(writable=False)
    if version < SETTINGS_VERSION:
        save_settings(settings, path)
    return settings


def save_settings(settings: AppSettings, path: Path | None = None) -> None:
    """Write the settings atomically (a crash leaves the old file or the new one); nothing is
    written over a newer app's file. A failure to write is logged: it costs only defaults."""
    if not settings.writable:
        return
    path = path or settings_path()
    partial = path.with_name(f".{path.name}.partial")
    try:
        data = {"version": SETTINGS_VERSION, **write_model(settings)}
        partial.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
        os.replace(partial, path)
    except OSError as error:
        log.warning("could not save the settings to %s: %s", path, error)


def update_settings(
    change: Callable[[AppSettings], AppSettings], path: Path | None = None
) -> AppSettings:
    """Read the file afresh, apply ``change`` and write it back: each writer (the CLI, the
    app's windows) changes only its own part on top of what the others saved."""
    updated = change(load_settings(path))
    save_settings(updated, path)
    return updated
