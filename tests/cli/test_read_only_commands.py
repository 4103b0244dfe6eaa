"""Read-only commands never write to a bundle, not even the upgrade of one from an older app:
they say how to upgrade it (``workbench upgrade``), which backs it up first."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import pytest

from tests.stats.bundle_helpers import build_bundle, item_line
from tests.storage.test_bundle import NEXT_REVISION
from workbench.cli import main
from workbench.storage import Bundle, fast_read
from workbench.storage import bundle as bundle_module
from workbench.storage.bundle import head_revision

#: commands that only read (export and report, which write files elsewhere, included)
READ_ONLY_COMMANDS = [
    ["info"],
    ["info", "--json"],
    ["leaderboard", "--json"],
    ["leaderboard", "--method", "elo"],
    ["agreement", "--a", "human", "--b", "judge"],
    ["contradictions"],
    ["failures", "--kind", "cycles"],
    ["export", "--format", "jsonl", "--out", "OUT"],
    ["report", "--out", "OUT"],
]


@pytest.fixture
def older_bundle(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A bundle at today's schema, opened by a release one migration later (as a user's bundle
    is after an update): to that release it is older."""
    lines = [
        item_line(
            "q1",
            [
                {"kind": "human", "model_a": "x", "model_b": "y", "outcome": "a"},
                {"kind": "judge", "model_a": "y", "model_b": "x", "outcome": "b"},
            ],
        )
    ]
    path = Path(build_bundle(tmp_path / "older", lines))
    migrations = tmp_path / "migrations"
    shutil.copytree(bundle_module.MIGRATIONS_DIR, migrations)
    (migrations / "versions" / "9999_later.py").write_text(
        NEXT_REVISION.format(head=head_revision())
    )
    monkeypatch.setattr(bundle_module, "MIGRATIONS_DIR", migrations)
    monkeypatch.setattr(bundle_module, "HEAD_REVISION", "9999")
    monkeypatch.setattr(fast_read, "HEAD_REVISION", "9999")
    return path


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.parametrize("command", READ_ONLY_COMMANDS, ids=" ".join)
def test_a_read_only_command_leaves_an_older_bundle_as_it_was(
    older_bundle: Path, command: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    before = _digest(older_bundle)
    out = str(older_bundle.parent.parent / "out.file")
    arguments = [out if argument == "OUT" else argument for argument in command[1:]]
    assert main([command[0], str(older_bundle), *arguments]) == 1
    error = capsys.readouterr().err
    assert "older schema" in error and f"workbench upgrade {older_bundle}" in error
    assert _digest(older_bundle) == before
    assert not list(older_bundle.parent.glob("*.backup-*"))
    assert not Path(out).exists()


def test_upgrade_backs_up_then_migrates_and_the_commands_read_it(
    older_bundle: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["upgrade", str(older_bundle)]) == 0
    assert "to schema 9999" in capsys.readouterr().out
    assert len(list(older_bundle.parent.glob("*.backup-*"))) == 1
    with Bundle.open(older_bundle, read_only=True) as bundle:
        assert bundle.revision() == "9999"
    assert main(["upgrade", str(older_bundle)]) == 0  # again: nothing to do, no second backup
    assert "already at schema 9999" in capsys.readouterr().out
    assert len(list(older_bundle.parent.glob("*.backup-*"))) == 1
    before = _digest(older_bundle)
    assert main(["info", str(older_bundle)]) == 0
    assert main(["leaderboard", str(older_bundle), "--min-battles", "0", "--json"]) == 0
    assert _digest(older_bundle) == before
