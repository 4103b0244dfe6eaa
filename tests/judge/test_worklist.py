"""What a run judges: pairs from models or a campaign, against an anchor or the reference (on
the side the item's metadata fixes), single outputs for grading templates; and how the verdicts
of each are stored."""

from __future__ import annotations

import base64
import dataclasses
import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from workbench_arena.judge_templates import ANCHORED_FIVE_LEVEL
from workbench_convbench.judge_templates import DIRECT, PAIRWISE
from workbench_visit_bench.judge_templates import REFERENCE_BACKED, REFERENCE_FREE

from tests.importers.canonical_helpers import png_bytes, write_jsonl
from tests.judge.fake_openai_server import FakeOpenAIServer, message_text
from tests.judge.helpers import build_bundle, judge_item
from tests.judge.judging import judge, settings_for
from tests.services.campaign_helpers import registry_with_all_protocols
from workbench.services.campaigns import CampaignSpec, create_campaign
from workbench.services.importing import import_files
from workbench.services.judging.runner import plan_run
from workbench.services.judging.worklist import REFERENCE, JudgeScope, WorkListError
from workbench.storage import Bundle


def rows(bundle: Path, sql: str) -> list[tuple[Any, ...]]:
    with sqlite3.connect(bundle) as connection:
        return connection.execute(sql).fetchall()


@pytest.fixture(scope="module")
def conversations(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Four three-turn conversations; ConvBench's side fixed 0, 1, 0, 1."""
    return build_bundle(
        tmp_path_factory.mktemp("conversations"),
        4,
        turns=3,
        metadata=[{"pairwise_model_side": n % 2} for n in range(4)],
    )


@pytest.fixture
def server() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer(keep_bodies=True) as running:
        yield running


def copy_of(bundle: Path, folder: Path) -> Path:
    target = folder / "copy.wbb"
    target.write_bytes(bundle.read_bytes())
    return target


def sent_user_texts(server: FakeOpenAIServer) -> list[str]:
    return [message_text(json.loads(body)["messages"], "user") for body in server.stats.bodies]


def test_reference_side_follows_the_item_metadata(
    conversations: Path, server: FakeOpenAIServer, tmp_path: Path
) -> None:
    bundle = copy_of(conversations, tmp_path)
    server.responder = lambda _m: "Turn 1: [[A]]\nTurn 2: [[A]]\nTurn 3: [[B]]\nOverall: [[A]]"
    selection = JudgeScope(models=("model-one",), swap=False)
    settings = settings_for(server, PAIRWISE, selection=selection)
    plan, summary = judge(bundle, settings, PAIRWISE)
    sides = {p.unit.case.external_id: (p.unit.side_a, p.unit.side_b) for p in plan.pending}
    assert sides == {
        "q0000": ("model-one", REFERENCE),
        "q0001": (REFERENCE, "model-one"),
        "q0002": ("model-one", REFERENCE),
        "q0003": (REFERENCE, "model-one"),
    }
    sent = sent_user_texts(server)
    texts = {
        key: next(text for text in sent if f"about {key}?" in text) for key in ("q0000", "q0001")
    }
    assert (
        "=== Assistant A ===\n[Turn 1]\nInstruction: Question 1 about q0000?\nAnswer: "
        "model-one answers 1 on q0000." in texts["q0000"]
    )
    assert (
        "=== Assistant A ===\n[Turn 1]\nInstruction: Question 1 about q0001?\nAnswer: "
        "Reference 1 for q0001." in texts["q0001"]
    )
    assert summary.progress.verdicts == 16
    stored = rows(
        bundle,
        "SELECT items.external_id, turn_index, outcome, label, model_b_id, prompt_tokens "
        "FROM judge_verdicts JOIN items ON items.id = item_id ORDER BY judge_verdicts.id",
    )
    by_item: dict[str, dict[int | None, tuple[Any, ...]]] = {}
    for external_id, turn, outcome, label, model_b, tokens in stored:
        assert model_b is None
        by_item.setdefault(external_id, {})[turn] = (outcome, label, tokens)
    # the judge said A, A, B and A overall; stored from the model's side
    assert [by_item["q0000"][t][0] for t in (1, 2, 3, None)] == ["a", "a", "b", "a"]
    assert [by_item["q0001"][t][0] for t in (1, 2, 3, None)] == ["b", "b", "a", "b"]
    assert by_item["q0000"][1][1] == "A [reference as B]"
    assert by_item["q0001"][1][1] == "A [reference as A]"
    # one call's tokens are on its first row only
    assert sorted(tokens for _, _, tokens in by_item["q0000"].values())[:3] == [0, 0, 0]


def test_both_orders_against_the_reference_mark_flips(
    conversations: Path, server: FakeOpenAIServer, tmp_path: Path
) -> None:
    bundle = copy_of(conversations, tmp_path)
    server.responder = lambda _m: "Turn 1: [[A]]\nTurn 2: [[B]]\nTurn 3: [[B]]\nOverall: [[A]]"
    settings = settings_for(server, PAIRWISE, selection=JudgeScope(models=("model-one",)))
    _, summary = judge(bundle, settings, PAIRWISE)
    # 4 conversations x (3 turns + overall), each judged in both orders; a fixed-position
    # answer flips every time
    assert summary.compared_in_both_orders == 16 and summary.position_flips == 16


def test_direct_grading_stores_scores(
    conversations: Path, server: FakeOpenAIServer, tmp_path: Path
) -> None:
    bundle = copy_of(conversations, tmp_path)
    server.responder = lambda _m: (
        "Turn 1 score: [[8]]\nTurn 2 score: [[6]]\nTurn 3 score: [[9]]\nOverall score: [[7]]"
    )
    settings = settings_for(server, DIRECT)
    plan, summary = judge(bundle, settings, DIRECT)
    assert plan.total_units == 8  # 4 conversations x 2 models, one output each
    assert (
        "Reference answer: Reference 2 for q0000.\nAnswer to grade: model-one answers 2"
        in "\n".join(sent_user_texts(server))
    )
    scores = rows(
        bundle, "SELECT turn_index, score, outcome, model_b_id, position_flip FROM judge_verdicts"
    )
    assert len(scores) == 32
    assert {(turn, score) for turn, score, *_ in scores} == {(1, 8), (2, 6), (3, 9), (None, 7)}
    assert {tuple(rest) for _, _, *rest in scores} == {(None, None, None)}
    assert summary.compared_in_both_orders == 0


def test_anchor_pairs_show_the_anchor_as_a_and_send_images(
    tmp_path: Path, server: FakeOpenAIServer
) -> None:
    bundle = build_bundle(tmp_path, 3, models=("anchor-m", "model-one", "model-two"))
    server.responder = lambda _m: "My final verdict is: [[B>>A]]"
    selection = JudgeScope(anchor="anchor-m", swap=False)
    plan, _ = judge(
        bundle, settings_for(server, ANCHORED_FIVE_LEVEL, selection=selection), ANCHORED_FIVE_LEVEL
    )
    assert {(p.unit.side_a, p.unit.side_b) for p in plan.pending} == {
        ("anchor-m", "model-one"),
        ("anchor-m", "model-two"),
    }
    body = json.loads(server.stats.bodies[0])
    text_part, image_part = body["messages"][1]["content"]
    assert text_part["text"].startswith("<|User Prompt|>\nQuestion 1 about")
    url = image_part["image_url"]["url"]
    assert url.startswith("data:image/png;base64,")
    assert base64.b64decode(url.split(",", 1)[1]) == png_bytes()
    stored = rows(bundle, "SELECT outcome, strength, label FROM judge_verdicts")
    assert set(stored) == {("b", 2, "B>>A")}


def test_models_lacking_answers_are_skipped_with_a_reason(tmp_path: Path) -> None:
    lines = [
        judge_item("full", ("model-one", "model-two")),
        judge_item("half", ("model-one",)),
        judge_item("unanswered", ()),
    ]
    bundle = tmp_path / "b.wbb"
    import_files(bundle, [write_jsonl(tmp_path / "src", lines)], "jsonl")
    settings = settings_for(FakeOpenAIServer(), REFERENCE_FREE)
    plan = plan_run(bundle, settings, template=REFERENCE_FREE)
    assert plan.comparisons == 1
    assert plan.skipped == {
        "one of the two models did not answer this item": 1,
        "the item holds no answer from either model": 1,
    }


def test_campaign_pairs_in_their_scheduled_order(tmp_path: Path, server: FakeOpenAIServer) -> None:
    bundle = build_bundle(tmp_path, 6, models=("model-one", "model-two", "model-three"))
    with Bundle.open(bundle) as opened:
        create_campaign(
            opened,
            CampaignSpec(name="prefs", protocol="visit-bench-preference", seed=3),
            plugins=registry_with_all_protocols(),
        )
    scheduled = set(
        rows(
            bundle,
            "SELECT items.external_id, l.name, r.name FROM scheduled_pairs "
            "JOIN items ON items.id = item_id JOIN models l ON l.id = left_model_id "
            "JOIN models r ON r.id = right_model_id",
        )
    )
    settings = settings_for(server, REFERENCE_FREE, selection=JudgeScope(campaign="prefs"))
    plan = plan_run(bundle, settings, template=REFERENCE_FREE)
    first_orders = {
        (p.unit.case.external_id, p.unit.side_a, p.unit.side_b)
        for p in plan.pending
        if not p.unit.swapped
    }
    assert first_orders == scheduled
    assert len(plan.pending) == 2 * len(scheduled)
    with pytest.raises(WorkListError, match="shows pair tasks"):
        plan_run(
            bundle,
            settings_for(server, DIRECT, selection=JudgeScope(campaign="prefs")),
            template=DIRECT,
        )
    with pytest.raises(WorkListError, match="no campaign named 'other'"):
        plan_run(
            bundle,
            settings_for(server, REFERENCE_FREE, selection=JudgeScope(campaign="other")),
            template=REFERENCE_FREE,
        )


def test_selections_that_cannot_work_say_why(conversations: Path) -> None:
    server = FakeOpenAIServer()
    cases = (
        (REFERENCE_FREE, JudgeScope(models=("model-one", "nobody")), "no model named 'nobody'"),
        (REFERENCE_BACKED, JudgeScope(anchor="reference"), "shows the reference"),
        (DIRECT, JudgeScope(anchor="model-one"), "has no anchor"),
        (PAIRWISE, JudgeScope(anchor="model-one"), "compares each model with the reference"),
        (REFERENCE_FREE, JudgeScope(limit=0), "at least 1"),
    )
    for template, selection, message in cases:
        with pytest.raises(WorkListError, match=message):
            plan_run(
                conversations,
                settings_for(server, template, selection=selection),
                template=template,
            )


def test_win_rate_against_the_reference_as_anchor(conversations: Path) -> None:
    settings = settings_for(
        FakeOpenAIServer(), REFERENCE_FREE, selection=JudgeScope(anchor="reference")
    )
    plan = plan_run(conversations, settings, template=REFERENCE_FREE)
    assert {(p.unit.side_a, p.unit.side_b) for p in plan.pending if not p.unit.swapped} == {
        (REFERENCE, "model-one"),
        (REFERENCE, "model-two"),
    }


def test_a_per_turn_template_asks_about_each_turn_with_its_history(conversations: Path) -> None:
    per_turn = dataclasses.replace(REFERENCE_FREE, name="per-turn", per_turn=True)
    settings = settings_for(FakeOpenAIServer(), per_turn, selection=JudgeScope(swap=False))
    plan = plan_run(conversations, settings, template=per_turn)
    first = [p for p in plan.pending if p.unit.case.external_id == "q0000"]
    assert [(p.unit.judged_turn, p.unit.shown_turns) for p in first] == [
        (1, (1,)),
        (2, (1, 2)),
        (3, (1, 2, 3)),
    ]
    assert "Instruction:\nQuestion 2 about q0000?" in first[1].call.user
