"""``workbench push/pull`` and ``workbench server init/check/login/logout``, and the bundle
commands given a postgresql:// URL instead of a file (info, campaign, annotator, leaderboard)."""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from sqlalchemy import func, select
from sqlalchemy.engine import make_url

from tests.backends import PostgresBackend, postgres_admin_url
from tests.services.campaign_helpers import build_campaign_bundle, registry_with_all_protocols
from workbench.cli import main
from workbench.services.campaigns import CampaignSpec, add_annotator, create_campaign
from workbench.services.voting import AnnotationSession
from workbench.storage import Bundle, head_revision
from workbench.storage.credentials import resolve_password
from workbench.storage.models import Vote

PLUGINS = registry_with_all_protocols()


def run(capsys: pytest.CaptureFixture[str], *argv: str | Path) -> tuple[int, str, str]:
    code = main([str(arg) for arg in argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def server() -> Iterator[PostgresBackend]:
    backend = PostgresBackend(postgres_admin_url())
    yield backend
    backend.close()


@pytest.fixture
def database(server: PostgresBackend) -> Iterator[str]:
    url = server.new_location()
    yield url
    server.discard(url)


# --- push and pull (both backends) -------------------------------------------------------------


def test_push_and_pull_print_a_summary_and_copy_nothing_the_second_time(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, bundle_location: Path | str
) -> None:
    local = build_campaign_bundle(tmp_path, items=3)
    code, out, _ = run(capsys, "push", local, bundle_location)
    assert code == 0, out
    assert "(created)" in out and "items" in out and " 0 rows copied" not in out
    code, out, _ = run(capsys, "push", local, bundle_location, "--json")
    summary = json.loads(out)
    assert code == 0 and summary["copied"] == 0 and not summary["created"]
    assert summary["tables"]["items"] == {"copied": 0, "unchanged": 3, "updated": 0}

    back = tmp_path / "back.wbb"
    code, out, _ = run(capsys, "pull", bundle_location, back)
    assert code == 0 and back.is_file()
    code, out, _ = run(capsys, "pull", bundle_location, back)
    assert code == 0 and "0 rows copied" in out


def test_a_push_into_another_bundle_fails_with_one_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, bundle_location: Path | str
) -> None:
    first = build_campaign_bundle(tmp_path / "one", items=2)
    second = build_campaign_bundle(tmp_path / "two", items=2)
    assert run(capsys, "push", first, bundle_location)[0] == 0
    code, out, err = run(capsys, "push", second, bundle_location)
    assert code == 1 and out == ""
    assert err.startswith("workbench: the target holds another bundle") and err.count("\n") == 1


# --- server commands ---------------------------------------------------------------------------


@pytest.mark.postgres
def test_server_init_then_check(capsys: pytest.CaptureFixture[str], database: str) -> None:
    code, out, _ = run(capsys, "server", "init", database)
    assert code == 0 and "created an empty bundle" in out and head_revision() in out
    code, out, _ = run(capsys, "server", "check", database, "--json")
    facts = json.loads(out)
    assert code == 0
    assert facts["schema"] == facts["app_schema"] == head_revision()
    assert facts["tls"] is False and facts["user"] == make_url(database).username
    assert facts["totals"]["items"] == 0 and len(facts["bundle"]["bundle_id"]) == 32
    code, out, _ = run(capsys, "server", "check", database)
    assert code == 0 and "no TLS" in out and facts["bundle"]["bundle_id"] in out

    code, _, err = run(capsys, "server", "init", database)
    assert code == 1 and "already holds a bundle" in err


def test_server_commands_refuse_a_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _, err = run(capsys, "server", "check", tmp_path / "x.wbb")
    assert code == 1 and "is not a server" in err


@pytest.mark.postgres
def test_login_stores_the_password_in_the_keyring_and_logout_removes_it(
    capsys: pytest.CaptureFixture[str],
    database: str,
    memory_keyring: object,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    secret = "s3cret-for-the-test"
    monkeypatch.delenv("WORKBENCH_DB_PASSWORD", raising=False)
    monkeypatch.setattr("getpass.getpass", lambda _prompt: secret)
    code, out, err = run(capsys, "server", "login", database)  # trust auth: any password works
    assert code == 0 and "stored the password" in out
    assert secret not in out + err
    assert resolve_password(database).source == "keyring"
    assert resolve_password(database).password == secret

    assert run(capsys, "server", "logout", database)[1].startswith("removed")
    assert resolve_password(database).source == "none"
    assert run(capsys, "server", "logout", database)[1].startswith("no password was stored")


@pytest.mark.postgres
def test_login_refuses_a_server_it_cannot_reach(
    capsys: pytest.CaptureFixture[str], memory_keyring: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("getpass.getpass", lambda _prompt: "pw")
    unreachable = make_url(postgres_admin_url()).set(database="wbtest_absent_database")
    code, _, err = run(capsys, "server", "login", unreachable.render_as_string(hide_password=False))
    assert code == 1 and "cannot connect" in err and "does not exist" in err
    assert resolve_password(unreachable).source == "none"


# --- bundle commands on a URL ------------------------------------------------------------------


@pytest.fixture(scope="module")
def battles_on_server(
    shared_data: Path, tmp_path_factory: pytest.TempPathFactory, server: PostgresBackend
) -> tuple[Path, str]:
    """The WildVision-Bench battles imported into a file and pushed to a server database."""
    local = tmp_path_factory.mktemp("battles") / "battles.wbb"
    battles = shared_data / "wildvision-bench" / "vision_bench_battles.jsonl.gz"
    assert main(["import", str(battles), "--format", "arena-battles", "--into", str(local)]) == 0
    url = server.new_location()
    assert main(["push", str(local), url]) == 0
    return local, url


@pytest.mark.postgres
def test_info_and_leaderboard_read_a_server_bundle_as_they_read_its_file(
    capsys: pytest.CaptureFixture[str], battles_on_server: tuple[Path, str]
) -> None:
    local, url = battles_on_server
    capsys.readouterr()
    file_info = json.loads(run(capsys, "info", local, "--json")[1])
    code, out, _ = run(capsys, "info", url, "--json")
    server_info = json.loads(out)
    assert code == 0
    assert server_info["totals"] == file_info["totals"]
    assert server_info["bundle"]["bundle_id"] == file_info["bundle"]["bundle_id"]
    assert server_info["bundle"]["path"] is None
    assert server_info["bundle"]["location"] == make_url(url).render_as_string(True)

    file_board = json.loads(run(capsys, "leaderboard", local, "--json")[1])
    code, out, _ = run(capsys, "leaderboard", url, "--json")
    assert code == 0 and json.loads(out) == file_board


@pytest.mark.postgres
def test_campaign_and_annotator_commands_take_a_url(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, database: str
) -> None:
    local = build_campaign_bundle(tmp_path, items=3)
    assert run(capsys, "push", local, database)[0] == 0
    code, out, err = run(
        capsys,
        "campaign",
        "create",
        database,
        "--name",
        "team",
        "--protocol",
        "arena-battle",
        "--votes-per-pair",
        "2",
    )
    assert code == 0, err
    assert "created campaign 'team'" in out
    assert run(capsys, "annotator", "add", database, "ann", "--name", "Ann")[0] == 0
    code, out, _ = run(capsys, "annotator", "list", database, "--json")
    assert code == 0 and [a["handle"] for a in json.loads(out)] == ["ann"]
    code, out, _ = run(capsys, "campaign", "show", database, "team", "--json")
    details = json.loads(out)
    assert code == 0 and details["votes_per_pair"] == 2 and details["tasks"] > 0
    code, out, _ = run(capsys, "campaign", "list", database)
    assert code == 0 and out.startswith("team: arena-battle")

    # an offline pack exported from the server and merged back into it
    pack = tmp_path / "ann.wbb"
    code, out, err = run(
        capsys,
        "pack",
        "export",
        database,
        "--campaign",
        "team",
        "--annotator",
        "ann",
        "--out",
        pack,
        "--limit",
        "2",
    )
    assert code == 0, err
    with Bundle.open(pack) as opened:
        session = AnnotationSession(opened, "team", "ann", PLUGINS)
        for choice in ("a", "tie"):
            task = session.next_task()
            assert task is not None
            session.cast(task.token, choice)
    code, out, err = run(capsys, "pack", "merge", database, pack)
    assert code == 0, err
    assert "2 vote rows added" in out and make_url(database).render_as_string(True) in out
    assert run(capsys, "pack", "merge", database, pack)[1].count("0 vote rows added") == 1


# --- the annotator role of docs/team.md --------------------------------------------------------


def documented_grants() -> str:
    """The SQL block of docs/team.md that creates the annotators' group and one login role."""
    text = (Path(__file__).resolve().parents[2] / "docs" / "team.md").read_text(encoding="utf-8")
    after_marker = text.split("<!-- annotator-grants", 1)[1]
    return after_marker.split("```sql\n", 1)[1].split("```", 1)[0]


@pytest.mark.postgres
def test_the_documented_annotator_role_can_annotate_and_nothing_more(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, database: str
) -> None:
    suffix = uuid.uuid4().hex[:8]
    coordinator = f"wbtest_coordinator_{suffix}"
    group, person = f"wbtest_group_{suffix}", f"wbtest_ana_{suffix}"
    name = str(make_url(database).database)
    names = {"lab_bundle": name, "wb_annotators": group, "ana": person}
    script = re.sub(
        r"\b(lab_bundle|wb_annotators|ana)\b", lambda m: names[m.group(1)], documented_grants()
    )
    admin = make_url(database).set(drivername="postgresql").render_as_string(False)
    server_admin = make_url(postgres_admin_url()).set(drivername="postgresql")
    try:
        # step 1 of docs/team.md: the database belongs to a coordinator who is no superuser
        with psycopg.connect(admin, autocommit=True) as connection:
            connection.execute(f'CREATE ROLE "{coordinator}" LOGIN')
            connection.execute(f'ALTER DATABASE "{name}" OWNER TO "{coordinator}"')
        as_coordinator = make_url(database).set(username=coordinator).render_as_string(False)
        local = build_campaign_bundle(tmp_path, items=3)
        assert run(capsys, "push", local, as_coordinator)[0] == 0
        with Bundle.open(as_coordinator) as bundle:
            spec = CampaignSpec("team", "arena-battle", votes_per_pair=2)
            create_campaign(bundle, spec, PLUGINS)
            add_annotator(bundle, "ana")
        with psycopg.connect(admin, autocommit=True) as connection:
            connection.execute(script)
        as_annotator = make_url(database).set(username=person).render_as_string(False)
        with Bundle.open(as_annotator) as bundle:
            session = AnnotationSession(bundle, "team", "ana", PLUGINS)
            task = session.next_task()
            assert task is not None
            first = session.cast(task.token, "a")
            assert session.undo() is not None  # the undone task is current again
            task = session.next_task()
            assert task is not None
            session.cast(task.token, "b")
            task = session.next_task()
            assert task is not None
            session.skip(task.token, "the image does not load")
        with Bundle.open(database) as bundle, bundle.read_session() as reading:
            retracted = reading.scalar(select(Vote.retracted_at).where(Vote.uuid == first.uuids[0]))
            assert retracted is not None
            assert reading.scalar(select(func.count()).select_from(Vote)) == 3
        # what annotating does not need, an annotator cannot do
        code, _, err = run(capsys, "annotator", "add", as_annotator, "mallory")
        assert code == 1 and "permission denied" in err
        code, _, err = run(
            capsys, "campaign", "create", as_annotator, "--name", "x", "--protocol", "arena-battle"
        )
        assert code == 1 and "permission denied" in err
    finally:
        # the roles own or may use only things in this database: drop it first, then them
        with psycopg.connect(server_admin.render_as_string(False), autocommit=True) as connection:
            connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
            for role in (person, group, coordinator):
                connection.execute(f'DROP ROLE IF EXISTS "{role}"')
