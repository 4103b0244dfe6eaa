"""The wildvision-bench format on the layouts of the WildVision-Bench repository: its data/
folder (the battles file one level above the dated release folder, judgments in
judge_<judge>_reference_<baseline>/), the root of a clone, and the battles file given apart.
The layouts are built at test time from the shared release with symlinks."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import func, select
from workbench_arena.wildvision import ReleaseFiles

from workbench.services.importing import import_files
from workbench.storage import Bundle
from workbench.storage.models import Item, Output, PriorJudgment

JUDGE_FOLDER = "judge_gpt-4o_reference_claude-3-sonnet-20240229"


def link_files(source: Path, target: Path) -> None:
    target.mkdir(parents=True, exist_ok=True)
    for path in sorted(source.iterdir()):
        (target / path.name).symlink_to(path)


def clone_layout(release: Path, root: Path) -> Path:
    """A clone of the repository: root/data/{battles file, vision_bench_0617/...}."""
    data = root / "data"
    dated = data / "vision_bench_0617"
    link_files(release / "model_answers", dated / "model_answers")
    link_files(release / "model_judgements", dated / "model_judgements" / JUDGE_FOLDER)
    (data / "vision_bench_battles.jsonl.gz").symlink_to(release / "vision_bench_battles.jsonl.gz")
    (data / "bootstrapping_results.jsonl").symlink_to(release / "bootstrapping_results.jsonl")
    (root / "README.md").write_text("# WildVision-Bench\n", encoding="utf-8")
    return root


def counts(bundle: Path) -> tuple[int, int, int]:
    with Bundle.open(bundle) as opened, opened.read_session() as session:
        return (
            session.scalar(select(func.count()).select_from(Item)) or 0,
            session.scalar(select(func.count()).select_from(Output)) or 0,
            session.scalar(select(func.count()).select_from(PriorJudgment)) or 0,
        )


@pytest.fixture(scope="module")
def clone(wildvision_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return clone_layout(wildvision_dir, tmp_path_factory.mktemp("clone") / "WildVision-Bench")


@pytest.mark.shared_data
def test_the_root_of_a_clone_imports_everything_in_one_command(clone: Path, tmp_path: Path) -> None:
    bundle = tmp_path / "clone.wbb"
    result = import_files(bundle, [clone], "wildvision-bench")
    answers = 22 * 500
    assert counts(bundle) == (500, answers, answers + 19_644)
    assert not result.rejections


def resolved(found: ReleaseFiles) -> tuple[list[Path], ...]:
    """The files an import of ``found`` reads, by role, each where its link points."""
    return tuple(
        sorted(path.resolve() for path in paths)
        for paths in (found.answers, found.judgments, found.battles)
    )


@pytest.mark.shared_data
def test_the_data_folder_and_the_battles_file_first_find_the_whole_release(
    clone: Path, wildvision_dir: Path
) -> None:
    # what the import of each layout reads: the release's own files, each once (the clone's
    # whole import is above; the import of these two layouts is below, on a small data/ folder)
    data = clone / "data"
    whole = resolved(ReleaseFiles.of([wildvision_dir]))
    assert all(whole)
    assert resolved(ReleaseFiles.of([data])) == whole
    battles_first = [data / "vision_bench_battles.jsonl.gz", data / "vision_bench_0617"]
    assert resolved(ReleaseFiles.of(battles_first)) == whole


def test_the_data_folder_and_the_battles_file_first_import_in_one_command(tmp_path: Path) -> None:
    data = tmp_path / "data"
    answers = [
        {"question_id": q, "instruction": "Why?", "output": "Because.", "model": "m"}
        for q in ("q1", "q2")
    ]
    game = {"user_prompt": [{"type": "text", "text": "..."}], "judgment": "[[A>B]]", "score": "A>B"}
    judged = [
        {"question_id": q, "model": "m", "judge": "gpt-4o", "games": [game]} for q in ("q1", "q2")
    ]
    release(data / "vision_bench_0617", answers, judged)
    battles = [
        {"question_id": "q1", "model_a": "m", "model_b": "n", "winner": "model_a"},
        {"question_id": "q2", "model_a": "n", "model_b": "m", "winner": "tie"},
        {"question_id": "q2", "model_a": "m", "model_b": "n", "winner": "model_b"},
    ]
    (data / "vision_bench_battles.jsonl").write_text(
        "".join(json.dumps(row) + "\n" for row in battles), encoding="utf-8"
    )
    bundle = tmp_path / "data.wbb"
    # the battles file before the folder that holds the items: still one import that lands
    import_files(
        bundle,
        [data / "vision_bench_battles.jsonl", data / "vision_bench_0617"],
        "wildvision-bench",
    )
    first = counts(bundle)
    assert first == (2, 2, 2 + 3)
    other = tmp_path / "other.wbb"
    import_files(other, [data], "wildvision-bench")
    assert counts(other) == first


def release(folder: Path, answers: list[dict[str, Any]], judged: list[dict[str, Any]]) -> None:
    (folder / "model_answers").mkdir(parents=True)
    (folder / "model_judgements" / JUDGE_FOLDER).mkdir(parents=True)
    (folder / "model_answers" / "m.jsonl").write_text(
        "".join(json.dumps(row) + "\n" for row in answers), encoding="utf-8"
    )
    (folder / "model_judgements" / JUDGE_FOLDER / "m.jsonl").write_text(
        "".join(json.dumps(row) + "\n" for row in judged), encoding="utf-8"
    )


def test_a_model_in_two_release_folders_is_kept_once_and_reported(tmp_path: Path) -> None:
    answer = {"question_id": "q1", "instruction": "Why?", "output": "Because.", "model": "m"}
    game = {"user_prompt": [{"type": "text", "text": "..."}], "judgment": "[[A>B]]", "score": "A>B"}
    judged = {"question_id": "q1", "model": "m", "judge": "gpt-4o", "games": [game]}
    release(tmp_path / "data" / "release_bench_0617", [answer], [judged])
    release(tmp_path / "data" / "vision_bench_0617", [answer], [judged])
    result = import_files(tmp_path / "b.wbb", [tmp_path / "data"], "wildvision-bench")
    assert counts(tmp_path / "b.wbb") == (1, 1, 1)
    (warning,) = [w for w in result.warnings if "appear again" in w.reason]
    assert warning.reason.startswith("1 answers and 1 judgments appear again")
