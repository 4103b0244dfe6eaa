"""Bundle locations, server credentials and connection failures: what differs between a bundle
in a file and one on a PostgreSQL server."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import cast

import pytest
from sqlalchemy import select, text

from tests.backends import Location, PostgresBackend, postgres_admin_url
from tests.importers.canonical_helpers import item_line, write_jsonl
from tests.keyrings import MemoryKeyring
from workbench.logging_setup import SecretRedactingFilter
from workbench.services.importing import import_files
from workbench.storage import Bundle, BundleError, NotABundleError
from workbench.storage.credentials import (
    KEYRING_SERVICE,
    PASSWORD_ENV_VAR,
    forget_password,
    keyring_username,
    resolve_password,
    store_password,
)
from workbench.storage.dialects import make_engine, parse_location
from workbench.storage.errors import BundleConnectionError
from workbench.storage.models import Annotator

SERVER = "postgresql://ann@db.lab.example:5433/votes"


@pytest.fixture
def server() -> PostgresBackend:
    return PostgresBackend(postgres_admin_url())


def test_a_location_is_a_path_or_a_postgresql_url(tmp_path: Path) -> None:
    assert parse_location(tmp_path / "b.wbb").path == tmp_path / "b.wbb"
    assert parse_location(str(tmp_path / "b.wbb")).dialect == "sqlite"
    assert parse_location(f"sqlite:///{tmp_path}/b.wbb").path == tmp_path / "b.wbb"
    for url in (SERVER, SERVER.replace("postgresql", "postgresql+psycopg")):
        location = parse_location(url)
        assert location.is_server and location.dialect == "postgresql" and location.path is None
        assert location.url is not None and location.url.drivername == "postgresql+psycopg"
    with pytest.raises(BundleError, match="not a bundle location"):
        parse_location("mysql://ann@db/votes")
    with pytest.raises(BundleError, match="names no database"):
        parse_location("postgresql://ann@db.lab.example")


def test_the_shown_location_hides_the_password() -> None:
    location = parse_location("postgresql://ann:hunter2-secret@db.lab.example/votes")
    assert "hunter2-secret" not in location.display
    assert location.display == "postgresql://ann:***@db.lab.example/votes"


def test_password_comes_from_the_url_then_env_then_keyring(
    memory_keyring: MemoryKeyring, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(PASSWORD_ENV_VAR, raising=False)
    assert resolve_password(SERVER).source == "none"
    store_password(SERVER, "from-the-keyring")
    assert memory_keyring.passwords == {
        (KEYRING_SERVICE, "db:ann@db.lab.example:5433/votes"): "from-the-keyring"
    }
    assert resolve_password(SERVER).password == "from-the-keyring"
    monkeypatch.setenv(PASSWORD_ENV_VAR, "from-the-env")
    assert resolve_password(SERVER).source == f"env:{PASSWORD_ENV_VAR}"
    given = SERVER.replace("ann@", "ann:in-the-url@")
    assert resolve_password(given).password == "in-the-url"
    assert keyring_username(given) == keyring_username(SERVER)
    assert forget_password(SERVER) and not forget_password(SERVER)
    monkeypatch.delenv(PASSWORD_ENV_VAR)
    assert resolve_password(SERVER).password is None


def test_no_keyring_means_no_stored_password(no_keyring: None) -> None:
    assert resolve_password(SERVER).source == "none"
    assert forget_password(SERVER) is False
    with pytest.raises(BundleError, match="no system keyring"):
        store_password(SERVER, "pw")


def test_a_resolved_password_is_redacted_from_logs(memory_keyring: MemoryKeyring) -> None:
    store_password(SERVER, "keyring-password-1234")
    resolve_password(SERVER)
    record = logging.LogRecord(
        "x", logging.INFO, __file__, 1, "pw=%s", ("keyring-password-1234",), None
    )
    SecretRedactingFilter().filter(record)
    assert "keyring-password-1234" not in record.getMessage()


def test_tls_settings_reach_the_driver(memory_keyring: MemoryKeyring) -> None:
    store_password(SERVER, "tls-password")
    tls = "sslmode=verify-full&sslrootcert=/etc/lab/ca.pem&sslcert=/home/ann/c.pem&sslkey=/k.pem"
    engine = make_engine(parse_location(f"{SERVER}?{tls}&sslpassword=key-pass"))
    try:
        _args, connect_args = engine.dialect.create_connect_args(engine.url)
    finally:
        engine.dispose()
    assert connect_args["sslmode"] == "verify-full"
    assert connect_args["sslrootcert"] == "/etc/lab/ca.pem"
    assert connect_args["sslcert"] == "/home/ann/c.pem"
    assert connect_args["sslkey"] == "/k.pem"
    assert connect_args["sslpassword"] == "key-pass"
    assert connect_args["password"] == "tls-password"


def test_server_down_is_one_line_without_the_password(unused_port: int) -> None:
    url = f"postgresql://ann:do-not-show@127.0.0.1:{unused_port}/votes"
    with pytest.raises(BundleConnectionError) as caught:
        Bundle.open(url)
    message = str(caught.value)
    assert "\n" not in message and "do-not-show" not in message
    assert message.startswith(f"cannot connect to postgresql://ann:***@127.0.0.1:{unused_port}/")
    assert caught.value.__cause__ is None and caught.value.__suppress_context__


@pytest.fixture
def unused_port() -> int:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return cast("int", probe.getsockname()[1])


@pytest.mark.postgres
def test_missing_database_and_unknown_user_say_so(server: PostgresBackend) -> None:
    missing = server.new_location()
    server.discard(missing)
    with pytest.raises(BundleConnectionError, match=r"does not exist.*creates the database"):
        Bundle.open(missing)
    location = server.new_location()
    try:
        stranger = location.replace("//postgres@", "//no_such_role_h1@", 1)
        with pytest.raises(BundleConnectionError, match="no_such_role_h1"):
            Bundle.open(stranger)
    finally:
        server.discard(location)


@pytest.mark.postgres
def test_create_needs_an_empty_database_and_open_a_bundle(server: PostgresBackend) -> None:
    location = server.new_location()
    try:
        with pytest.raises(NotABundleError, match="not a VLM Workbench bundle"):
            Bundle.open(location)
        with Bundle.create(location) as bundle:
            assert bundle.is_server and bundle.path is None and bundle.dialect == "postgresql"
            assert bundle.location == location
        with pytest.raises(BundleError, match="already holds a bundle"):
            Bundle.create(location)
        other = server.new_location()
        with Bundle.open_or_create(other) as bundle, bundle.session() as session:
            session.execute(text("CREATE TABLE lab_notes (x int)"))
            session.execute(text("DROP TABLE alembic_version"))
        with pytest.raises(NotABundleError, match="has tables but is not a bundle"):
            Bundle.create(other)
        with pytest.raises(NotABundleError, match="not a VLM Workbench bundle"):
            Bundle.open(other)
    finally:
        server.close()


@pytest.mark.postgres
def test_every_server_bundle_has_its_own_id(server: PostgresBackend) -> None:
    ids = set()
    try:
        for _ in range(2):
            with Bundle.create(server.new_location()) as bundle:
                ids.add(bundle.info()["bundle_id"])
    finally:
        server.close()
    assert len(ids) == 2


def test_timestamps_read_back_the_same_on_both_backends(bundle_location: Location) -> None:
    with Bundle.create(bundle_location) as bundle:
        with bundle.session() as session:
            session.add(Annotator(handle="ann"))
        with bundle.read_session() as session:
            created = session.scalar(select(Annotator.created_at))
    assert created is not None and created.tzinfo is None  # naive UTC, as SQLite gives


def test_import_into_a_location(bundle_location: Location, tmp_path: Path) -> None:
    source = write_jsonl(tmp_path / "src", [item_line("q1")])
    result = import_files(bundle_location, [source], "jsonl")
    assert not result.already_imported and result.counts["items_added"] == 1
    assert str(result.bundle) == str(bundle_location)
    assert import_files(bundle_location, [source], "jsonl").already_imported
