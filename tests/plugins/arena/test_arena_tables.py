"""The arena-battles format reading Hugging Face datasets: parquet files and shard folders,
``save_to_disk`` folders and the hub cache, in the published schemas of VisionArena and
WildVision-Arena (written here with pyarrow)."""

from __future__ import annotations

import gc
import tempfile
import threading
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select
from sqlalchemy.orm import aliased
from workbench_arena.battles import ArenaBattlesImporter

from workbench.importers.base import ImportRejectedError, ImportReport
from workbench.importers.images import ImageProblemError, PreparedImage
from workbench.services.importing import import_files
from workbench.storage import Bundle
from workbench.storage.models import Image, Item, ItemImage, Model, Output, PriorJudgment, Turn

from .hf_tables import (
    PAIRED_CHAT,
    VISION_ARENA_BATTLE,
    VISION_ARENA_BENCH,
    VISION_ARENA_CHAT,
    WILDVISION_BATTLE,
    WILDVISION_CHAT,
    flags,
    messages,
    png_bytes,
    sha256,
    vision_arena_battles,
    wildvision_battles,
    wildvision_chats,
    write_hub_cache,
    write_parquet,
    write_save_to_disk,
)


def votes(bundle: Path) -> list[tuple[str, str, str | None, str, str | None, str | None]]:
    model_a, model_b = aliased(Model), aliased(Model)
    with Bundle.open(bundle) as opened, opened.read_session() as session:
        rows = session.execute(
            select(
                model_a.name,
                model_b.name,
                Item.external_id,
                PriorJudgment.kind,
                PriorJudgment.outcome,
                PriorJudgment.rater,
            )
            .join(model_a, PriorJudgment.model_a_id == model_a.id)
            .join(model_b, PriorJudgment.model_b_id == model_b.id)
            .outerjoin(Item, PriorJudgment.item_id == Item.id)
            .order_by(PriorJudgment.id)
        ).all()
    return [(a, b, item, kind, outcome, rater) for a, b, item, kind, outcome, rater in rows]


def items(
    bundle: Path,
) -> dict[str, tuple[str | None, str | None, dict[str, Any], list[str | None]]]:
    with Bundle.open(bundle) as opened, opened.read_session() as session:
        found: dict[str, tuple[str | None, str | None, dict[str, Any], list[str | None]]] = {}
        for item in session.scalars(select(Item)):
            slots = session.execute(
                select(Image.sha256)
                .select_from(ItemImage)
                .outerjoin(Image, ItemImage.image_id == Image.id)
                .where(ItemImage.item_id == item.id)
                .order_by(ItemImage.position)
            ).scalars()
            found[item.external_id] = (
                item.language,
                item.category,
                dict(item.metadata_),
                list(slots),
            )
        return found


def count(bundle: Path, table: type) -> int:
    with Bundle.open(bundle) as opened, opened.read_session() as session:
        return len(session.scalars(select(table)).all())


def test_vision_arena_battle_parquet_brings_votes_items_images_and_attributes(
    tmp_path: Path,
) -> None:
    shard = write_parquet(
        tmp_path / "data" / "train-00000-of-00001.parquet",
        vision_arena_battles(),
        VISION_ARENA_BATTLE,
    )
    bundle = tmp_path / "arena.wbb"
    result = import_files(bundle, [shard], "arena-battles")

    assert votes(bundle) == [
        ("vlm-a", "vlm-b", "q1", "human", "a", "voter-1"),
        ("vlm-b", "vlm-c", "q1", "human", "both_bad", "voter-2"),
        ("vlm-c", "vlm-a", "q2", "human", "b", "voter-1"),
    ]
    found = items(bundle)
    red = sha256(png_bytes("red"))
    language, category, metadata, images = found["q1"]
    assert (language, category, images) == ("English", "captioning", [red])
    assert metadata["categories"]["captioning"] is True
    language, category, metadata, images = found["q2"]
    assert (language, category, images) == ("Spanish", "entity_recognition", [red])
    assert metadata["categories"]["ocr"] is True
    # the same picture under two names is stored once
    assert count(bundle, Image) == 1
    assert result.counts["images_added"] == 1
    # both sides' answers, two turns on q2
    assert count(bundle, Output) == 3 + 4


def test_a_folder_of_shards_reads_every_shard(tmp_path: Path) -> None:
    rows = vision_arena_battles()
    write_parquet(
        tmp_path / "ds" / "data" / "train-00000-of-00002.parquet", rows[:2], VISION_ARENA_BATTLE
    )
    write_parquet(
        tmp_path / "ds" / "data" / "train-00001-of-00002.parquet", rows[2:], VISION_ARENA_BATTLE
    )
    (tmp_path / "ds" / "README.md").write_text("---\ndataset_info: {}\n---\n", encoding="utf-8")
    bundle = tmp_path / "arena.wbb"
    import_files(bundle, [tmp_path / "ds"], "arena-battles")
    assert len(votes(bundle)) == 3


def test_a_save_to_disk_folder_of_wildvision_battles_imports(tmp_path: Path) -> None:
    folder = write_save_to_disk(tmp_path / "saved", wildvision_battles(), WILDVISION_BATTLE)
    bundle = tmp_path / "wv.wbb"
    import_files(bundle, [folder], "arena-battles")

    assert votes(bundle) == [
        ("vlm-a", "vlm-b", "w1", "human", "tie", "arena_user_9"),
        ("vlm-b", "vlm-a", "w2", "human", "b", "arena_user_3"),
    ]
    found = items(bundle)
    assert found["w1"][:2] == (None, None)  # language and domain are optional
    assert found["w2"][:2] == ("English", "Natural Science")
    assert found["w2"][3] == [sha256(png_bytes("blue"))]


def test_the_hub_cache_with_battle_and_chat_configs_imports_in_one_command(
    tmp_path: Path,
) -> None:
    repo = write_hub_cache(
        tmp_path / "hub",
        "WildVision/WildVision-Arena-Data",
        {
            "battle/test-00000-of-00001.parquet": (wildvision_battles(), WILDVISION_BATTLE),
            "chat/test-00000-of-00001.parquet": (wildvision_chats(), WILDVISION_CHAT),
        },
    )
    bundle = tmp_path / "wv.wbb"
    result = import_files(bundle, [repo], "arena-battles")

    assert len(votes(bundle)) == 2
    found = items(bundle)
    assert set(found) == {"w1", "w2", "c1"}
    assert found["c1"][3] == [sha256(png_bytes("blue"))]
    # the blue picture of w2 and of the chat is one stored image
    assert result.counts["images_added"] == 2
    # the chat brings its model's two answers and no vote
    with Bundle.open(bundle) as opened, opened.read_session() as session:
        chat_answers = session.scalars(
            select(Output.text)
            .join(Turn, Output.turn_id == Turn.id)
            .join(Item, Turn.item_id == Item.id)
            .where(Item.external_id == "c1")
        ).all()
    assert sorted(chat_answers) == ["Blue", "Yes"]


def test_a_row_without_image_bytes_is_rejected_and_nothing_is_written(tmp_path: Path) -> None:
    rows = wildvision_battles()
    rows[1]["image"] = {"bytes": None, "path": "w2.jpg"}
    shard = write_parquet(tmp_path / "battle.parquet", rows, WILDVISION_BATTLE)
    bundle = tmp_path / "wv.wbb"
    with pytest.raises(ImportRejectedError) as raised:
        import_files(bundle, [shard], "arena-battles")
    assert [(p.file, p.row, p.field) for p in raised.value.problems] == [
        ("battle.parquet", 2, "image.bytes")
    ]
    assert not bundle.exists()


def test_a_damaged_embedded_image_rejects_its_row_as_before_the_spool(tmp_path: Path) -> None:
    rows = wildvision_battles()
    rows[1]["image"] = {"bytes": png_bytes("blue")[:60], "path": "w2.png"}
    shard = write_parquet(tmp_path / "battle.parquet", rows, WILDVISION_BATTLE)
    bundle = tmp_path / "wv.wbb"
    with pytest.raises(ImportRejectedError) as raised:
        import_files(bundle, [shard], "arena-battles")
    ((file, row, field, reason),) = [
        (p.file, p.row, p.field, p.reason) for p in raised.value.problems
    ]
    assert (file, row, field) == ("battle.parquet", 2, "images")
    assert reason.startswith("w2.png: image is damaged")
    assert not bundle.exists()
    # kept with --skip-rejected: the item and its vote land, its image slot is missing
    result = import_files(bundle, [shard], "arena-battles", skip_rejected=True)
    assert result.counts["images_missing"] == 1 and result.counts["images_added"] == 1
    assert items(bundle)["w2"][3] == [None]


def test_a_damaged_parquet_file_is_one_clear_rejection(tmp_path: Path) -> None:
    shard = write_parquet(tmp_path / "battle.parquet", wildvision_battles(), WILDVISION_BATTLE)
    shard.write_bytes(shard.read_bytes()[:-200])
    bundle = tmp_path / "wv.wbb"
    with pytest.raises(ImportRejectedError) as raised:
        import_files(bundle, [shard], "arena-battles")
    (problem,) = raised.value.problems
    assert problem.file == "battle.parquet"
    assert problem.reason.startswith("not a readable parquet file")
    assert not bundle.exists()


def test_embedded_images_wait_in_the_spool_once_and_go_with_the_import(tmp_path: Path) -> None:
    shard = write_parquet(tmp_path / "battle.parquet", wildvision_battles(), WILDVISION_BATTLE)
    report = ImportReport()
    records = list(ArenaBattlesImporter().read([shard], report))
    slots = [image for record in records for image in getattr(record, "images", ())]
    assert len(slots) == 2 and all(s.path is None and s.data is None for s in slots)
    spool = report.spool
    assert spool is not None
    for slot in slots:
        assert slot.sha256 is not None
        kept = spool.outcome(slot.sha256)
        assert isinstance(kept, PreparedImage) and kept.data == b""
        assert sha256(kept.content()) == slot.sha256
    assert not list(Path(tempfile.gettempdir()).glob(f"*{slots[0].sha256}*"))  # no named file
    del report, records, slots, kept
    with pytest.raises(ImageProblemError, match="spool is closed"):
        spool.read(0, 1)


def test_an_import_stops_its_reading_threads_itself_however_it_ends(tmp_path: Path) -> None:
    # Left to the garbage collector, the reader's and the spool's threads would be stopped from
    # whichever thread the collector interrupts, where a join can wait on a lock held there.
    rows = wildvision_battles()
    rows[1]["image"] = {"bytes": png_bytes("blue")[:60], "path": "w2.png"}
    shard = write_parquet(tmp_path / "battle.parquet", rows, WILDVISION_BATTLE)
    before = set(threading.enumerate())
    gc.disable()
    try:
        with pytest.raises(ImportRejectedError):
            import_files(tmp_path / "refused.wbb", [shard], "arena-battles")
        left_by_refused = [t.name for t in set(threading.enumerate()) - before if t.is_alive()]
        import_files(tmp_path / "kept.wbb", [shard], "arena-battles", skip_rejected=True)
        left_by_kept = [t.name for t in set(threading.enumerate()) - before if t.is_alive()]
    finally:
        gc.enable()
    assert left_by_refused == [] and left_by_kept == []


def test_vision_arena_chat_and_bench_rows_bring_items_without_votes(tmp_path: Path) -> None:
    chat = [
        {
            "conversation_id": "conv-9",
            "model": "vlm-a",
            "conversation": messages(("Two images: which is brighter?", "The first.")),
            "turn": 1,
            "language": "English",
            "images": [
                {"bytes": png_bytes("white"), "path": None},
                {"bytes": png_bytes("black"), "path": None},
            ],
            "categories": flags("diagram"),
        }
    ]
    bench = [
        {
            "question_id": f"b{number}",
            "turns": [{"content": f"Question {number}?"}],
            "images": [{"bytes": png_bytes("yellow", (number + 2, 3)), "path": None}],
            "categories": flags("homework"),
        }
        for number in range(3)
    ]
    write_parquet(
        tmp_path / "ds" / "chat" / "train-00000-of-00001.parquet", chat, VISION_ARENA_CHAT
    )
    write_parquet(
        tmp_path / "ds" / "bench" / "train-00000-of-00001.parquet", bench, VISION_ARENA_BENCH
    )
    bundle = tmp_path / "va.wbb"
    result = import_files(bundle, [tmp_path / "ds"], "arena-battles")

    assert votes(bundle) == []
    found = items(bundle)
    assert set(found) == {"conv-9", "b0", "b1", "b2"}
    assert found["conv-9"][1] == "diagram"
    assert found["conv-9"][3] == [sha256(png_bytes("white")), sha256(png_bytes("black"))]
    assert found["b1"][1] == "homework"
    assert result.counts["images_added"] == 5
    assert count(bundle, Output) == 1


def test_a_conversation_of_user_assistant_turns_reads_as_messages(tmp_path: Path) -> None:
    rows = [
        {
            "question_id": "p1",
            "model": "vlm-b",
            "conversation": [
                {"user": "Hello?", "assistant": "Hi."},
                {"user": "Bye?", "assistant": None},
            ],
        }
    ]
    shard = write_parquet(tmp_path / "paired.parquet", rows, PAIRED_CHAT)
    bundle = tmp_path / "p.wbb"
    import_files(bundle, [shard], "arena-battles")
    with Bundle.open(bundle) as opened, opened.read_session() as session:
        prompts = session.scalars(select(Turn.prompt).order_by(Turn.index)).all()
        answers = session.scalars(select(Output.text)).all()
    assert prompts == ["Hello?", "Bye?"]
    assert answers == ["Hi."]


def test_categories_stay_on_the_item_and_the_vote_keeps_its_own_facts(tmp_path: Path) -> None:
    shard = write_parquet(tmp_path / "b.parquet", vision_arena_battles(), VISION_ARENA_BATTLE)
    bundle = tmp_path / "b.wbb"
    import_files(bundle, [shard], "arena-battles")
    with Bundle.open(bundle) as opened, opened.read_session() as session:
        metadata = session.scalars(
            select(PriorJudgment.metadata_).order_by(PriorJudgment.id)
        ).first()
    assert metadata is not None
    assert "categories" not in metadata
    assert (metadata["language"], metadata["anony"], metadata["turn"]) == ("English", True, 1)
    assert metadata["tstamp"] == 1718000000.5
