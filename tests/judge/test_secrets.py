"""Where the API key comes from, and that it never shows: not in a repr, a log line or
traceback, the bundle file, or anything the CLI prints."""

from __future__ import annotations

import logging
import pickle
import sqlite3
from pathlib import Path

import pytest

import workbench.plugins
from tests.judge.fake_openai_server import FakeOpenAIServer, Faults
from tests.judge.helpers import build_bundle, registry_with_all_templates
from tests.keyrings import MemoryKeyring
from workbench.cli import main
from workbench.judge.secrets import (
    LOCAL_PLACEHOLDER_KEY,
    ApiKeyError,
    Secret,
    public_base_url,
    resolve_api_key,
    store_api_key,
)
from workbench.logging_setup import REDACTED, SecretRedactingFilter
from workbench.paths import log_dir

HOSTED = "https://api.example.com/v1"
#: not shaped like an OpenAI key, so only the registered-secret redaction can catch it
PLAIN_KEY = "wbtest-7Hq2-secret-9f3c"


@pytest.fixture
def no_env_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)


def test_a_named_variable_wins_and_must_be_set(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-default-0123456789")
    monkeypatch.setenv("MY_JUDGE_KEY", "sk-mine-0123456789")
    resolved = resolve_api_key(HOSTED, "MY_JUDGE_KEY")
    assert resolved.secret.reveal() == "sk-mine-0123456789"
    assert resolved.source == "env:MY_JUDGE_KEY"
    assert resolve_api_key(HOSTED).source == "env:OPENAI_API_KEY"
    with pytest.raises(ApiKeyError, match="UNSET_VAR"):
        resolve_api_key(HOSTED, "UNSET_VAR")


def test_the_keyring_per_host(no_env_key: None, memory_keyring: MemoryKeyring) -> None:
    store_api_key(HOSTED, PLAIN_KEY)
    resolved = resolve_api_key("https://api.example.com/v1/other")
    assert (resolved.secret.reveal(), resolved.source) == (PLAIN_KEY, "keyring")
    with pytest.raises(ApiKeyError, match=r"no API key for https://elsewhere\.example/v1"):
        resolve_api_key("https://elsewhere.example/v1")


def test_without_a_keyring_the_app_says_so_and_uses_the_environment(
    no_env_key: None, no_keyring: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    with pytest.raises(ApiKeyError, match="no system keyring is available"):
        resolve_api_key(HOSTED)
    local = resolve_api_key("http://127.0.0.1:8000/v1")
    assert local.secret.reveal() == LOCAL_PLACEHOLDER_KEY
    assert local.notes == ()  # a local endpoint needs no key: no warning about the keyring
    with pytest.raises(ApiKeyError, match="environment variable"):
        store_api_key(HOSTED, PLAIN_KEY)
    monkeypatch.setenv("OPENAI_API_KEY", PLAIN_KEY)
    assert resolve_api_key(HOSTED).secret.reveal() == PLAIN_KEY


def test_a_secret_never_shows_itself() -> None:
    secret = Secret(PLAIN_KEY)
    for shown in (repr(secret), str(secret), f"{secret}", f"{secret!r}", format(secret, "")):
        assert PLAIN_KEY not in shown
    with pytest.raises(TypeError):
        pickle.dumps(secret)


def test_stored_base_urls_drop_credentials() -> None:
    assert public_base_url(f"https://user:{PLAIN_KEY}@host.example:8443/v1?key={PLAIN_KEY}") == (
        "https://host.example:8443/v1"
    )


def test_logs_redact_registered_secrets_in_messages_and_tracebacks() -> None:
    Secret(PLAIN_KEY)
    record_filter = SecretRedactingFilter()
    try:
        raise RuntimeError(f"request failed with key {PLAIN_KEY}")
    except RuntimeError:
        record = logging.LogRecord(
            "t", logging.ERROR, __file__, 1, "key %s", (PLAIN_KEY,), exc_info=None
        )
        import sys

        record.exc_info = sys.exc_info()
    assert record_filter.filter(record)
    formatted = logging.Formatter().format(record)
    assert PLAIN_KEY not in formatted
    assert formatted.count(REDACTED) == 2


def test_the_key_reaches_no_bundle_log_or_output(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    registry = registry_with_all_templates()
    monkeypatch.setattr(workbench.plugins, "registry", lambda: registry)
    monkeypatch.setenv("JUDGE_KEY_UNDER_TEST", PLAIN_KEY)
    bundle = build_bundle(tmp_path, 10)
    common = [
        "--model",
        "gpt-4o-mini",
        "--template",
        "visit-bench-pairwise",
        "--api-key-env",
        "JUDGE_KEY_UNDER_TEST",
        "--attempts",
        "2",
    ]
    with FakeOpenAIServer(faults=Faults(malformed_share=0.3)) as server:
        assert main(["-v", "judge", str(bundle), "--base-url", server.base_url, *common]) == 0
        assert (
            main(
                [
                    "judge",
                    str(bundle),
                    "--base-url",
                    server.base_url,
                    *common,
                    "--json",
                    "--run",
                    "second",
                    "--no-cache",
                ]
            )
            == 0
        )
        assert server.stats.authorization == {f"Bearer {PLAIN_KEY}"}  # it was used
    with FakeOpenAIServer(faults=Faults(refuse_key=True)) as refusing:
        # the endpoint echoes the key in its error; the CLI must not
        assert (
            main(
                [
                    "judge",
                    str(bundle),
                    "--base-url",
                    refusing.base_url,
                    *common,
                    "--run",
                    "third",
                    "--no-cache",
                ]
            )
            == 1
        )
    output = capsys.readouterr()
    assert "verdicts" in output.out and "[redacted]" in output.err
    logging.shutdown()
    with sqlite3.connect(bundle) as connection:  # fold the WAL into the file as well
        connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    searched = {
        "stdout": output.out.encode(),
        "stderr": output.err.encode(),
        **{str(path): path.read_bytes() for path in tmp_path.glob("judge.wbb*")},
        **{str(path): path.read_bytes() for path in log_dir().iterdir()},
    }
    assert any(name.endswith("workbench.log") for name in searched)
    assert any(b"judge run" in data for data in searched.values())  # the log was written
    leaks = [name for name, data in searched.items() if PLAIN_KEY.encode() in data]
    assert leaks == []
