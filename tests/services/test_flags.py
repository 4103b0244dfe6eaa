"""Flags: an annotator flags a task's answer or item without losing the task (it can still be
answered), the flag names the model actually shown at that position, ``campaign status``
counts flags, and the model-name detector finds the WildVision-Bench answers that introduce
their model."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest
from sqlalchemy import select

from tests.services.campaign_helpers import MODELS
from tests.services.test_shown_order import PLUGINS, _campaign, template  # noqa: F401
from workbench.importers.model_mentions import names_its_model
from workbench.services.campaign_errors import AnswerError
from workbench.services.monitor import campaign_status
from workbench.services.voting import AnnotationSession
from workbench.storage import Bundle
from workbench.storage.models import Campaign, Flag, Model, Vote


def test_a_flag_keeps_the_task_and_names_the_model_shown_there(
    template: Path,  # noqa: F811
    tmp_path: Path,
) -> None:
    path = tmp_path / "b.wbb"
    path.write_bytes(template.read_bytes())
    with _campaign(path, 2, ("ann", "bob")) as bundle:
        ann = AnnotationSession(bundle, "c", "ann", PLUGINS)
        bob = AnnotationSession(bundle, "c", "bob", PLUGINS)
        first, second = ann.next_task(), bob.next_task()
        assert first is not None and second is not None
        # bob is shown the task the other way round: his Response 1 is ann's Response 2
        ann.flag(first.token, "names_model", response=1)
        bob.flag(second.token, "names_model", response=0)
        bob.flag(second.token, "broken_image")
        with pytest.raises(AnswerError, match="needs a note"):
            bob.flag(second.token, "other")
        with pytest.raises(AnswerError, match="reason is one of"):
            bob.flag(second.token, "ugly")
        # the flagged task is still the one to answer, its flag counted in its progress
        again = ann.next_task()
        assert again is not None and again.token == first.token
        assert (first.progress.flagged, again.progress.flagged) == (0, 1)
        ann.cast(first.token, "a")
        bob.cast(second.token, "b")
        with bundle.read_session() as read:
            flags = list(read.scalars(select(Flag).order_by(Flag.id)))
            assert len(list(read.scalars(select(Vote)))) == 2
            names: dict[int | None, str] = dict(read.execute(select(Model.id, Model.name)).all())
        status = campaign_status(bundle, "c")
    assert [flag.reason for flag in flags] == ["names_model", "names_model", "broken_image"]
    assert flags[0].model_id == flags[1].model_id and names[flags[0].model_id] in MODELS
    assert flags[2].model_id is None and {flag.origin for flag in flags} == {"annotator"}
    assert status["flags"] == {"broken_image": 1, "names_model": 2}


def _answers(shared_data: Path, file_name: str) -> dict[str, str]:
    path = shared_data / "wildvision-bench" / "model_answers" / file_name
    with gzip.open(path, "rt", encoding="utf-8") as lines:
        return {row["question_id"]: row["output"] for row in map(json.loads, lines)}


def test_the_detector_finds_the_wildvision_answers_that_name_their_model(
    shared_data: Path,
) -> None:
    reka = _answers(shared_data, "Reka-Flash.jsonl.gz")
    idefics = _answers(shared_data, "idefics2-8b-chatty.jsonl.gz")
    gpt = _answers(shared_data, "gpt-4o.jsonl.gz")
    found = {qid: names_its_model(text) for qid, text in reka.items() if names_its_model(text)}
    assert {mention.phrase for mention in found.values() if mention} == {"I am Yasa"}
    assert any("created by Reka" in reka[qid] for qid in found)
    flagged = [names_its_model(text) for text in idefics.values()]
    assert [mention.phrase for mention in flagged if mention] == ["I'm Idefics2"]
    # none of gpt-4o's 500 answers introduces itself, though many name other things
    assert not any(names_its_model(text) for text in gpt.values())
    assert names_its_model("I am an AI assistant and cannot see faces.") is None
    assert names_its_model("A painting by Claude Monet.") is None


def test_the_wildvision_import_flags_the_answers_that_name_their_model(
    full_bundle: Path,
) -> None:
    with Bundle.open(full_bundle) as bundle, bundle.read_session() as read:
        flagged = read.execute(
            select(Model.name, Flag.note)
            .join(Model, Model.id == Flag.model_id)
            .where(Flag.origin == "detector")
        ).all()
    assert sorted(flagged) == [
        ("Reka-Flash", "I am Yasa"),
        ("Reka-Flash", "I am Yasa"),
        ("idefics2-8b-chatty", "I'm Idefics2"),
    ]


def test_a_campaign_created_to_exclude_flagged_schedules_no_flagged_answer(
    template: Path,  # noqa: F811
    tmp_path: Path,
) -> None:
    from workbench.services.campaigns import CampaignSpec, create_campaign
    from workbench.services.flags import add_flag
    from workbench.storage.models import Item, ScheduledPair

    path = tmp_path / "b.wbb"
    path.write_bytes(template.read_bytes())
    with Bundle.open(path) as bundle:
        with bundle.session() as session:
            items = list(session.scalars(select(Item).order_by(Item.external_id)))
            model = session.scalars(select(Model).where(Model.name == MODELS[0])).one()
            add_flag(
                session,
                item_id=items[0].id,
                model_id=model.id,
                reason="names_model",
                note="I am alphavision",
                origin="detector",
            )
            add_flag(
                session,
                item_id=items[1].id,
                model_id=None,
                reason="broken_image",
                note="",
                origin="annotator",
            )
            flagged_answer, flagged_item, model_id = items[0].id, items[1].id, model.id
        summaries = {
            exclude: create_campaign(
                bundle,
                CampaignSpec(
                    f"c-{exclude}", "arena-battle", models=list(MODELS), exclude_flagged=exclude
                ),
                PLUGINS,
            )
            for exclude in (False, True)
        }
        with bundle.read_session() as read:
            scheduled = {
                name: read.execute(
                    select(
                        ScheduledPair.item_id,
                        ScheduledPair.left_model_id,
                        ScheduledPair.right_model_id,
                    )
                    .join(Campaign, Campaign.id == ScheduledPair.campaign_id)
                    .where(Campaign.name == name)
                ).all()
                for name in ("c-False", "c-True")
            }

    def touches_a_flag(row: tuple[int, int | None, int | None]) -> bool:
        item_id, left, right = row
        return item_id == flagged_item or (item_id == flagged_answer and model_id in (left, right))

    assert any(touches_a_flag(row) for row in scheduled["c-False"])
    assert scheduled["c-True"] and not any(touches_a_flag(row) for row in scheduled["c-True"])
    # the flagged item's four answers and the one flagged answer
    assert summaries[True].left_out_flagged == 5 and summaries[False].left_out_flagged == 0
    assert summaries[True].tasks == summaries[False].tasks - 6 - 3
