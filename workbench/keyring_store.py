"""The system keyring, for every secret the app keeps there (judge API keys, database
passwords): one service name, and the keyring's failures turned into reasons a caller can show.

Reading never fails (a missing or broken keyring is a note, and the caller falls back to the
environment); writing and deleting raise :class:`KeyringUnavailableError` with the reason.
"""

from __future__ import annotations

from dataclasses import dataclass

KEYRING_SERVICE = "vlm-workbench"


class KeyringUnavailableError(Exception):
    """The keyring could not store or remove a secret; ``reason`` says why in a few words, and
    ``no_keyring`` tells the caller to point the user at the environment instead."""

    def __init__(self, reason: str, *, no_keyring: bool) -> None:
        super().__init__(reason)
        self.reason = reason
        self.no_keyring = no_keyring


@dataclass(frozen=True)
class KeyringRead:
    """A secret read from the keyring (None: not there) and, when the keyring could not be
    asked, why."""

    value: str | None
    note: str | None = None


def read_secret(account: str) -> KeyringRead:
    # start-up: keyring finds its backends when imported; only a secret read needs it
    import keyring
    from keyring.errors import KeyringError, NoKeyringError

    try:
        return KeyringRead(keyring.get_password(KEYRING_SERVICE, account))
    except NoKeyringError:
        return KeyringRead(None, "no system keyring is available")
    except KeyringError as error:
        return KeyringRead(None, f"the system keyring could not be read ({type(error).__name__})")


def write_secret(account: str, value: str) -> None:
    # start-up: keyring finds its backends when imported; only a secret write needs it
    import keyring
    from keyring.errors import KeyringError, NoKeyringError

    try:
        keyring.set_password(KEYRING_SERVICE, account, value)
    except NoKeyringError as error:
        raise KeyringUnavailableError(
            "no system keyring is available on this machine", no_keyring=True
        ) from error
    except KeyringError as error:
        raise KeyringUnavailableError(
            f"the system keyring refused it ({type(error).__name__})", no_keyring=False
        ) from error


def delete_secret(account: str) -> bool:
    """Remove a stored secret; False when there was none (or no keyring to hold one)."""
    # start-up: keyring finds its backends when imported; only a secret removal needs it
    import keyring
    from keyring.errors import KeyringError, NoKeyringError, PasswordDeleteError

    try:
        keyring.delete_password(KEYRING_SERVICE, account)
    except (PasswordDeleteError, NoKeyringError):
        return False
    except KeyringError as error:
        raise KeyringUnavailableError(
            f"the system keyring could not be changed ({type(error).__name__})", no_keyring=False
        ) from error
    return True
