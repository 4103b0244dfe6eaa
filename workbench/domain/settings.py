"""The app's settings as one typed, versioned model, shared by the CLI and the GUI: the window
layout, the recent bundles, where backups go, and what is remembered per judge endpoint.

Plain frozen dataclasses, read from and written to JSON by their type hints
(``workbench.domain.typed_json``, as the campaign settings are); the file, its versions and its
migrations are ``workbench.storage.app_settings``'s. Each model keeps its values in range as it
is made (a bad value found in the file costs only that value). No field can hold a secret: an
endpoint is remembered by its public URL only (any other URL is dropped as the model is made),
with the model, price and concurrency used with it, and never an API key.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from workbench.domain.typed_json import NOT_STORED

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

    def __post_init__(self) -> None:
        object.__setattr__(self, "keep", max(1, self.keep))
        if not self.size_limit_bytes or self.size_limit_bytes < 0:
            object.__setattr__(self, "size_limit_bytes", None)

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

    def __post_init__(self) -> None:
        if not self.model:
            object.__setattr__(self, "model", None)
        if self.price is not None and not (len(self.price) == 2 and min(self.price) >= 0):
            object.__setattr__(self, "price", None)
        if self.concurrency is not None and self.concurrency <= 0:
            object.__setattr__(self, "concurrency", None)


def public_url(url: Any) -> bool:
    """Whether ``url`` is a plain endpoint URL: no user info, query or fragment, where a key
    could hide (the judge remembers public URLs only; the model drops any other)."""
    if not isinstance(url, str) or not url:
        return False
    parts = urlsplit(url)
    return not (parts.username or parts.password or parts.query or parts.fragment or "@" in url)


@dataclass(frozen=True)
class JudgeMemory:
    """The endpoint used last (its public URL) and what is remembered per endpoint URL."""

    last_endpoint: str | None = None
    endpoints: dict[str, EndpointMemory] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not public_url(self.last_endpoint):
            object.__setattr__(self, "last_endpoint", None)
        kept = {url: memory for url, memory in sorted(self.endpoints.items()) if public_url(url)}
        object.__setattr__(self, "endpoints", kept)

    def for_endpoint(self, base_url: str | None) -> EndpointMemory:
        return self.endpoints.get(base_url or "", EndpointMemory())


@dataclass(frozen=True)
class AppSettings:
    """Everything the app remembers between runs (see the module docstring)."""

    window: WindowSettings = WindowSettings()
    recent: tuple[str, ...] = ()
    backups: BackupSettings = BackupSettings()
    judge: JudgeMemory = JudgeMemory()
    #: False when the file was written by a newer app (or could not be brought up to date): it
    #: is read as defaults and never overwritten, so nothing stored in it is lost
    writable: bool = field(default=True, metadata=NOT_STORED)

    def __post_init__(self) -> None:
        object.__setattr__(self, "recent", self.recent[:MAX_RECENT])

    def with_changes(self, **changes: Any) -> AppSettings:
        return replace(self, **changes)
