"""The arena-hard format: Arena-Hard-Auto's question, answer and judgment files in their
published layout (data/<bench>/question.jsonl, model_answer/, model_judgment/<judge>/) and
schema, written to tmp_path."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import func, select
from sqlalchemy.orm import aliased
from workbench_arena.arena_hard import NotAnArenaHardFolderError

from workbench.services.importing import import_files
from workbench.storage import Bundle
from workbench.storage.models import Item, ItemImage, Model, Output, PriorJudgment

JUDGE = "gpt-4-1106-preview"
BASELINE = "gpt-4-0314"


def write_jsonl(path: Path, rows: list[dict[str, Any]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")


def question(question_id: str, text: str) -> dict[str, Any]:
    return {
        "question_id": question_id,
        "category": "arena-hard-v0.1",
        "cluster": "Prompt Engineering",
        "turns": [{"content": text}],
    }


def answer(question_id: str, model: str, text: str) -> dict[str, Any]:
    return {
        "question_id": question_id,
        "answer_id": f"{model}-{question_id}",
        "model_id": model,
        "choices": [{"index": 0, "turns": [{"content": text, "token_len": 3}]}],
        "tstamp": 1712000000.0,
    }


def judge_prompt(text: str, first: str, second: str) -> str:
    return (
        f"<|User Prompt|>\n{text}\n\n<|The Start of Assistant A's Answer|>\n{first}\n"
        f"<|The End of Assistant A's Answer|>\n\n<|The Start of Assistant B's Answer|>\n{second}\n"
        "<|The End of Assistant B's Answer|>"
    )


def judgment(question_id: str, model: str, text: str, scores: tuple[Any, Any]) -> dict[str, Any]:
    games = []
    for index, score in enumerate(scores):
        shown = ("base", "mine") if index == 0 else ("mine", "base")
        verdict = f"My final verdict is: [[{score}]]" if score else "My final verdict is: [[A>>B]]"
        games.append(
            {"user_prompt": judge_prompt(text, *shown), "judgment": verdict, "score": score}
        )
    return {"question_id": question_id, "model": model, "judge": JUDGE, "games": games}


def clone(root: Path, *, with_questions: bool = True, with_config: bool = True) -> Path:
    bench = root / "data" / "arena-hard-v0.1"
    if with_questions:
        write_jsonl(
            bench / "question.jsonl", [question("q1", "Write a haiku."), question("q2", "Sum 2+2.")]
        )
    write_jsonl(bench / "model_answer" / f"{BASELINE}.jsonl", [answer("q1", BASELINE, "base")])
    write_jsonl(bench / "model_answer" / "mine.jsonl", [answer("q1", "mine", "mine")])
    write_jsonl(
        bench / "model_judgment" / JUDGE / "mine.jsonl",
        [
            judgment("q1", "mine", "Write a haiku.", ("B>A", "A>B")),
            judgment("q2", "mine", "Sum 2+2.", ("A>>B", None)),  # the swapped game unscored
        ],
    )
    if with_config:
        (root / "config").mkdir(parents=True, exist_ok=True)
        (root / "config" / "judge_config.yaml").write_text(
            f"bench_name: arena-hard-v0.1\njudge_model: {JUDGE}\nbaseline: True\n"
            f"baseline_model: {BASELINE}\npairwise: True\n",
            encoding="utf-8",
        )
    return root


def games(bundle: Path) -> list[tuple[str, str, str, str | None, int, str | None, dict[str, Any]]]:
    model_a, model_b = aliased(Model), aliased(Model)
    with Bundle.open(bundle) as opened, opened.read_session() as session:
        rows = session.execute(
            select(
                Item.external_id,
                model_a.name,
                model_b.name,
                PriorJudgment.outcome,
                PriorJudgment.strength,
                PriorJudgment.group_key,
                PriorJudgment.metadata_,
            )
            .join(model_a, PriorJudgment.model_a_id == model_a.id)
            .join(model_b, PriorJudgment.model_b_id == model_b.id)
            .join(Item, PriorJudgment.item_id == Item.id)
            .where(PriorJudgment.kind == "judge")
            .order_by(PriorJudgment.id)
        ).all()
    return [tuple(row) for row in rows]


def test_a_clone_imports_text_only_items_answers_and_both_games(tmp_path: Path) -> None:
    root = clone(tmp_path / "arena-hard-auto")
    bundle = tmp_path / "ah.wbb"
    result = import_files(bundle, [root], "arena-hard")

    found = games(bundle)
    group = f"{JUDGE}|q1|mine"
    assert [row[:6] for row in found] == [
        ("q1", BASELINE, "mine", "b", 1, group),
        ("q1", "mine", BASELINE, "a", 1, group),  # the swapped game: the same preference
        ("q2", BASELINE, "mine", "a", 2, f"{JUDGE}|q2|mine"),
        ("q2", "mine", BASELINE, "a", 2, f"{JUDGE}|q2|mine"),  # read from the judgment text
    ]
    assert [row[6]["position_flip"] for row in found] == [False, True, False, True]
    assert found[3][6]["recovered_from_text"] is True
    with Bundle.open(bundle) as opened, opened.read_session() as session:
        assert session.scalar(select(func.count()).select_from(ItemImage)) == 0
        categories = session.execute(select(Item.external_id, Item.category)).all()
        assert sorted(categories) == [("q1", "arena-hard-v0.1"), ("q2", "arena-hard-v0.1")]
        assert session.scalar(select(func.count()).select_from(Output)) == 2
    assert not any(w.field == "baseline" for w in result.warnings)


def test_judgments_without_a_question_file_take_the_question_from_the_judge_prompt(
    tmp_path: Path,
) -> None:
    root = clone(tmp_path / "ah", with_questions=False, with_config=False)
    judgments = root / "data" / "arena-hard-v0.1" / "model_judgment"
    bundle = tmp_path / "ah.wbb"
    result = import_files(bundle, [judgments], "arena-hard")
    with Bundle.open(bundle) as opened, opened.read_session() as session:
        items = session.scalars(select(Item).order_by(Item.external_id)).all()
        assert [item.turns[0].prompt for item in items] == ["Write a haiku.", "Sum 2+2."]
    assert len(games(bundle)) == 4
    fields = {warning.field for warning in result.warnings}
    assert {"baseline", "question_id"} <= fields  # the default baseline, the items' origin


def test_a_folder_without_arena_hard_files_is_refused(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    with pytest.raises(NotAnArenaHardFolderError, match="no Arena-Hard-Auto data"):
        import_files(tmp_path / "b.wbb", [tmp_path / "empty"], "arena-hard")
    assert not (tmp_path / "b.wbb").exists()
