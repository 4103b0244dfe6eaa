"""A campaign's settings are one typed model (``services.campaign_settings``): created with every
setting stored, read back through the model by every reader, refused with the campaign and the
setting named when a stored value does not fit, and changed by writers without losing what a
newer app stored."""

from __future__ import annotations

import dataclasses
import re
import sqlite3
from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy import select

from tests.services.campaign_helpers import build_campaign_bundle
from workbench.cli import main
from workbench.services.campaign_settings import (
    DEFAULT_LEASE_MINUTES,
    DEFAULT_PACK_LEASE_DAYS,
    CampaignSettings,
    CampaignSettingsError,
    PracticeTask,
    settings_of,
)
from workbench.services.campaigns import (
    CampaignSpec,
    add_annotator,
    campaign_guidelines,
    create_campaign,
    set_campaign_guidelines,
)
from workbench.services.voting import AnnotationSession
from workbench.storage import Bundle
from workbench.storage.models import Campaign

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = Path(build_campaign_bundle(tmp_path_factory.mktemp("settings"), items=3, turns=1))
    with Bundle.open(path) as bundle:
        add_annotator(bundle, "ann")
        create_campaign(
            bundle,
            CampaignSpec("study", "arena-battle", seed=2, lease_minutes=5, guidelines="Be fair"),
        )
    return path


@pytest.fixture
def bundle_path(template: Path, tmp_path: Path) -> Path:
    path = tmp_path / "bundle.wbb"
    path.write_bytes(template.read_bytes())
    return path


def _stored(path: Path) -> str:
    with sqlite3.connect(path) as connection:
        return str(connection.execute("SELECT settings FROM campaigns").fetchone()[0])


def _store(path: Path, text: str) -> None:
    with sqlite3.connect(path) as connection:
        connection.execute("UPDATE campaigns SET settings = ?", (text,))


def test_a_new_campaign_stores_every_setting_and_reads_them_back(bundle_path: Path) -> None:
    import json

    stored = json.loads(_stored(bundle_path))
    assert set(stored) == {spec.name for spec in dataclasses.fields(CampaignSettings)}
    with Bundle.open(bundle_path) as bundle, bundle.read_session() as session:
        settings = settings_of(session.scalars(select(Campaign)).one())
    assert settings.to_json() == stored
    assert settings.lease == timedelta(minutes=5)
    assert settings.pack_lease == timedelta(days=DEFAULT_PACK_LEASE_DAYS)
    assert settings.guidelines == "Be fair" and settings.criterion == "overall"
    assert settings.pack_salt and settings.uid


def test_settings_never_stored_read_as_their_defaults() -> None:
    settings = CampaignSettings.from_json({}, "old")
    assert settings.output_context == "standard"
    assert settings.criterion == "overall"
    assert settings.lease == timedelta(minutes=DEFAULT_LEASE_MINUTES)
    assert settings.assigned is None and settings.practice == ()
    # nested settings are typed too
    task = {"source": "s", "item": "q1", "answer": "a", "turn": 1, "left": "m1", "right": "m2"}
    read = CampaignSettings.from_json({"practice": [task], "criteria": []}, "c")
    assert read.practice == (PracticeTask("s", "q1", "a", 1, "m1", "m2", ""),)
    assert read.criterion == "overall"


@pytest.mark.parametrize(
    ("stored", "setting", "wanted"),
    [
        ('"lease_minutes": "soon"', "lease_minutes", "a number"),
        ('"lease_minutes": -3', "lease_minutes", "positive"),
        ('"criteria": "overall"', "criteria", "a list"),
        ('"practice_optional": "yes"', "practice_optional", "true or false"),
        ('"practice": [{"source": "s", "item": 1, "answer": "a"}]', "practice[0]", "text"),
    ],
)
def test_a_stored_value_that_does_not_fit_is_refused_naming_the_setting(
    bundle_path: Path,
    capsys: pytest.CaptureFixture[str],
    stored: str,
    setting: str,
    wanted: str,
) -> None:
    before = _stored(bundle_path)
    _store(bundle_path, before[:-1] + ", " + stored + "}")
    with Bundle.open(bundle_path) as bundle, pytest.raises(CampaignSettingsError) as refused:
        AnnotationSession(bundle, "study", "ann")
    message = str(refused.value)
    assert "campaign 'study'" in message and f"setting '{setting}" in message
    assert wanted in message
    # the command line says the same in one line, and nothing was changed
    assert main(["campaign", "status", str(bundle_path), "study"]) != 0
    assert f"setting '{setting}" in capsys.readouterr().err
    assert _stored(bundle_path) == before[:-1] + ", " + stored + "}"


def test_a_writer_keeps_settings_it_does_not_know(bundle_path: Path) -> None:
    # a newer app's setting: kept through a change made by this one
    _store(bundle_path, _stored(bundle_path)[:-1] + ', "pairing_rule": "adaptive"}')
    with Bundle.open(bundle_path) as bundle:
        set_campaign_guidelines(bundle, "study", "Look closely")
        assert campaign_guidelines(bundle, "study") == "Look closely"
        set_campaign_guidelines(bundle, "study", None)
        assert campaign_guidelines(bundle, "study") is None
    assert '"pairing_rule": "adaptive"' in _stored(bundle_path)


def test_no_reader_types_a_campaign_settings_key_again() -> None:
    # every reader asks the model: no string key with its default re-typed beside it
    pattern = re.compile(r"settings(\s*or\s*\{\})?\)?\.get\(|settings\[\"")
    offenders = [
        f"{path.relative_to(ROOT)}:{number}"
        for path in sorted((ROOT / "workbench").rglob("*.py"))
        if path.name != "campaign_settings.py"
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if pattern.search(line)
    ]
    assert offenders == []
