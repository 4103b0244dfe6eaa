"""The arena-battles importer: FastChat-style battle files (JSON list or JSONL), from the real
WildVision battles and from small synthetic conversations written to tmp_path."""

from __future__ import annotations

import base64
import gzip
import io
import json
from collections import Counter
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from PIL import Image
from sqlalchemy import select
from sqlalchemy.orm import aliased

from workbench.importers.base import ImportRejectedError
from workbench.services.importing import import_files
from workbench.storage import Bundle
from workbench.storage.models import Item, ItemImage, Model, Output, PriorJudgment, Turn
from workbench.storage.queries import bundle_counts

from .arena_data import sha256

WINNER_OUTCOME = {"model_a": "a", "model_b": "b", "tie": "tie", "tie (bothbad)": "both_bad"}


def stored_battles(bundle: Path) -> list[tuple[str, str, str | None, PriorJudgment]]:
    model_a, model_b = aliased(Model), aliased(Model)
    with Bundle.open(bundle) as opened, opened.read_session() as session:
        rows = session.execute(
            select(model_a.name, model_b.name, Item.external_id, PriorJudgment)
            .join(model_a, PriorJudgment.model_a_id == model_a.id)
            .join(model_b, PriorJudgment.model_b_id == model_b.id)
            .outerjoin(Item, PriorJudgment.item_id == Item.id)
        ).all()
        session.expunge_all()
    return [(a, b, item, judgment) for a, b, item, judgment in rows]


def write_battles(path: Path, battles: list[Any], *, as_list: bool) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if as_list:
        path.write_text(json.dumps(battles, indent=2), encoding="utf-8")
    else:
        path.write_text("".join(json.dumps(b) + "\n" for b in battles), encoding="utf-8")
    return path


# --- the real WildVision battles, as FastChat battle files --------------------------------------


@pytest.mark.shared_data
@pytest.mark.parametrize("layout", ["battles.jsonl", "battles.json.gz"])
def test_real_battles_import_with_the_published_outcome_counts(
    layout: str, raw_battles: pd.DataFrame, tmp_path: Path
) -> None:
    # FastChat's clean_battle_data.py keys; the rows already use them.
    battles = raw_battles[["question_id", "model_a", "model_b", "winner"]].to_dict("records")
    as_list = ".json." in layout or layout.endswith(".json")
    source = write_battles(tmp_path / "src" / "battles", battles, as_list=as_list)
    source = source.rename(source.with_name(layout))
    if layout.endswith(".gz"):
        source.write_bytes(gzip.compress(source.read_bytes()))

    result = import_files(tmp_path / "b.wbb", [source], "arena-battles")

    assert result.counts["judgments_added"] == len(raw_battles)
    assert result.counts["judgments_human"] == len(raw_battles)  # no judge key: arena votes
    rows = stored_battles(tmp_path / "b.wbb")
    expected = (
        raw_battles.assign(outcome=raw_battles["winner"].map(WINNER_OUTCOME))
        .value_counts(["model_a", "model_b", "outcome"])
        .to_dict()
    )
    assert Counter((a, b, j.outcome) for a, b, _, j in rows) == expected
    assert all(item is None for _, _, item, _ in rows)
    assert Counter(j.metadata_["question_id"] for *_, j in rows) == Counter(
        raw_battles["question_id"]
    )
    with Bundle.open(tmp_path / "b.wbb") as opened, opened.read_session() as session:
        totals = bundle_counts(session)["totals"]
    assert totals["judgments_without_item"] == len(raw_battles)
    assert totals["models"] == len(set(raw_battles["model_a"]) | set(raw_battles["model_b"]))


# --- synthetic conversations -------------------------------------------------------------------


def png_data_url() -> str:
    buffer = io.BytesIO()
    Image.new("RGB", (6, 4), "blue").save(buffer, "PNG")
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode()


def conversation(*turns: tuple[Any, str | None]) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = []
    for prompt, answer in turns:
        messages.append({"role": "user", "content": prompt})
        if answer is not None:
            messages.append({"role": "assistant", "content": answer})
    return messages


def battle(model_a: str, model_b: object, winner: str, **extra: Any) -> dict[str, Any]:
    return {"model_a": model_a, "model_b": model_b, "winner": winner, **extra}


@pytest.fixture
def conversation_battles(tmp_path: Path) -> tuple[Path, list[dict[str, Any]]]:
    (tmp_path / "src" / "pics").mkdir(parents=True)
    Image.new("RGB", (5, 5), "grey").save(tmp_path / "src" / "pics" / "cat-2.png")
    second_prompt = [
        {"type": "text", "text": "Which colour?"},
        {"type": "image", "image": "pics/cat-2.png"},
    ]
    first_prompt = [
        {"type": "text", "text": "What animal is this?"},
        {"type": "image_url", "image_url": {"url": "https://example.org/cat.jpg"}},
    ]
    battles = [
        battle(
            "vlm-a",
            "vlm-b",
            "model_a",
            question_id="c1",
            judge="arena_user_1",
            language="English",
            anony=True,
            tstamp=1718000000.5,
            turn=2,
            category_tag={"vision_v0.1": {"ocr": False, "captioning": True}},
            conversation_a=conversation((first_prompt, "A cat."), (second_prompt, "Grey.")),
            conversation_b=conversation((first_prompt, "A dog."), (second_prompt, "Brown.")),
        ),
        battle(  # the same conversation id, the first turn only, another pair of models
            "vlm-c",
            "vlm-a",
            "tie (bothbad)",
            question_id="c1",
            judge=["gpt-4o", "pair-v2"],
            conversation_a=conversation((first_prompt, "Maybe a cat.")),
            conversation_b=conversation((first_prompt, "A cat.")),
        ),
        battle(  # no question id; FastChat's (text, [images]) content with an inline image
            "vlm-b",
            "vlm-c",
            "model_b",
            conversation_a=conversation((["Read the sign.", [png_data_url()]], "STOP")),
            conversation_b=conversation((["Read the sign.", [png_data_url()]], "It says STOP.")),
        ),
        battle("vlm-a", "vlm-c", "tie", question_id="no-conversation"),
    ]
    return write_battles(tmp_path / "src" / "battles.json", battles, as_list=True), battles


def test_conversations_become_multi_turn_items_with_both_sides_answers(
    conversation_battles: tuple[Path, list[dict[str, Any]]], tmp_path: Path
) -> None:
    source, battles = conversation_battles
    result = import_files(tmp_path / "b.wbb", [source], "arena-battles")

    with Bundle.open(tmp_path / "b.wbb") as opened, opened.read_session() as session:
        turns = session.execute(
            select(Item.external_id, Turn.index, Turn.prompt).join(Turn, Turn.item_id == Item.id)
        ).all()
        outputs = session.execute(
            select(Item.external_id, Turn.index, Model.name, Output.text)
            .join(Turn, Output.turn_id == Turn.id)
            .join(Item, Turn.item_id == Item.id)
            .join(Model, Output.model_id == Model.id)
        ).all()
        images = session.execute(
            select(
                Item.external_id, ItemImage.position, ItemImage.original_ref, ItemImage.image_id
            ).join(Item, ItemImage.item_id == Item.id)
        ).all()
        items = {i.external_id: i for i in session.scalars(select(Item))}

    conv_id = next(ext for ext in items if ext.startswith("conv-"))
    assert set(items) == {"c1", conv_id}
    assert sorted(turns) == sorted(
        [
            ("c1", 1, "What animal is this?"),
            ("c1", 2, "Which colour?"),
            (conv_id, 1, "Read the sign."),
        ]
    )
    assert sorted(outputs) == sorted(
        [
            ("c1", 1, "vlm-a", "A cat."),
            ("c1", 2, "vlm-a", "Grey."),
            ("c1", 1, "vlm-b", "A dog."),
            ("c1", 2, "vlm-b", "Brown."),
            ("c1", 1, "vlm-c", "Maybe a cat."),
            (conv_id, 1, "vlm-b", "STOP"),
            (conv_id, 1, "vlm-c", "It says STOP."),
        ]
    )
    slots = {(item, position): (ref, image_id) for item, position, ref, image_id in images}
    assert set(slots) == {("c1", 0), ("c1", 1), (conv_id, 0)}
    assert slots["c1", 0] == ("https://example.org/cat.jpg", None)  # a URL: recorded as missing
    assert slots["c1", 1][0] == "pics/cat-2.png" and slots["c1", 1][1] is not None  # beside it
    assert slots[conv_id, 0][1] is not None  # the data URL's picture is stored
    assert items["c1"].language == "English"
    assert items["c1"].metadata_["image_turns"] == [1, 2]
    assert items["c1"].metadata_["category_tag"] == battles[0]["category_tag"]
    assert [w.field for w in result.warnings] == ["images"]

    judged = {(a, b): (item, j) for a, b, item, j in stored_battles(tmp_path / "b.wbb")}
    item, vote = judged[("vlm-a", "vlm-b")]
    assert (item, vote.kind, vote.rater, vote.outcome, vote.label) == (
        "c1",
        "human",
        "arena_user_1",
        "a",
        "model_a",
    )
    assert vote.metadata_ == {
        "language": "English",
        "tstamp": 1718000000.5,
        "anony": True,
        "turn": 2,
        "category_tag": battles[0]["category_tag"],
        "question_id": "c1",
        "conversation_turns": 2,
    }
    item, verdict = judged[("vlm-c", "vlm-a")]
    assert (item, verdict.kind, verdict.rater, verdict.outcome) == (
        "c1",
        "judge",
        "gpt-4o",
        "both_bad",
    )
    assert verdict.metadata_["judge_prompt"] == "pair-v2"
    assert verdict.metadata_["conversation_turns"] == 1  # this vote saw the first turn only
    assert judged[("vlm-b", "vlm-c")][0] == conv_id
    item, plain = judged[("vlm-a", "vlm-c")]
    assert item is None and plain.metadata_ == {"question_id": "no-conversation"}


def test_a_vote_with_its_question_id_alone_keeps_the_id_as_given(tmp_path: Path) -> None:
    source = write_battles(
        tmp_path / "src" / "b.jsonl",
        [
            battle("m1", "m2", "model_a", question_id=7),
            battle("m1", "m2", "tie", question_id="q-2"),
            battle("m1", "m2", "model_b", question_id=None),
            battle("m2", "m1", "model_b"),
        ],
        as_list=False,
    )
    import_files(tmp_path / "b.wbb", [source], "arena-battles")
    stored = sorted(stored_battles(tmp_path / "b.wbb"), key=lambda row: row[3].id)
    assert [(judgment.outcome, judgment.metadata_) for *_, judgment in stored] == [
        ("a", {"question_id": 7}),
        ("tie", {"question_id": "q-2"}),
        ("b", {}),
        ("b", {}),
    ]
    assert all(item is None and judgment.rater is None for _, _, item, judgment in stored)


def test_the_same_conversation_without_a_question_id_is_one_item(tmp_path: Path) -> None:
    turns = conversation(("Describe the chart.", "Bars."))
    again = conversation(("Describe the chart.", "Bars."))
    source = write_battles(
        tmp_path / "src" / "b.jsonl",
        [
            battle("m1", "m2", "model_a", conversation_a=turns, conversation_b=again),
            battle("m1", "m3", "model_b", conversation_a=turns, conversation_b=again),
        ],
        as_list=False,
    )
    result = import_files(tmp_path / "b.wbb", [source], "arena-battles")
    assert result.counts["items_added"] == 1
    assert result.counts["outputs_added"] == 3


# --- rejection ---------------------------------------------------------------------------------


def test_bad_lines_are_rejected_by_file_line_and_field_and_the_bundle_is_untouched(
    conversation_battles: tuple[Path, list[dict[str, Any]]], tmp_path: Path
) -> None:
    bundle = tmp_path / "b.wbb"
    import_files(bundle, [conversation_battles[0]], "arena-battles")
    before = sha256(bundle)

    good = json.dumps(battle("m1", "m2", "tie"))
    lines = [
        good,  # 1
        "{this is not json",  # 2
        json.dumps({"model_a": "m1", "winner": "tie"}),  # 3: model_b missing
        json.dumps(battle("m1", "m2", "draw")),  # 4: unknown winner
        json.dumps(battle("m1", 7, "tie")),  # 5: wrong type
        json.dumps(battle("m1", "m2", "tie", anony="yes")),  # 6: wrong type
        json.dumps(battle("m1", "m2", "tie", judge=42)),  # 7: neither person nor judge
        json.dumps(  # 8: an assistant message with no user message before it
            battle(
                "m1",
                "m2",
                "tie",
                conversation_a=[{"role": "assistant", "content": "hi"}],
                conversation_b=conversation(("hello", "hi")),
            )
        ),
        json.dumps(battle("m1", "m2", "tie", conversation_a=conversation(("q", "a")))),  # 9
        json.dumps(  # 10: an image path that leaves the folder
            battle(
                "m1",
                "m2",
                "tie",
                conversation_a=conversation((["look", ["../secret.png"]], "ok")),
                conversation_b=conversation((["look", ["../secret.png"]], "ok")),
            )
        ),
        json.dumps(["not", "an", "object"]),  # 11
        json.dumps(  # 12: a role that is not user/assistant/system
            battle(
                "m1",
                "m2",
                "tie",
                conversation_a=[{"role": "robot", "content": "x"}],
                conversation_b=conversation(("x", "y")),
            )
        ),
        json.dumps(battle("m1", "m2", "tie", question_id=True)),  # 13: a battle log's shape
        json.dumps(battle("m1", "m2", "tie", question_id=1.5)),  # 14
    ]
    bad = tmp_path / "bad" / "battles.jsonl"
    bad.parent.mkdir()
    bad.write_text("\n".join(lines) + "\n", encoding="utf-8")

    with pytest.raises(ImportRejectedError) as caught:
        import_files(bundle, [bad], "arena-battles")

    found = {(p.file, p.row, p.field) for p in caught.value.problems}
    assert found == {
        ("battles.jsonl", 2, None),
        ("battles.jsonl", 3, "model_b"),
        ("battles.jsonl", 4, "winner"),
        ("battles.jsonl", 5, "model_b"),
        ("battles.jsonl", 6, "anony"),
        ("battles.jsonl", 7, "judge"),
        ("battles.jsonl", 8, "conversation_a[0].role"),
        ("battles.jsonl", 9, "conversation_b"),
        ("battles.jsonl", 10, "conversation_a"),
        ("battles.jsonl", 11, None),
        ("battles.jsonl", 12, "conversation_a[0].role"),
        ("battles.jsonl", 13, "question_id"),
        ("battles.jsonl", 14, "question_id"),
    }
    assert "battles.jsonl, row 4, field 'winner'" in str(caught.value)
    assert sha256(bundle) == before


def test_a_bad_element_of_a_json_list_is_named_by_its_position(tmp_path: Path) -> None:
    source = write_battles(
        tmp_path / "src" / "battles.json",
        [battle("m1", "m2", "tie"), battle("m1", "m2", "model_c")],
        as_list=True,
    )
    with pytest.raises(ImportRejectedError) as caught:
        import_files(tmp_path / "b.wbb", [source], "arena-battles")
    assert [(p.row, p.field) for p in caught.value.problems] == [(2, "winner")]
    assert not (tmp_path / "b.wbb").exists()


def test_conflicting_answers_of_one_model_to_one_turn_are_rejected(tmp_path: Path) -> None:
    source = write_battles(
        tmp_path / "src" / "b.jsonl",
        [
            battle(
                "m1",
                "m2",
                "tie",
                question_id="q",
                conversation_a=conversation(("hi", "hello")),
                conversation_b=conversation(("hi", "hey")),
            ),
            battle(
                "m1",
                "m3",
                "tie",
                question_id="q",
                conversation_a=conversation(("hi", "something else")),
                conversation_b=conversation(("hi", "hey")),
            ),
            battle(
                "m1",
                "m3",
                "tie",
                question_id="q",
                conversation_a=conversation(("another question", "x")),
                conversation_b=conversation(("another question", "y")),
            ),
        ],
        as_list=False,
    )
    with pytest.raises(ImportRejectedError) as caught:
        import_files(tmp_path / "b.wbb", [source], "arena-battles")
    assert [(p.row, p.field) for p in caught.value.problems] == [
        (2, "conversation_a"),
        (3, "conversation_a"),
    ]
