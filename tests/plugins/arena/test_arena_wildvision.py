"""The wildvision-bench importer on the published release: every count is computed here from
the raw files (json/pandas), then compared with what landed in the bundle."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from sqlalchemy import select
from sqlalchemy.orm import aliased
from workbench_arena.wildvision import BATTLES_RATER, DEFAULT_BASELINE, NotAWildVisionFolderError

from tests.shared_builds import copy_of
from workbench.importers.base import ImportRejectedError
from workbench.services.importing import ImportResult, import_files
from workbench.storage import Bundle
from workbench.storage.models import (
    Import,
    Item,
    ItemImage,
    Model,
    Output,
    PriorJudgment,
    Turn,
)
from workbench.storage.queries import bundle_counts

from .arena_data import RawGame, sha256

LABELS = ("A>>B", "A>B", "A=B", "B>A", "B>>A")
BRACKETED = re.compile(r"\[\[([AB<>=]+)\]\]")
WINNER_OUTCOME = {"model_a": "a", "model_b": "b", "tie": "tie"}

pytestmark = pytest.mark.shared_data

#: A judgment as the tests read it back: (model_a name, model_b name, (question id, row)).
Stored = tuple[str, str, tuple[str, PriorJudgment]]


@pytest.fixture(scope="module")
def imported(wildvision_import: tuple[Path, ImportResult]) -> tuple[Path, ImportResult]:
    """The run's one import of ``wildvision_dir`` (the same folder, the same importer) and its
    report: read-only."""
    return wildvision_import


@pytest.fixture(scope="module")
def bundle(imported: tuple[Path, ImportResult]) -> Path:
    return imported[0]


@pytest.fixture(scope="module")
def stored(bundle: Path) -> list[Stored]:
    return judge_rows(bundle)


def judge_rows(bundle: Path) -> list[Stored]:
    """Every judgment with its models' names and its item's question id."""
    model_a, model_b = aliased(Model), aliased(Model)
    with Bundle.open(bundle) as opened, opened.read_session() as session:
        rows = session.execute(
            select(model_a.name, model_b.name, Item.external_id, PriorJudgment)
            .join(model_a, PriorJudgment.model_a_id == model_a.id)
            .join(model_b, PriorJudgment.model_b_id == model_b.id)
            .join(Item, PriorJudgment.item_id == Item.id)
        ).all()
        session.expunge_all()
    return [(a, b, (question, judgment)) for a, b, question, judgment in rows]


def unparseable(games: list[RawGame]) -> list[RawGame]:
    return [game for game in games if game.score not in LABELS]


def recoverable_label(game: RawGame) -> str | None:
    found = set(BRACKETED.findall(game.text or ""))
    return found.pop() if len(found) == 1 and next(iter(found)) in LABELS else None


def test_counts_match_the_raw_files(
    bundle: Path,
    raw_answers: pd.DataFrame,
    raw_games: list[RawGame],
    raw_battles: pd.DataFrame,
) -> None:
    with Bundle.open(bundle) as opened, opened.read_session() as session:
        counts = bundle_counts(session)
    per_source = counts["sources"]["wildvision-bench"]
    assert per_source["items"] == raw_answers["question_id"].nunique()
    assert per_source["turns"] == raw_answers["question_id"].nunique()
    assert per_source["outputs"] == len(raw_answers)
    assert per_source["models"] == raw_answers["model"].nunique()
    assert per_source["judgments"] == len(raw_games) + len(raw_battles)
    assert per_source["image_slots"] == per_source["images_missing"] == per_source["items"]
    assert counts["totals"]["images_stored"] == 0
    assert counts["totals"]["models"] == raw_answers["model"].nunique()


def test_model_names_are_the_rows_names_everywhere(
    bundle: Path, raw_answers: pd.DataFrame, raw_games: list[RawGame], raw_battles: pd.DataFrame
) -> None:
    """Files are named after the model with "/" made "_"; the rows, the judgments and the
    battles all use the real name ("liuhaotian/llava-v1.6-34b"), and so does the bundle."""
    named_in_rows = set(raw_answers["model"])
    assert {stem.replace("_", "/") for stem in raw_answers["file_stem"]} != named_in_rows
    assert all(
        model.replace("/", "_") == stem
        for model, stem in raw_answers[["model", "file_stem"]].itertuples(index=False)
    )
    assert {game.model for game in raw_games} <= named_in_rows
    assert set(raw_battles["model_a"]) | set(raw_battles["model_b"]) <= named_in_rows
    with Bundle.open(bundle) as opened, opened.read_session() as session:
        stored: dict[str, Any] = dict(session.execute(select(Model.name, Model.metadata_)).all())
    assert set(stored) == named_in_rows
    stems = dict(raw_answers[["model", "file_stem"]].drop_duplicates().itertuples(index=False))
    assert {name: meta["wildvision_file"] for name, meta in stored.items()} == stems


def test_items_hold_the_instruction_language_and_the_image_hash_of_the_judge_prompts(
    bundle: Path, raw_answers: pd.DataFrame, raw_games: list[RawGame]
) -> None:
    first = raw_answers.drop_duplicates("question_id").set_index("question_id")
    hashes = {game.question_id: game.images[0] for game in raw_games if game.images}
    with Bundle.open(bundle) as opened, opened.read_session() as session:
        rows = session.execute(
            select(Item.external_id, Item.language, Turn.prompt, ItemImage.original_ref)
            .join(Turn, Turn.item_id == Item.id)
            .join(ItemImage, ItemImage.item_id == Item.id)
            .where(ItemImage.image_id.is_(None), ItemImage.position == 0)
        ).all()
    assert len(rows) == len(first)
    for question_id, language, prompt, reference in rows:
        assert prompt == first.loc[question_id, "instruction"]
        assert language == first.loc[question_id, "language"]
        assert reference == hashes.get(question_id, f"wildvision:{question_id}")


def test_outputs_carry_their_text_and_token_length(bundle: Path, raw_answers: pd.DataFrame) -> None:
    with Bundle.open(bundle) as opened, opened.read_session() as session:
        rows = session.execute(
            select(Item.external_id, Model.name, Output.text, Output.metadata_)
            .join(Turn, Output.turn_id == Turn.id)
            .join(Item, Turn.item_id == Item.id)
            .join(Model, Output.model_id == Model.id)
        ).all()
    stored = {(q, m): (text, meta["token_len"]) for q, m, text, meta in rows}
    expected = {
        (q, m): (text, n)
        for q, m, text, n in raw_answers[
            ["question_id", "model", "output", "token_len"]
        ].itertuples(index=False)
    }
    assert stored == expected


def test_each_published_label_lands_as_often_as_in_the_files(
    stored: list[Stored], raw_games: list[RawGame]
) -> None:
    judge = {game.judge for game in raw_games}
    expected = Counter(game.score for game in raw_games if game.score in LABELS)
    expected.update(filter(None, (recoverable_label(game) for game in unparseable(raw_games))))
    labels = Counter(j.label for _, _, (_, j) in stored if j.rater in judge and j.label)
    assert labels == expected


def test_outcomes_strengths_and_sides_follow_the_labels(
    stored: list[Stored], raw_games: list[RawGame]
) -> None:
    judges = {game.judge for game in raw_games}
    by_key = {(g.question_id, g.model): g for g in raw_games}
    rows = [(a, b, q, j) for a, b, (q, j) in stored if j.rater in judges]
    assert len(rows) == len(raw_games)
    for model_a, model_b, question_id, judgment in rows:
        game = by_key[(question_id, model_b)]
        assert model_a == DEFAULT_BASELINE  # Assistant A is the baseline in every game
        assert judgment.kind == "judge" and judgment.criterion == "overall"
        assert judgment.raw_text == game.text
        assert judgment.metadata_.get("image") == (game.images[0] if game.images else None)
        assert "user_prompt" not in judgment.metadata_
        label = judgment.label
        if label is None:
            assert judgment.outcome is None
            continue
        side = {"A": "a", "B": "b"}[label[0]] if "=" not in label else "tie"
        assert (judgment.outcome, judgment.strength) == (side, 2 if ">>" in label else 1)


def test_unreadable_scores_are_the_readme_ones_kept_reported_and_marked(
    imported: tuple[Path, ImportResult],
    stored: list[Stored],
    raw_games: list[RawGame],
    shared_data: Path,
) -> None:
    _, result = imported
    readme = (shared_data / "README.md").read_text(encoding="utf-8")
    said = re.search(r"(\d+) are null or empty and (\d+) hold free text", readme)
    assert said is not None
    bad = unparseable(raw_games)
    null_or_empty = [g for g in bad if g.score is None or not str(g.score).strip()]
    free_text = [g for g in bad if g.score is not None and str(g.score).strip()]
    assert (len(null_or_empty), len(free_text)) == (int(said[1]), int(said[2]))

    recovered = [g for g in bad if recoverable_label(g) is not None]
    judgments = [j for _, _, (_, j) in stored if "score_problem" in j.metadata_]
    problems = Counter(j.metadata_["score_problem"] for j in judgments)
    assert problems["null"] + problems["empty"] == len(null_or_empty)
    assert problems["free_text"] == len(free_text)
    assert sum(bool(j.metadata_.get("recovered_from_text")) for j in judgments) == len(recovered)
    assert sum(j.outcome is None for j in judgments) == len(bad) - len(recovered)
    # This release's judge texts give no label for any of them, so none can be recovered.
    assert recovered == []

    warned = {(w.file, w.row) for w in result.warnings if w.field == "games[0].score"}
    assert warned == {(g.file, g.row) for g in bad}


def test_judge_failures_and_labels_missing_from_the_text_are_marked(
    imported: tuple[Path, ImportResult], stored: list[Stored], raw_games: list[RawGame]
) -> None:
    _, result = imported
    failed = [g for g in raw_games if g.text and set(g.text.split()) == {"$ERROR$"}]
    unlabeled = [
        g
        for g in raw_games
        if g.score in LABELS
        and g.text not in {f.text for f in failed}
        and not BRACKETED.search(g.text or "")
    ]
    judgments = [j for _, _, (_, j) in stored]
    assert sum(bool(j.metadata_.get("judge_error")) for j in judgments) == len(failed)
    assert sum(bool(j.metadata_.get("label_not_in_text")) for j in judgments) == len(unlabeled)
    summaries = [w.reason for w in result.warnings if w.row is None]
    assert any(reason.startswith(f"{len(failed)} judgments hold only") for reason in summaries)
    assert any(f"{len(unlabeled)} other published scores" in reason for reason in summaries)


def test_battles_keep_every_published_outcome(
    stored: list[Stored], raw_battles: pd.DataFrame
) -> None:
    expected = (
        raw_battles.assign(outcome=raw_battles["winner"].map(WINNER_OUTCOME))
        .value_counts(["question_id", "model_a", "model_b", "outcome"])
        .to_dict()
    )
    battles = [(q, a, b, j) for a, b, (q, j) in stored if j.rater == BATTLES_RATER]
    assert Counter((q, a, b, j.outcome) for q, a, b, j in battles) == expected
    assert all(j.kind == "judge" and j.metadata_ == {"derived": "battles"} for *_, j in battles)
    assert Counter(j.label for *_, j in battles) == Counter(raw_battles["winner"])


def test_missing_images_are_reported_once(
    imported: tuple[Path, ImportResult], raw_answers: pd.DataFrame
) -> None:
    _, result = imported
    about_images = [w for w in result.warnings if w.field == "images"]
    assert len(about_images) == 1
    assert about_images[0].reason.startswith(f"{raw_answers['question_id'].nunique()} items")


def test_provenance_lists_exactly_the_data_files(bundle: Path, wildvision_dir: Path) -> None:
    data_files = [
        *sorted((wildvision_dir / "model_answers").glob("*.jsonl.gz")),
        *sorted((wildvision_dir / "model_judgements").glob("*.jsonl.gz")),
        wildvision_dir / "vision_bench_battles.jsonl.gz",
    ]
    with Bundle.open(bundle) as opened, opened.read_session() as session:
        stored = [(f.file_name, f.sha256) for f in session.scalars(select(Import)).one().files]
    # Compared by content and file name, whether the service records names with their folder
    # (model_answers/aria.jsonl.gz) or without.
    assert sorted((Path(name).name, digest) for name, digest in stored) == sorted(
        (path.name, sha256(path)) for path in data_files
    )
    assert not {"bootstrapping_results.jsonl", "elo_leaderboard.md", "LICENSE"} & {
        name for name, _ in stored
    }


def test_importing_the_release_again_is_a_no_op(
    bundle: Path, wildvision_dir: Path, tmp_path: Path
) -> None:
    again = import_files(copy_of(bundle, tmp_path), [wildvision_dir], "wildvision-bench")
    assert again.already_imported


# --- small synthetic release folders (written to tmp_path) for what the real one lacks ---------


def write_release(folder: Path, answers: list[Any], judgments: list[Any]) -> Path:
    (folder / "model_answers").mkdir(parents=True)
    (folder / "model_judgements").mkdir()
    (folder / "model_answers" / "org_m.jsonl").write_text(
        "".join(line if isinstance(line, str) else json.dumps(line) + "\n" for line in answers)
    )
    (folder / "model_judgements" / "org_m.jsonl").write_text(
        "".join(json.dumps(line) + "\n" for line in judgments)
    )
    return folder


def answer(question_id: str = "q1", **overrides: object) -> dict[str, Any]:
    row = {
        "question_id": question_id,
        "instruction": "What is shown?",
        "output": "A cat.",
        "model": "org/m",
        "language": "English",
        "token_len": 3,
    }
    return {**row, **overrides}


def judgment(score: object, text: str, question_id: str = "q1") -> dict[str, Any]:
    prompt = [{"type": "text", "text": "..."}, {"type": "image", "image": "ab" * 32}]
    game = {"user_prompt": prompt, "judgment": text, "score": score}
    return {"question_id": question_id, "model": "org/m", "judge": "gpt-4o", "games": [game]}


def test_a_verdict_is_recovered_from_the_text_when_the_score_is_missing(tmp_path: Path) -> None:
    folder = write_release(
        tmp_path / "release",
        [answer("q1"), answer("q2")],
        [
            judgment(None, "Reasoning...\nMy final verdict is: [[B>>A]]", "q1"),
            judgment("", "Example [[A=B]] then [[A>B]]", "q2"),  # two labels: no verdict
        ],
    )
    result = import_files(tmp_path / "b.wbb", [folder], "wildvision-bench")
    rows = {q: j for _, _, (q, j) in judge_rows(tmp_path / "b.wbb")}
    assert (rows["q1"].outcome, rows["q1"].strength, rows["q1"].label) == ("b", 2, "B>>A")
    assert rows["q1"].metadata_["recovered_from_text"] is True
    assert rows["q2"].outcome is None and "recovered_from_text" not in rows["q2"].metadata_
    assert rows["q1"].metadata_["image"] == "ab" * 32
    assert {(w.row, w.field) for w in result.warnings if w.row} == {
        (1, "games[0].score"),
        (2, "games[0].score"),
    }


def test_a_bad_answer_row_rejects_the_import_with_file_row_and_field(tmp_path: Path) -> None:
    folder = write_release(
        tmp_path / "release",
        [answer("q1"), answer("q2", token_len="three"), "{not json\n", answer("q4", model=None)],
        [],
    )
    with pytest.raises(ImportRejectedError) as caught:
        import_files(tmp_path / "b.wbb", [folder], "wildvision-bench")
    found = {(p.file, p.row, p.field) for p in caught.value.problems}
    name = str(Path("model_answers") / "org_m.jsonl")
    assert found == {(name, 2, "token_len"), (name, 3, None), (name, 4, "model")}
    assert not (tmp_path / "b.wbb").exists()


def test_a_file_instead_of_the_release_folder_is_refused(tmp_path: Path) -> None:
    lonely = tmp_path / "answers.jsonl"
    lonely.write_text(json.dumps(answer()) + "\n")
    with pytest.raises(NotAWildVisionFolderError, match="not a folder"):
        import_files(tmp_path / "b.wbb", [lonely], "wildvision-bench")
    with pytest.raises(NotAWildVisionFolderError, match="no WildVision-Bench data"):
        import_files(tmp_path / "b.wbb", [tmp_path], "wildvision-bench")
