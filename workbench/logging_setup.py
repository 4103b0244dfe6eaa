"""Logging for the CLI and the GUI: a rotating file in the user's log folder, with secrets
redacted before anything is written."""

from __future__ import annotations

import logging
import logging.handlers
import os
import re
import threading

from workbench.paths import log_dir

LOG_FILE_NAME = "workbench.log"
REDACTED = "[redacted]"
_SECRET_PATTERN = re.compile(r"(sk-[A-Za-z0-9_\-]{8,}|Bearer\s+[A-Za-z0-9_\-.]{8,})")
#: secrets shorter than this are not searched for: they would redact ordinary words
_MIN_SECRET_LENGTH = 6

_registered: set[str] = set()
_registered_lock = threading.Lock()

#: HTTP client libraries log every request at INFO; a judge run sends thousands
_CHATTY_LOGGERS = ("httpx", "httpx2", "httpcore", "httpcore2", "openai")


def register_secret(value: str) -> None:
    """Redact ``value`` (an API key read at run time) from every log record from now on."""
    if value and len(value) >= _MIN_SECRET_LENGTH:
        with _registered_lock:
            _registered.add(value)


def redact(text: str, secret_env_vars: tuple[str, ...] = ("OPENAI_API_KEY",)) -> str:
    """``text`` with key-shaped strings, registered secrets and the values of the secret
    environment variables replaced by a marker. Use it on any text that may echo a key (an
    endpoint's error message) before showing or storing it."""
    redacted = _SECRET_PATTERN.sub(REDACTED, text)
    with _registered_lock:
        secrets = set(_registered)
    for name in secret_env_vars:
        value = os.environ.get(name)
        if value and len(value) >= _MIN_SECRET_LENGTH:
            secrets.add(value)
    # longest first, so a secret containing another is replaced whole
    for value in sorted(secrets, key=len, reverse=True):
        redacted = redacted.replace(value, REDACTED)
    return redacted


class SecretRedactingFilter(logging.Filter):
    """Replaces anything shaped like an API key, the secrets registered at run time and the
    values of the secret environment variables the app knows of with a fixed marker, in the
    message and in any traceback or stack attached to the record."""

    def __init__(self, secret_env_vars: tuple[str, ...] = ("OPENAI_API_KEY",)) -> None:
        super().__init__()
        self.secret_env_vars = secret_env_vars

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        redacted = redact(message, self.secret_env_vars)
        if redacted != message:
            record.msg, record.args = redacted, None
        if record.exc_info and not record.exc_text:
            # Formatters reuse exc_text when it is set, so the traceback is written redacted.
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = redact(record.exc_text, self.secret_env_vars)
        if record.stack_info:
            record.stack_info = redact(record.stack_info, self.secret_env_vars)
        return True


#: the log file's handler that :func:`configure_logging` put on the root logger, if any
_file_handler: logging.Handler | None = None


def configure_logging(verbose: bool = False) -> logging.Handler:
    """Log to the user's log folder, as it is now. Called again (``main`` run twice in one
    process, as the tests and embedders do), it replaces its earlier handler, closing that
    file, so one process never holds more than one log file open or writes to a folder that
    was the log folder earlier."""
    global _file_handler
    root = logging.getLogger()
    close_log_file()
    handler = logging.handlers.RotatingFileHandler(
        log_dir() / LOG_FILE_NAME, maxBytes=2_000_000, backupCount=3, encoding="utf-8"
    )
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    handler.addFilter(SecretRedactingFilter())
    root.addHandler(handler)
    _file_handler = handler
    root.setLevel(logging.DEBUG if verbose else logging.INFO)
    logging.getLogger("alembic").setLevel(logging.WARNING)
    for name in _CHATTY_LOGGERS:
        logging.getLogger(name).setLevel(logging.DEBUG if verbose else logging.WARNING)
    return handler


def close_log_file() -> None:
    """Take the handler :func:`configure_logging` installed off the root logger and close its
    file (nothing if there is none)."""
    global _file_handler
    handler, _file_handler = _file_handler, None
    if handler is not None:
        logging.getLogger().removeHandler(handler)
        handler.close()


def log_file() -> str:
    return str(log_dir() / LOG_FILE_NAME)
