"""The judge endpoint and model used last, remembered in the user's config folder so that the
dialog and the CLI start from them. Only the endpoint's public URL (no credentials, no query)
and the model name are kept: never an API key. With nothing remembered there is no default
endpoint, so a hosted (paid) one is never used without the user choosing it.
"""

from __future__ import annotations

import json
import logging
import os
from dataclasses import dataclass
from pathlib import Path

from workbench.judge.secrets import public_base_url
from workbench.paths import config_dir

log = logging.getLogger(__name__)

FILE_NAME = "judge-last-used.json"
#: shown as an example where no endpoint is remembered (a local server costs nothing)
LOCAL_EXAMPLE = "http://127.0.0.1:8000/v1"


@dataclass(frozen=True)
class LastUsed:
    base_url: str | None = None
    model: str | None = None


def _path() -> Path:
    return config_dir() / FILE_NAME


def load_last_used() -> LastUsed:
    """What was used last; nothing when no run was started or the file cannot be read."""
    try:
        data = json.loads(_path().read_text(encoding="utf-8"))
    except FileNotFoundError:
        return LastUsed()
    except (OSError, ValueError) as error:
        log.warning("could not read the judge's last-used settings: %s", error)
        return LastUsed()
    if not isinstance(data, dict):
        return LastUsed()
    base_url, model = data.get("base_url"), data.get("model")
    return LastUsed(
        base_url if isinstance(base_url, str) and base_url else None,
        model if isinstance(model, str) and model else None,
    )


def remember_last_used(base_url: str, model: str) -> None:
    """Keep the endpoint (without credentials) and model of a run that starts. A failure to write
    is logged, never fatal: it costs only a default."""
    path = _path()
    record = {"base_url": public_base_url(base_url), "model": model}
    try:
        partial = path.with_name(path.name + ".partial")
        partial.write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
        os.replace(partial, path)
    except OSError as error:
        log.warning("could not remember the judge's endpoint and model: %s", error)
