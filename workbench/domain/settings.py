"""The app's settings as one typed, versioned model, shared by the CLI and the GUI: the window
layout, the recent bundles, where backups go, and what is remembered per judge endpoint.

Plain frozen dataclasses: the file, its versions and its migrations are
``workbench.storage.app_settings``'s. No field can hold a secret: an endpoint is remembered by
its public URL only, with the model, price and concurrency used with it, and never an API key.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

#: automatic backups kept per bundle unless the user says otherwise
DEFAULT_KEEP = 3
#: bundles the recent list holds
MAX_RECENT = 10


@dataclass(frozen=True)
class AnnotationResume:
    """The annotation session to reopen after a restart; ``window`` is "annotator" or "main"."""

    location: str
    campaign: str
    annotator: str
    window: str


@dataclass(frozen=True)
class WindowSettings:
    """The main window's layout and view options. ``geometry`` and ``state`` are Qt's opaque
    blobs (``saveGeometry``/``saveState``), kept as bytes so the model needs no Qt."""

    geometry: bytes | None = None
    state: bytes | None = None
    raw_text: bool = False
    chosen_models: tuple[str, ...] = ()
    annotation: AnnotationResume | None = None


@dataclass(frozen=True)
class BackupSettings:
    """``folder``: where new backups go (None: beside the bundle). ``size_limit_bytes``: the
    most the automatic backups of one bundle may take together, oldest removed first, the newest
    always kept (None: no limit). ``keep``: how many automatic backups of a bundle are kept.
    ``first_backup_shown``: whether the app has told the user where backups go."""

    folder: Path | None = None
    size_limit_bytes: int | None = None
    keep: int = DEFAULT_KEEP
    first_backup_shown: bool = False

    def with_changes(self, **changes: Any) -> BackupSettings:
        return replace(self, **changes)


@dataclass(frozen=True)
class EndpointMemory:
    """What was used with one judge endpoint: the judge model, the price the user gave for it
    (US dollars per million input and output tokens; None: the price list's, or unknown) and
    the requests at once. Never a key."""

    model: str | None = None
    price: tuple[float, float] | None = None
    concurrency: int | None = None


@dataclass(frozen=True)
class JudgeMemory:
    """The endpoint used last (its public URL) and what is remembered per endpoint URL."""

    last_endpoint: str | None = None
    endpoints: dict[str, EndpointMemory] = field(default_factory=dict)

    def for_endpoint(self, base_url: str | None) -> EndpointMemory:
        return self.endpoints.get(base_url or "", EndpointMemory())


@dataclass(frozen=True)
class AppSettings:
    """Everything the app remembers between runs (see the module docstring)."""

    window: WindowSettings = WindowSettings()
    recent: tuple[str, ...] = ()
    backups: BackupSettings = BackupSettings()
    judge: JudgeMemory = JudgeMemory()
    #: False when the file was written by a newer app: it is read as defaults and never
    #: overwritten, so going back to an older app loses nothing the newer one stored
    writable: bool = True

    def with_changes(self, **changes: Any) -> AppSettings:
        return replace(self, **changes)
