"""``workbench push``, ``workbench pull`` and ``workbench server ...``: a bundle on a lab's
PostgreSQL server (copying it there and back, creating it, checking it, remembering the
password in the system keyring)."""

from __future__ import annotations

import argparse
import json
from typing import Any

URL_HELP = "a postgresql://USER@HOST[:PORT]/DATABASE URL (TLS options as ?sslmode=...)"


def register(commands: Any) -> None:
    push = commands.add_parser(
        "push",
        help="copy a bundle to a server (or merge it into the copy there)",
        description="Copy every table of BUNDLE, images included, to the bundle at URL: "
        "created in an empty database, or merged into the same bundle pushed before (votes by "
        "UUID, judge runs by name...). Pushing again copies nothing. A row that differs on "
        "the two sides stops the push and changes nothing.",
    )
    push.add_argument("bundle", metavar="BUNDLE", help="the bundle file (or a URL)")
    push.add_argument("url", metavar="URL", help=URL_HELP)
    push.add_argument("--json", action="store_true", help="print the summary as JSON")
    push.set_defaults(handler=run_push)

    pull = commands.add_parser(
        "pull",
        help="copy a server bundle into a file (or merge it into the file)",
        description="Copy every table of the bundle at URL into BUNDLE: a new file, or the "
        "same bundle pulled or pushed before, which gains what the server gained.",
    )
    pull.add_argument("url", metavar="URL", help=URL_HELP)
    pull.add_argument("bundle", metavar="BUNDLE", help="the bundle file (or a URL)")
    pull.add_argument("--json", action="store_true", help="print the summary as JSON")
    pull.set_defaults(handler=run_pull)

    server = commands.add_parser("server", help="a bundle on a PostgreSQL server")
    actions = server.add_subparsers(dest="server_command", metavar="ACTION", required=True)
    init = actions.add_parser(
        "init", help="create an empty bundle (the schema) in an empty database"
    )
    init.add_argument("url", metavar="URL", help=URL_HELP)
    init.set_defaults(handler=run_init)
    check = actions.add_parser(
        "check", help="connect, and show the schema revision, the TLS state and the counts"
    )
    check.add_argument("url", metavar="URL", help=URL_HELP)
    check.add_argument("--json", action="store_true", help="print as JSON")
    check.set_defaults(handler=run_check)
    login = actions.add_parser(
        "login",
        help="ask for the database password and keep it in the system keyring",
        description="Ask for the password of the URL's user (never echoed), check that it "
        "connects, and store it in the system keyring for this user, host, port and database.",
    )
    login.add_argument("url", metavar="URL", help=URL_HELP)
    login.add_argument(
        "--no-check", action="store_true", help="store the password without connecting first"
    )
    login.set_defaults(handler=run_login)
    logout = actions.add_parser("logout", help="remove the stored password of a database")
    logout.add_argument("url", metavar="URL", help=URL_HELP)
    logout.set_defaults(handler=run_logout)


def _server_url(text: str) -> str:
    from workbench.storage.dialects import parse_location
    from workbench.storage.errors import BundleError

    if not parse_location(text).is_server:
        raise BundleError(f"{text} is not a server: give a postgresql:// URL ({URL_HELP})")
    return text


def _copy(source: str, target: str, as_json: bool) -> int:
    from workbench.cli.progress import TerminalProgress
    from workbench.services.sync import copy_bundle_rows

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
    from workbench.storage import Bundle

    with Bundle.create(_server_url(args.url)) as bundle:
        print(f"created an empty bundle in {bundle.location} (schema {bundle.revision()})")
    return 0


def _server_facts(bundle: Any) -> dict[str, Any]:
    from sqlalchemy import text

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
    from workbench.services.maintenance import password_source
    from workbench.storage import Bundle, head_revision
    from workbench.storage.queries import bundle_counts

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
    from sqlalchemy import text
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import DBAPIError

    from workbench.storage.dialects import connection_error, make_engine, parse_location

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
    import getpass

    from workbench.logging_setup import register_secret
    from workbench.services.maintenance import masked, store_server_password
    from workbench.storage.errors import BundleError

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
    from workbench.services.maintenance import forget_server_password, masked

    url = _server_url(args.url)
    if forget_server_password(url):
        print(f"removed the stored password for {masked(url)}")
    else:
        print(f"no password was stored for {masked(url)}")
    return 0
