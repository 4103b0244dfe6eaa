"""``workbench push``, ``workbench pull`` and ``workbench server ...``: a bundle on a lab's
PostgreSQL server (copying it there and back, creating it, checking it, remembering the
password in the system keyring)."""

from __future__ import annotations

import argparse
import getpass
import json
from typing import Any

from sqlalchemy import text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DBAPIError

from workbench.cli.arguments import URL_HELP
from workbench.cli.progress import TerminalProgress
from workbench.logging_setup import register_secret
from workbench.services.maintenance import (
    forget_server_password,
    masked,
    password_source,
    store_server_password,
)
from workbench.services.sync import copy_bundle_rows
from workbench.storage import Bundle, head_revision
from workbench.storage.dialects import connection_error, make_engine, parse_location
from workbench.storage.errors import BundleError
from workbench.storage.queries import bundle_counts


def _server_url(text: str) -> str:
    if not parse_location(text).is_server:
        raise BundleError(f"{text} is not a server: give a postgresql:// URL ({URL_HELP})")
    return text


def _copy(source: str, target: str, as_json: bool) -> int:
    progress = TerminalProgress()
    try:
        report = copy_bundle_rows(source, target, progress)
    finally:
        progress.finish()
    if as_json:
        print(json.dumps(report.as_dict(), indent=2))
        return 0
    transfer = report.transfer
    verb = "created" if report.created else "merged into"
    print(
        f"{report.source} -> {report.target} ({verb}): {transfer.copied} rows copied, "
        f"{transfer.updated} updated, {transfer.image_bytes / 1e6:.1f} MB of images, "
        f"{report.seconds:.1f} s"
    )
    for name, counts in transfer.tables.items():
        if counts.copied or counts.updated or counts.unchanged:
            print(
                f"  {name:<18}{counts.copied:>9} copied{counts.updated:>7} updated"
                f"{counts.unchanged:>9} already there"
            )
    for conflict in report.conflicts:
        print(
            f"  answered twice: task {conflict.task} by {conflict.annotator} "
            f"({', '.join(conflict.uuids)}); {conflict.detail}"
        )
    return 0


def run_push(args: argparse.Namespace) -> int:
    return _copy(args.bundle, args.url, args.json)


def run_pull(args: argparse.Namespace) -> int:
    return _copy(args.url, args.bundle, args.json)


def run_init(args: argparse.Namespace) -> int:
    with Bundle.create(_server_url(args.url)) as bundle:
        print(f"created an empty bundle in {bundle.location} (schema {bundle.revision()})")
    return 0


def _server_facts(bundle: Any) -> dict[str, Any]:
    with bundle.read_session() as session:
        version = session.scalar(text("SHOW server_version"))
        ssl = session.execute(
            text("SELECT ssl, version FROM pg_stat_ssl WHERE pid = pg_backend_pid()")
        ).first()
        user = session.scalar(text("SELECT current_user"))
    return {
        "server_version": version,
        "user": user,
        "tls": bool(ssl and ssl[0]),
        "tls_version": ssl[1] if ssl and ssl[0] else None,
    }


def run_check(args: argparse.Namespace) -> int:
    url = _server_url(args.url)
    # no migration here: checking a server must not change it
    with Bundle.open(url, migrate=False) as bundle:
        facts = _server_facts(bundle)
        with bundle.read_session() as session:
            counts = bundle_counts(session)
        report = {
            "location": bundle.location,
            "schema": bundle.revision(),
            "app_schema": head_revision(),
            "password_from": password_source(url),
            **facts,
            "bundle": bundle.info(),
            "totals": counts["totals"],
        }
    if args.json:
        print(json.dumps(report, indent=2, sort_keys=True))
        return 0
    tls = f"TLS {report['tls_version']}" if report["tls"] else "no TLS"
    print(
        f"{report['location']}: PostgreSQL {report['server_version']} as {report['user']} "
        f"({tls}; password from {report['password_from']})"
    )
    print(f"  bundle {report['bundle'].get('bundle_id')}, schema {report['schema']}")
    for key, value in report["totals"].items():
        print(f"  {key:<24}{value:>10}")
    return 0


def _check_connects(url: str, password: str) -> None:
    location = parse_location(url)
    assert location.url is not None
    with_password = parse_location(
        make_url(location.url).set(password=password).render_as_string(hide_password=False)
    )
    engine = make_engine(with_password)
    try:
        with engine.connect() as connection:
            connection.execute(text("SELECT 1"))
    except DBAPIError as error:
        raise connection_error(with_password, error) from None
    finally:
        engine.dispose()


def run_login(args: argparse.Namespace) -> int:
    url = _server_url(args.url)
    password = getpass.getpass(f"password for {masked(url)}: ")
    if not password:
        raise BundleError("no password given; nothing stored")
    register_secret(password)
    if not args.no_check:
        _check_connects(url, password)
    store_server_password(url, password)
    print(f"stored the password for {masked(url)} in the system keyring")
    return 0


def run_logout(args: argparse.Namespace) -> int:
    url = _server_url(args.url)
    if forget_server_password(url):
        print(f"removed the stored password for {masked(url)}")
    else:
        print(f"no password was stored for {masked(url)}")
    return 0
