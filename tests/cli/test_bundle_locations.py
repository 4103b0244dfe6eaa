"""Every command that takes a bundle takes it as ``sqlite:///PATH`` as well as ``PATH``, and
answers the same: whether a location names a file or a server is decided in one place
(:mod:`workbench.storage.locations`), not by each command looking for ``://``."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.services.campaign_helpers import MODELS
from tests.services.campaign_ops_bundle import ANNOTATORS, CAMPAIGN, PLUGINS, build_ops_bundle
from workbench.cli import main
from workbench.services.campaigns import CampaignSpec, create_campaign
from workbench.storage import Bundle
from workbench.storage.dialects import parse_location
from workbench.storage.locations import is_server_url, location_file

OPEN_CAMPAIGN = "open"

#: each command with ``{bundle}`` where the bundle goes, ``{out}`` for a new file beside it and
#: ``{source}`` for an import source; whether it changes the bundle (then it runs on a copy)
COMMANDS: list[tuple[list[str], bool]] = [
    (["info", "{bundle}"], False),
    (["info", "{bundle}", "--json"], False),
    (["leaderboard", "{bundle}", "--campaign", CAMPAIGN, "--json"], False),
    (["leaderboard", "{bundle}", "--campaign", CAMPAIGN, "--kind", "human", "--json"], False),
    (["contradictions", "{bundle}"], False),
    (["failures", "{bundle}", "--kind", "cycles"], False),
    (["categories", "{bundle}"], False),
    (["campaign", "list", "{bundle}"], False),
    (["campaign", "show", "{bundle}", CAMPAIGN], False),
    (["campaign", "status", "{bundle}", CAMPAIGN], False),
    (["campaign", "disagreements", "{bundle}", CAMPAIGN], False),
    (["campaign", "guidelines", "{bundle}", CAMPAIGN], False),
    (["annotator", "list", "{bundle}"], False),
    (["export", "{bundle}", "--format", "jsonl", "--out", "{out}"], False),
    (["report", "{bundle}", "--out", "{out}", "--bootstrap", "5"], False),
    (
        [
            "judge",
            "{bundle}",
            "--base-url",
            "http://127.0.0.1:9/v1",
            "--model",
            "m",
            "--template",
            "arena-five-level",
            "--models",
            ",".join(MODELS[:2]),
            "--dry-run",
        ],
        False,
    ),
    (["check", "{bundle}"], False),
    (["check", "{bundle}", "--full"], False),
    (["backups", "{bundle}"], False),
    (["upgrade", "{bundle}"], True),
    (["backup", "{bundle}"], True),
    (["annotator", "add", "{bundle}", "newcomer"], True),
    (
        [
            "pack",
            "export",
            "{bundle}",
            "--campaign",
            OPEN_CAMPAIGN,
            "--annotator",
            ANNOTATORS[0],
            "--out",
            "{out}",
        ],
        True,
    ),
    (["import", "{source}", "--format", "jsonl", "--into", "{bundle}"], True),
]


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished campaign with votes, and an open one to pack."""
    bundle, _answers = build_ops_bundle(tmp_path_factory.mktemp("locations"))
    with Bundle.open(bundle) as opened:
        spec = CampaignSpec(OPEN_CAMPAIGN, "arena-battle", models=list(MODELS[:2]), seed=1)
        create_campaign(opened, spec, PLUGINS)
    return bundle


def _run(
    command: list[str],
    location: str,
    bundle: Path,
    folder: Path,
    source: Path,
    capsys: pytest.CaptureFixture[str],
) -> tuple[int, str]:
    """The exit status and what the command printed, with the location (and the file it names,
    which a command shows for a URL) written BUNDLE."""
    values = {"bundle": location, "out": str(folder / "out.file"), "source": str(source)}
    code = main([argument.format(**values) for argument in command])
    out, err = capsys.readouterr()
    return code, (out + err).replace(location, "BUNDLE").replace(str(bundle), "BUNDLE")


@pytest.mark.parametrize(
    ("command", "writes"), COMMANDS, ids=[" ".join(command) for command, _ in COMMANDS]
)
def test_every_bundle_command_takes_a_sqlite_url_as_it_takes_the_path(
    command: list[str],
    writes: bool,
    template: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    source = template.parent / "src"
    answers = []
    for form in ("path", "url"):
        folder = tmp_path / form
        folder.mkdir()
        bundle = folder / "ops.wbb"
        if writes:
            shutil.copyfile(template, bundle)
        else:
            bundle = template
        location = str(bundle) if form == "path" else f"sqlite:///{bundle}"
        answers.append(_run(command, location, bundle, folder, source, capsys))
    (path_code, path_text), (url_code, url_text) = answers
    assert path_code == 0, path_text
    assert url_code == 0, url_text
    if command[0] not in {"backup", "backups", "export", "report", "pack"}:
        # those name the files they wrote, whose names hold a time or the folder
        assert url_text == path_text


@pytest.mark.gui
@pytest.mark.parametrize(
    "command",
    [
        ["open", "{bundle}", "--page", "items"],
        ["annotate", "{bundle}", "--campaign", OPEN_CAMPAIGN, "--annotator", ANNOTATORS[0]],
    ],
    ids=["open", "annotate"],
)
def test_the_app_opens_a_sqlite_url(command: list[str], template: Path, tmp_path: Path) -> None:
    bundle = tmp_path / "ops.wbb"
    shutil.copyfile(template, bundle)
    picture = tmp_path / "shot.png"
    arguments = [argument.format(bundle=f"sqlite:///{bundle}") for argument in command]
    completed = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; from workbench.cli import main; sys.exit(main())",
            *arguments,
            *("--screenshot", str(picture)),
        ],
        capture_output=True,
        text=True,
        env={**os.environ, "QT_QPA_PLATFORM": "offscreen"},
        timeout=300,
    )
    assert completed.returncode == 0, completed.stderr[-2000:]
    assert picture.stat().st_size > 0


def test_restore_takes_a_sqlite_url(
    template: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bundle = tmp_path / "ops.wbb"
    shutil.copyfile(template, bundle)
    assert main(["backup", f"sqlite:///{bundle}"]) == 0
    assert main(["restore", f"sqlite:///{bundle}"]) == 0
    assert "restored" in capsys.readouterr().out
    assert bundle.is_file() and list(tmp_path.glob("ops.damaged-*.wbb"))


@pytest.mark.parametrize(
    ("location", "file"),
    [
        ("x.wbb", Path("x.wbb")),
        ("sqlite:///x.wbb", Path("x.wbb")),
        ("sqlite:////abs/x.wbb", Path("/abs/x.wbb")),
        ("SQLite:///a%20b.wbb?mode=ro", Path("a b.wbb")),
        (Path("sqlite:/x.wbb"), Path("sqlite:/x.wbb")),
        ("postgresql://u@host/db", None),
        ("sqlite://host/x.wbb", None),
        ("http://host/x.wbb", None),
    ],
)
def test_one_parser_answers_file_or_server_and_the_full_parser_agrees(
    location: str | Path, file: Path | None
) -> None:
    assert location_file(location) == file
    assert is_server_url(location) == str(location).startswith("postgresql://")
    if file is not None:
        assert parse_location(location).path == file


@pytest.mark.parametrize("command", ["check", "backup", "restore", "backups"])
def test_a_server_url_gets_the_file_commands_refusal(
    command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([command, "postgresql://u@host/db"]) == 1
    error = capsys.readouterr().err
    assert "pg_dump" in error or "server" in error
    assert len(error.strip().splitlines()) == 1


def test_no_command_looks_for_a_scheme_by_hand() -> None:
    package = Path(__file__).resolve().parents[2] / "workbench"
    offenders = [
        str(path.relative_to(package.parent))
        for path in package.rglob("*.py")
        if '"://" in' in path.read_text(encoding="utf-8")
        or '"://" not in' in path.read_text(encoding="utf-8")
    ]
    assert offenders == []
