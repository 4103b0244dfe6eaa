"""Campaigns that can be done: ``campaign create`` warns when chosen items miss an image and
``--without-missing-images`` leaves them out; the README's example campaign is one whose
images are all present (run as written, on the shared VisIT-Bench data)."""

from __future__ import annotations

import os
import re
import shlex
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import PROJECT_ROOT
from tests.gui.annotation_bundle import image_item
from tests.importers.canonical_helpers import write_jsonl
from tests.services.campaign_helpers import MODELS
from workbench.cli import main
from workbench.services.importing import import_files


def bundle_with_a_missing_image(folder: Path) -> Path:
    lines = [image_item(f"i{n}", 2, 50 + n, MODELS[:2]) for n in range(3)]
    lines[1]["images"][1] = {"missing": "lost.png"}
    source = write_jsonl(folder / "src", lines)
    path = folder / "b.wbb"
    import_files(path, [source], "jsonl")
    return path


def scheduled_items(path: Path, campaign: str) -> set[str]:
    with sqlite3.connect(path) as connection:
        rows = connection.execute(
            "SELECT DISTINCT items.external_id FROM scheduled_pairs "
            "JOIN campaigns ON campaigns.id = scheduled_pairs.campaign_id "
            "JOIN items ON items.id = scheduled_pairs.item_id WHERE campaigns.name = ?",
            (campaign,),
        ).fetchall()
    return {row[0] for row in rows}


def test_create_warns_about_items_missing_an_image(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = bundle_with_a_missing_image(tmp_path)
    command = ["campaign", "create", str(path), "--protocol", "arena-battle", "--seed", "1"]
    assert main([*command, "--name", "all"]) == 0
    captured = capsys.readouterr()
    assert "1 of the campaign's items miss an image" in captured.err
    assert "--without-missing-images" in captured.err
    assert scheduled_items(path, "all") == {"i0", "i1", "i2"}

    assert main([*command, "--name", "seeable", "--without-missing-images"]) == 0
    captured = capsys.readouterr()
    assert "miss an image" not in captured.err
    assert "left out 1 item(s) whose images are missing" in captured.out
    assert scheduled_items(path, "seeable") == {"i0", "i2"}


def readme_command(verb: str) -> list[str]:
    """The README's ``workbench VERB ...`` command, continuation lines joined, comment cut."""
    text = (PROJECT_ROOT / "README.md").read_text(encoding="utf-8").replace("\\\n", " ")
    line = next(line for line in text.splitlines() if line.startswith(f"workbench {verb}"))
    return shlex.split(re.sub(r"\s+#.*$", "", line))[1:]


def readme_text_of(pack: Path) -> str:
    """Every row of a pack but the image bytes, as SQL text (lower case)."""
    with sqlite3.connect(pack) as connection:
        return "\n".join(
            line.lower()
            for line in connection.iterdump()
            if not line.startswith('INSERT INTO "images"')
        )


def test_the_readme_campaign_has_every_image_and_its_annotator_gets_a_blind_pack(
    shared_data: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    (tmp_path / "shared").mkdir()
    (tmp_path / "shared" / "data").symlink_to(shared_data)
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)  # the README's paths: ../shared/data and my.wbb
    imported = readme_command("import ../shared/data/visit-bench")
    assert main(imported) == 0
    create = readme_command("campaign create")
    assert main(create) == 0
    captured = capsys.readouterr()
    assert "miss an image" not in captured.err
    with sqlite3.connect(work / "my.wbb") as connection:
        missing = connection.execute(
            "SELECT count(*) FROM scheduled_pairs JOIN item_images "
            "ON item_images.item_id = scheduled_pairs.item_id WHERE item_images.image_id IS NULL"
        ).fetchone()[0]
        tasks = connection.execute("SELECT count(*) FROM scheduled_pairs").fetchone()[0]
    assert missing == 0 and tasks > 50
    # the annotator's path, as the README writes it: a pack, annotated, merged back
    # a bundle with models in it, as the README's next imports make it
    assert main(readme_command("import ../shared/data/wildvision-bench")) == 0
    assert main(readme_command("annotator add")) == 0
    assert main(readme_command("pack export")) == 0
    pack = work / "ana.wbb"
    with sqlite3.connect(work / "my.wbb") as connection:
        names = [row[0] for row in connection.execute("SELECT name FROM models")]
    assert names
    dumped = readme_text_of(pack)
    assert "visit-bench-verification" in dumped  # the dump does hold the campaign
    leaked = [name for name in names if name.lower() in dumped]
    assert leaked == [], leaked
    annotate = readme_command("annotate")
    assert annotate == ["annotate", "ana.wbb"]
    environment = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "QT_QPA_PLATFORM")}
    # as written, plus --screenshot: the window renders and the command returns
    completed = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; from workbench.cli import main; sys.exit(main())",
            *annotate,
            "--screenshot",
            str(tmp_path / "annotate.png"),
        ],
        capture_output=True,
        text=True,
        env=environment,
        cwd=work,
        timeout=300,
    )
    assert completed.returncode == 0, completed.stderr
    assert (tmp_path / "annotate.png").stat().st_size > 0
    assert main(readme_command("pack merge")) == 0
