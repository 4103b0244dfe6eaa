"""The judge endpoint's API key: from an environment variable named by the user, from
``OPENAI_API_KEY``, or from the system keyring (set from the GUI). Without a keyring backend the
app says so and uses the environment.

The key is held in a :class:`Secret` that never prints itself, and is registered with the log
filter so that no log line can carry it. It is never written to the bundle.
"""

from __future__ import annotations

import json
import logging
import os
from dataclasses import dataclass, field
from typing import NoReturn
from urllib.parse import quote, quote_plus, urlsplit, urlunsplit

from workbench.errors import WorkbenchError
from workbench.keyring_store import KEYRING_SERVICE as KEYRING_SERVICE  # re-exported
from workbench.keyring_store import (
    KeyringUnavailableError,
    delete_secret,
    read_secret,
    write_secret,
)
from workbench.logging_setup import REDACTED, register_secret

log = logging.getLogger(__name__)

DEFAULT_ENV_VAR = "OPENAI_API_KEY"
#: what local servers (vLLM, llama.cpp, Ollama) accept when they check no key
LOCAL_PLACEHOLDER_KEY = "not-needed"
_LOCAL_HOSTS = {"localhost", "127.0.0.1", "::1", "0.0.0.0"}
#: keys shorter than this are not scrubbed from answers: they would replace ordinary words
MIN_SCRUBBED_LENGTH = 6


class ApiKeyError(WorkbenchError):
    pass


class Secret:
    """A value that is never shown: ``str()``, ``repr()`` and formatting give a mask."""

    __slots__ = ("_value",)

    def __init__(self, value: str) -> None:
        self._value = value
        register_secret(value)

    def reveal(self) -> str:
        """The value itself, for the one place that needs it (the HTTP client)."""
        return self._value

    def __repr__(self) -> str:
        return "Secret('********')"

    __str__ = __repr__

    def __format__(self, spec: str) -> str:
        return repr(self)

    def __reduce__(self) -> NoReturn:
        raise TypeError("a Secret cannot be pickled")

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Secret) and other._value == self._value

    def __hash__(self) -> int:
        return hash(self._value)


@dataclass(frozen=True)
class ResolvedKey:
    """The key to use, where it came from (``env:NAME``, ``keyring``, ``none``), and notes the
    user should see (such as "no keyring available")."""

    secret: Secret
    source: str
    notes: tuple[str, ...] = field(default=())


def scrub(text: str, secret: Secret) -> str:
    """``text`` with ``secret`` replaced by a marker in every form an endpoint may echo it in:
    as is, URL-encoded (``%2B``, ``+`` for a space) and JSON-escaped. Applied to every answer
    before it is stored, cached or exported: an endpoint that echoes the request's headers
    would otherwise put the key into the bundle."""
    value = secret.reveal()
    if len(value) < MIN_SCRUBBED_LENGTH or value == LOCAL_PLACEHOLDER_KEY:
        return text  # too short to tell from ordinary words, or no secret at all
    forms = {
        value,
        quote(value, safe=""),
        quote_plus(value),
        json.dumps(value)[1:-1],
        json.dumps(value, ensure_ascii=False)[1:-1],
    }
    for form in sorted(forms, key=len, reverse=True):  # a form containing another goes whole
        text = text.replace(form, REDACTED)
    return text


def is_local(base_url: str) -> bool:
    return (urlsplit(base_url).hostname or "") in _LOCAL_HOSTS


def keyring_account(base_url: str) -> str:
    """The keyring entry of an endpoint: one key per host."""
    return f"judge-api-key:{urlsplit(base_url).hostname or base_url}"


def public_base_url(base_url: str) -> str:
    """``base_url`` without user info, query or fragment, which is what may be stored."""
    parts = urlsplit(base_url)
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    netloc = host + (f":{parts.port}" if parts.port else "")
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))


def _from_keyring(base_url: str, notes: list[str]) -> str | None:
    found = read_secret(keyring_account(base_url))
    if found.note:
        notes.append(f"{found.note}; the API key is taken from the environment")
    return found.value


def resolve_api_key(base_url: str, env_var: str | None = None) -> ResolvedKey:
    """The key for ``base_url``: ``env_var`` when given (it must be set), else
    ``OPENAI_API_KEY``, else the keyring; a local endpoint with none gets a placeholder."""
    notes: list[str] = []
    if env_var:
        value = os.environ.get(env_var, "").strip()
        if not value:
            raise ApiKeyError(f"the environment variable {env_var} (from --api-key-env) is not set")
        return ResolvedKey(Secret(value), f"env:{env_var}")
    value = os.environ.get(DEFAULT_ENV_VAR, "").strip()
    if value:
        return ResolvedKey(Secret(value), f"env:{DEFAULT_ENV_VAR}")
    stored = _from_keyring(base_url, notes)
    if stored:
        return ResolvedKey(Secret(stored), "keyring", tuple(notes))
    if is_local(base_url):
        # a local server needs no key, so a missing keyring is nothing to warn about
        return ResolvedKey(Secret(LOCAL_PLACEHOLDER_KEY), "none")
    raise ApiKeyError(
        f"no API key for {public_base_url(base_url)}: set {DEFAULT_ENV_VAR}, name another "
        "variable with --api-key-env, or store a key in the system keyring from the app"
        + (f" ({notes[0]})" if notes else "")
    )


def store_api_key(base_url: str, key: str) -> None:
    """Save ``key`` for ``base_url``'s host in the system keyring (the GUI's key dialog)."""
    try:
        write_secret(keyring_account(base_url), key)
    except KeyringUnavailableError as error:
        instead = (
            f"; set the key in an environment variable ({DEFAULT_ENV_VAR}) instead"
            if error.no_keyring
            else ""
        )
        raise ApiKeyError(f"{error.reason}{instead}") from error
    log.info("stored an API key for %s in the system keyring", public_base_url(base_url))


def delete_api_key(base_url: str) -> bool:
    """Remove the stored key of ``base_url``'s host; False when there was none."""
    try:
        return delete_secret(keyring_account(base_url))
    except KeyringUnavailableError as error:
        raise ApiKeyError(error.reason) from error
