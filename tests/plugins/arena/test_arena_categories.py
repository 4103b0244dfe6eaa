"""VisionArena's categories are multi-label: a battle counts on the board of every category its
conversation is tagged with, not only the first flag set (a fixture in the published
VisionArena-Battle schema, written with pyarrow)."""

from __future__ import annotations

import json
import sqlite3
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from alembic import command
from sqlalchemy import select

from workbench.cli import main
from workbench.services.analysis import analysis_choices
from workbench.services.importing import import_files
from workbench.storage import Bundle, head_revision
from workbench.storage.bundle import _alembic_config
from workbench.storage.dialects import make_engine, parse_location
from workbench.storage.models import Item, ItemCategory

from .hf_tables import VISION_ARENA_BATTLE, flags, messages, png_bytes, write_parquet

MODELS = ("vlm-a", "vlm-b", "vlm-c")
WINNERS = ("model_a", "model_b", "tie", "tie (bothbad)", "model_a")
#: each conversation's category flags: OCR alone, OCR after an earlier flag (which was the
#: item's one category before), and conversations without OCR
TAGS = (
    ("ocr",),
    ("captioning", "ocr"),
    ("entity_recognition", "ocr"),
    ("diagram", "homework", "ocr"),
    ("captioning",),
    ("code",),
)


#: the one conversation of two user turns
MULTI_TURN = 3


def turns(conversation: int, model: str) -> list[tuple[str, str]]:
    first = (f"Read sign {conversation}", f"{model} says")
    if conversation == MULTI_TURN:
        return [first, ("And the small print?", f"{model} reads it")]
    return [first]


def battle_rows(votes_per_conversation: int = 5) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    image = {"bytes": png_bytes("red"), "path": "shared.png"}
    for conversation, tags in enumerate(TAGS):
        for vote in range(votes_per_conversation):
            model_a = MODELS[(conversation + vote) % 3]
            model_b = MODELS[(conversation + vote + 1) % 3]
            rows.append(
                {
                    "question_id": f"q{conversation}",
                    "tstamp": 1718000000.0 + 10 * len(rows),
                    "model_a": model_a,
                    "model_b": model_b,
                    "winner": WINNERS[(conversation + vote) % len(WINNERS)],
                    "judge_hash": f"voter-{vote}",
                    "conversation_a": messages(*turns(conversation, model_a)),
                    "conversation_b": messages(*turns(conversation, model_b)),
                    "turn": len(turns(conversation, model_a)),
                    "anony": True,
                    "language": "English",
                    "images": [image],
                    "categories": flags(*tags),
                }
            )
    return rows


@pytest.fixture(scope="module")
def arena_bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("vision-arena")
    shard = write_parquet(
        folder / "data" / "train-00000-of-00001.parquet", battle_rows(), VISION_ARENA_BATTLE
    )
    bundle = folder / "arena.wbb"
    import_files(bundle, [shard], "arena-battles")
    return bundle


def board_battles(
    capsys: pytest.CaptureFixture[str], bundle: Path, category: str | None, *flags: str
) -> int:
    capsys.readouterr()
    chosen = ("--category", category) if category else ()
    # a small fixture: every model is rated, however few its battles
    argv = ["leaderboard", str(bundle), *chosen, *flags, "--min-battles", "0", "--json"]
    assert main(argv) == 0
    return int(json.loads(capsys.readouterr().out)["battles"])


def expected_battles() -> Counter[str]:
    counted: Counter[str] = Counter()
    for row in battle_rows():
        counted.update(name for name, flag in row["categories"].items() if flag)
    return counted


def test_every_flagged_category_keeps_the_item_and_its_first_is_shown(arena_bundle: Path) -> None:
    with Bundle.open(arena_bundle) as bundle, bundle.read_session() as session:
        shown = {row.external_id: row.category for row in session.scalars(select(Item))}
        tagged = sorted(
            (row.external_id, row.category)
            for row in session.execute(
                select(Item.external_id, ItemCategory.category).join(
                    Item, Item.id == ItemCategory.item_id
                )
            )
        )
    assert shown == {f"q{index}": tags[0] for index, tags in enumerate(TAGS)}
    assert tagged == sorted((f"q{index}", name) for index, tags in enumerate(TAGS) for name in tags)


def test_a_category_board_counts_every_battle_tagged_with_it(
    arena_bundle: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    expected = expected_battles()
    assert expected["ocr"] == 20  # 5 votes on each of 4 OCR conversations
    assert board_battles(capsys, arena_bundle, "ocr") == expected["ocr"]
    for category in ("captioning", "homework", "entity_recognition"):
        assert board_battles(capsys, arena_bundle, category) == expected[category], category


def test_the_pickers_offer_categories_that_are_never_first(arena_bundle: Path) -> None:
    with Bundle.open(arena_bundle) as bundle:
        choices = analysis_choices(bundle)
    assert set(choices.categories) == {name for tags in TAGS for name in tags}
    assert "ocr" in choices.categories and "homework" in choices.categories


def test_an_older_bundle_gets_its_categories_from_the_kept_flags(
    arena_bundle: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    old = tmp_path / "old.wbb"
    old.write_bytes(arena_bundle.read_bytes())
    engine = make_engine(parse_location(str(old)))
    try:
        with engine.begin() as connection:
            command.downgrade(_alembic_config(connection), "0005")
    finally:
        engine.dispose()
    raw = sqlite3.connect(old)
    tables = {row[0] for row in raw.execute("SELECT name FROM sqlite_master")}
    raw.close()
    assert "item_categories" not in tables
    with Bundle.open(old, migrate=True) as bundle:
        assert bundle.revision() == head_revision()
    assert board_battles(capsys, old, "ocr") == expected_battles()["ocr"]


def test_vision_arenas_boards_are_filters_of_the_leaderboard(
    arena_bundle: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = battle_rows()
    assert board_battles(capsys, arena_bundle, None) == len(rows) == 30
    multi_turn = [row for row in rows if row["turn"] > 1]
    assert board_battles(capsys, arena_bundle, None, "--multi-turn") == len(multi_turn) == 5
    decisive = [row for row in rows if row["winner"] in ("model_a", "model_b")]
    assert 0 < len(decisive) < len(rows)
    assert board_battles(capsys, arena_bundle, None, "--exclude-ties") == len(decisive)
    uncaptioned = [row for row in rows if not row["categories"]["captioning"]]
    assert board_battles(capsys, arena_bundle, None, "--exclude-category", "captioning") == len(
        uncaptioned
    )
    ocr_uncaptioned = [row for row in uncaptioned if row["categories"]["ocr"]]
    assert board_battles(
        capsys, arena_bundle, "ocr", "--exclude-category", "captioning", "--exclude-ties"
    ) == len([row for row in ocr_uncaptioned if row in decisive])
    capsys.readouterr()
    argv = ["leaderboard", str(arena_bundle), "--multi-turn", "--exclude-ties", "--json"]
    assert main([*argv, "--min-battles", "0"]) == 0
    request = json.loads(capsys.readouterr().out)["request"]
    assert request["boards"] == {
        "multi_turn": True,
        "exclude_ties": True,
        "exclude_categories": [],
        "exclude_refusal": False,
    }
    assert "--multi-turn --exclude-ties" in request["command"]


def test_outcomes_per_category_count_every_tagged_battle(
    arena_bundle: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    assert main(["categories", str(arena_bundle), "--json"]) == 0
    found = {row["category"]: row for row in json.loads(capsys.readouterr().out)["categories"]}
    expected: dict[str, Counter[str]] = {}
    for row in battle_rows():
        for name, flag in row["categories"].items():
            if flag:
                expected.setdefault(name, Counter())[row["winner"]] += 1
    assert set(found) == set(expected)
    for name, winners in expected.items():
        battles = sum(winners.values())
        row = found[name]
        assert row["battles"] == battles, name
        assert row["decisive"] == winners["model_a"] + winners["model_b"]
        assert row["ties"] == winners["tie"]
        assert row["both_bad"] == winners["tie (bothbad)"]
        assert row["both_bad_share"] == pytest.approx(winners["tie (bothbad)"] / battles)
    assert found["ocr"]["battles"] == 20 and found["ocr"]["both_bad"] > 0
    capsys.readouterr()
    assert main(["categories", str(arena_bundle), "--multi-turn"]) == 0
    printed = capsys.readouterr().out
    assert "(multi-turn)" in printed and "homework" in printed and "captioning" not in printed


def test_an_items_export_carries_the_categories_and_reimports_them(
    arena_bundle: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from workbench.export import ExportOptions, export_bundle

    first = tmp_path / "items.jsonl"
    export_bundle(arena_bundle, first, ExportOptions(format="items"))
    lines = {line["id"]: line for line in map(json.loads, first.read_text("utf-8").splitlines())}
    assert lines["q2"]["categories"] == ["entity_recognition", "ocr"]
    assert lines["q4"]["categories"] == ["captioning"]
    copy = tmp_path / "copy.wbb"
    import_files(copy, [first], "jsonl")
    assert board_battles(capsys, copy, "ocr") == expected_battles()["ocr"]
    again = tmp_path / "again.jsonl"
    export_bundle(copy, again, ExportOptions(format="items"))
    # the pictures a references-only export left out arrive missing in the copy; the rest,
    # categories included, comes back byte for byte
    assert again.read_bytes() == first.read_bytes().replace(b'"not_exported"', b'"missing"')


def test_the_item_list_finds_an_item_by_any_of_its_categories(arena_bundle: Path) -> None:
    from workbench.services.browse import ItemQuery, filter_choices, matching_item_ids

    with Bundle.open(arena_bundle) as bundle, bundle.read_session() as session:
        external = {item.id: item.external_id for item in session.scalars(select(Item))}
        found = matching_item_ids(session, ItemQuery(category="ocr"))
        choices = filter_choices(session)
    assert sorted(external[item] for item in found) == ["q0", "q1", "q2", "q3"]
    assert "homework" in choices.categories


def test_the_report_has_a_board_for_every_tagged_category(
    arena_bundle: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Every category flag gets its board in the report, counting every battle tagged with it
    (OCR is the first flag of one conversation of four), each reproduced by its command."""
    from tests.services.test_report_commands import report_data, run_printed, same_board

    data, _html = report_data(
        arena_bundle, tmp_path / "report.html", "--bootstrap", "0", "--min-battles", "0"
    )
    boards = data["categories"]
    expected = expected_battles()
    assert set(boards) == set(expected) and not data["categories_unrated"]
    assert {name: board["battles"] for name, board in boards.items()} == dict(expected)
    # most battles first, as the section lists them
    sections = [s for s in data["reproduce"] if s["section"].startswith("category ")]
    assert [s["section"].removeprefix("category ") for s in sections][:2] == ["ocr", "captioning"]
    for section in sections:
        if section["section"] in ("category ocr", "category homework"):
            same_board(section["document"], run_printed(section["command"], arena_bundle, capsys))
