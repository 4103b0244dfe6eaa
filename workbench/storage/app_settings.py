"""The settings file: one versioned JSON file in the user's config folder, read into the typed
model of ``workbench.domain.settings`` and brought forward by an ordered list of migrations.

After napari's settings: the file carries ``version``; on load, ``MIGRATIONS[v]`` takes the data
from version ``v`` to ``v + 1`` until it is current, and the migrated file is written back once.
A file from a newer app is read as defaults and never overwritten. Version 0 is the app before
this file, whose settings lived in four files (``gui.ini`` written by Qt, ``recent.json``,
``backups.json``, ``judge-last-used.json``): the first migration carries their values over and
leaves them in place, so an older app still finds its own.
"""

from __future__ import annotations

import base64
import configparser
import json
import logging
import os
import string
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from workbench.domain.settings import (
    DEFAULT_KEEP,
    MAX_RECENT,
    AnnotationResume,
    AppSettings,
    BackupSettings,
    EndpointMemory,
    JudgeMemory,
    WindowSettings,
)
from workbench.paths import config_dir

log = logging.getLogger(__name__)

SETTINGS_FILE = "settings.json"
SETTINGS_VERSION = 1

#: the files of version 0, in the same config folder
LEGACY_GUI_INI = "gui.ini"
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


def _qt_unescape(text: str) -> tuple[list[str], bool]:
    """A value as Qt's INI writer escaped it (``QSettingsPrivate::iniEscapedString``): the
    strings it holds, and whether it was a list (unquoted commas separate list entries)."""
    simple = {
        "a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v",
        '"': '"', "\\": "\\", "?": "?", "'": "'", ";": ";", ",": ",", "=": "=",
    }  # fmt: skip
    parts: list[str] = []
    current: list[str] = []
    quoted, is_list, i = False, False, 0
    while i < len(text):
        char = text[i]
        if char == '"':
            quoted = not quoted
            i += 1
        elif char == "\\" and i + 1 < len(text):
            following = text[i + 1]
            if following in "xX":
                j, value = i + 2, 0
                while j < len(text) and text[j] in string.hexdigits:
                    value = value * 16 + int(text[j], 16)
                    j += 1
                current.append(chr(value))
                i = j
            elif following in "01234567":
                j, value = i + 1, 0
                while j < len(text) and text[j] in "01234567":
                    value = value * 8 + int(text[j])
                    j += 1
                current.append(chr(value))
                i = j
            else:
                current.append(simple.get(following, following))
                i += 2
        elif char == "," and not quoted:
            is_list = True
            parts.append("".join(current))
            current = []
            i += 1
            while i < len(text) and text[i] == " ":  # Qt separates entries with ", "
                i += 1
        else:
            current.append(char)
            i += 1
    parts.append("".join(current))
    return parts, is_list


def _qt_ini(path: Path) -> dict[str, Any]:
    """The values of a QSettings INI file without Qt, by ``section/key`` (``[General]`` keys
    by their name): strings, lists of strings, and ``@ByteArray(...)`` values as bytes."""
    parser = configparser.RawConfigParser(delimiters=("=",), strict=False, interpolation=None)
    parser.optionxform = str  # type: ignore[assignment,method-assign]  # Qt's keys keep their case
    try:
        parser.read_string(path.read_text(encoding="utf-8", errors="surrogateescape"))
    except FileNotFoundError:
        return {}
    except (OSError, configparser.Error) as error:
        log.warning("cannot read the old window settings in %s (%s); left out", path, error)
        return {}
    values: dict[str, Any] = {}
    for section in parser.sections():
        for key, raw in parser.items(section):
            parts, is_list = _qt_unescape(raw)
            name = key if section == "General" else f"{section}/{key}"
            if is_list:
                values[name] = parts
            elif parts[0].startswith("@ByteArray(") and parts[0].endswith(")"):
                try:
                    values[name] = parts[0][len("@ByteArray(") : -1].encode("latin-1")
                except UnicodeEncodeError:
                    log.warning("%s: %s is not a byte array Qt wrote; left out", path, name)
            elif parts[0] == "@Invalid()":
                values[name] = []
            else:
                values[name] = parts[0]
    return values


def _encoded(blob: Any) -> str | None:
    return base64.b64encode(blob).decode("ascii") if isinstance(blob, bytes) and blob else None


def _from_separate_files(data: dict[str, Any], folder: Path) -> dict[str, Any]:
    """0 -> 1: one file instead of the GUI's INI, the recent list, the backup settings and the
    judge's last endpoint."""
    migrated: dict[str, Any] = {"version": 1}
    ini = _qt_ini(folder / LEGACY_GUI_INI)
    # the INI's own version: a layout from a newer app was not read by the old app either
    if str(ini.get("version", "0")).isdigit() and int(str(ini.get("version", "0"))) <= 1:
        models = ini.get("inspector/models", [])
        annotation = {
            key: ini.get(f"annotation/{key}")
            for key in ("location", "campaign", "annotator", "window")
        }
        migrated["window"] = {
            "geometry": _encoded(ini.get("window/geometry")),
            "state": _encoded(ini.get("window/state")),
            "raw_text": ini.get("inspector/raw_text") == "true",
            "chosen_models": [models] if isinstance(models, str) and models else models,
            "annotation": annotation if all(annotation.values()) else None,
        }
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


# --- the model from and to JSON ---------------------------------------------------------------


def _public_url(url: Any) -> bool:
    """Whether ``url`` is a plain endpoint URL: no user info, query or fragment, where a key
    could hide (the judge stores public URLs only; this keeps anything else out of the file)."""
    if not isinstance(url, str) or not url:
        return False
    parts = urlsplit(url)
    return not (parts.username or parts.password or parts.query or parts.fragment or "@" in url)


def _strings(value: Any) -> tuple[str, ...]:
    return tuple(v for v in value if isinstance(v, str)) if isinstance(value, list) else ()


def _blob(value: Any) -> bytes | None:
    if not isinstance(value, str) or not value:
        return None
    try:
        return base64.b64decode(value, validate=True)
    except ValueError:
        return None


def _number(value: Any, kind: type) -> Any:
    return kind(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _endpoint(raw: Any) -> EndpointMemory:
    raw = raw if isinstance(raw, dict) else {}
    price = raw.get("price")
    pair = None
    if isinstance(price, list) and len(price) == 2:
        numbers = [_number(v, float) for v in price]
        if all(n is not None and n >= 0 for n in numbers):
            pair = (numbers[0], numbers[1])
    concurrency = _number(raw.get("concurrency"), int)
    model = raw.get("model")
    return EndpointMemory(
        model if isinstance(model, str) and model else None,
        pair,
        concurrency if concurrency and concurrency > 0 else None,
    )


def _section(data: Mapping[str, Any], name: str) -> Mapping[str, Any]:
    value = data.get(name)
    return value if isinstance(value, dict) else {}


def _from_data(data: Mapping[str, Any]) -> AppSettings:
    """The model from current-version data; a value of the wrong type is its default."""
    window = _section(data, "window")
    annotation = window.get("annotation")
    resume = None
    if isinstance(annotation, dict):
        values = [annotation.get(k) for k in ("location", "campaign", "annotator", "window")]
        texts = [v for v in values if isinstance(v, str) and v]
        if len(texts) == 4:
            resume = AnnotationResume(*texts)
    backups = _section(data, "backups")
    folder, limit = backups.get("folder"), _number(backups.get("size_limit_bytes"), int)
    keep = _number(backups.get("keep"), int)
    judge = _section(data, "judge")
    endpoints = _section(judge, "endpoints")
    last = judge.get("last_endpoint")
    return AppSettings(
        window=WindowSettings(
            geometry=_blob(window.get("geometry")),
            state=_blob(window.get("state")),
            raw_text=window.get("raw_text") is True,
            chosen_models=_strings(window.get("chosen_models")),
            annotation=resume,
        ),
        recent=_strings(data.get("recent"))[:MAX_RECENT],
        backups=BackupSettings(
            folder=Path(folder) if isinstance(folder, str) and folder else None,
            size_limit_bytes=limit if limit else None,
            keep=max(1, keep) if keep is not None else DEFAULT_KEEP,
            first_backup_shown=backups.get("first_backup_shown") is True,
        ),
        judge=JudgeMemory(
            last_endpoint=last if _public_url(last) else None,
            endpoints={url: _endpoint(raw) for url, raw in endpoints.items() if _public_url(url)},
        ),
    )


def _to_data(settings: AppSettings) -> dict[str, Any]:
    window, backups, judge = settings.window, settings.backups, settings.judge
    annotation = window.annotation
    return {
        "version": SETTINGS_VERSION,
        "window": {
            "geometry": _encoded(window.geometry),
            "state": _encoded(window.state),
            "raw_text": window.raw_text,
            "chosen_models": list(window.chosen_models),
            "annotation": None
            if annotation is None
            else {
                "location": annotation.location,
                "campaign": annotation.campaign,
                "annotator": annotation.annotator,
                "window": annotation.window,
            },
        },
        "recent": list(settings.recent[:MAX_RECENT]),
        "backups": {
            "folder": str(backups.folder) if backups.folder else None,
            "size_limit_bytes": backups.size_limit_bytes,
            "keep": backups.keep,
            "first_backup_shown": backups.first_backup_shown,
        },
        "judge": {
            "last_endpoint": judge.last_endpoint if _public_url(judge.last_endpoint) else None,
            "endpoints": {
                url: {
                    "model": memory.model,
                    "price": list(memory.price) if memory.price else None,
                    "concurrency": memory.concurrency,
                }
                for url, memory in sorted(judge.endpoints.items())
                if _public_url(url)
            },
        },
    }


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
    for migration in MIGRATIONS[version:]:
        data = migration(data, path.parent)
    settings = _from_data(data)
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
        partial.write_text(json.dumps(_to_data(settings), indent=2) + "\n", encoding="utf-8")
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
