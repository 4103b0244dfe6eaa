"""The inspector's queries: matching, filtering and sorting items, list rows, and item detail."""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy.orm import Session

from tests.conftest import PROJECT_ROOT
from tests.gui.sample_bundle import (
    EXIF_STORED_SIZE,
    build_sample_bundle,
    rotated_jpeg_bytes,
    sample_lines,
)
from workbench.services.browse import (
    SQL_FLAGS,
    BundleBrowser,
    ItemFlag,
    ItemQuery,
    SortKey,
    filter_choices,
    find_item,
    flagged_items,
    image_bytes,
    item_detail,
    item_image_ids,
    item_rows,
    matching_item_ids,
)
from workbench.storage import Bundle


@pytest.fixture(scope="module")
def sample_bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_sample_bundle(tmp_path_factory.mktemp("browse"))


@pytest.fixture
def session(sample_bundle: Path) -> Iterator[Session]:
    with Bundle.open(sample_bundle) as bundle, bundle.read_session() as session:
        yield session


@pytest.fixture
def ids(session: Session) -> dict[str, int]:
    """Row id of each sample item by its external id."""
    rows = item_rows(session, matching_item_ids(session, ItemQuery()))
    return {row.external_id: row.id for row in rows}


def names(session: Session, query: ItemQuery) -> list[str]:
    return [row.external_id for row in item_rows(session, matching_item_ids(session, query))]


def test_all_items_in_id_order(session: Session) -> None:
    assert names(session, ItemQuery()) == [line["id"] for line in sample_lines()]


@pytest.mark.parametrize(
    ("search", "expected"),
    [
        ("zebra", ["a3"]),  # only in an output, and in another case
        ("GRASS GROWS", ["a2"]),  # a reference of turn 2
        ("red square", ["a1"]),  # a caption
        ("is short", ["a2"]),  # focus points
        ("100%", ["b1"]),  # LIKE wildcards are taken literally
        ("off_sale", ["b1"]),
        ("0_o", []),
        ("squares", ["a1"]),  # instruction, reference and output of the same item: listed once
    ],
)
def test_search_covers_instructions_references_captions_and_outputs(
    session: Session, search: str, expected: list[str]
) -> None:
    assert names(session, ItemQuery(search=search)) == expected


def test_filters(session: Session) -> None:
    assert names(session, ItemQuery(source="beta")) == ["b1", "b2"]
    assert names(session, ItemQuery(category="counting")) == ["a1", "a3"]
    assert names(session, ItemQuery(category="Catchy Titles")) == ["a2"]
    assert names(session, ItemQuery(model="model-three")) == ["a2"]
    assert names(session, ItemQuery(model="model-two", source="alpha")) == ["a1", "a3"]
    assert names(session, ItemQuery(flag=ItemFlag.MISSING_IMAGE)) == ["a1"]
    assert names(session, ItemQuery(flag=ItemFlag.REFERENCE_PROBLEM)) == ["a1"]
    # b1: three humans prefer model-one, the judge prefers model-two; b2: both prefer model-one
    assert names(session, ItemQuery(flag=ItemFlag.DISAGREEMENT)) == ["b1"]
    assert names(session, ItemQuery(flag=ItemFlag.DISAGREEMENT, source="alpha")) == []


def test_a_model_pair_keeps_the_items_that_compare_it(session: Session) -> None:
    # only b1 and b2 hold judgments, each between model-one and model-two (in both orders)
    assert names(session, ItemQuery(pair=("model-one", "model-two"))) == ["b1", "b2"]
    assert names(session, ItemQuery(pair=("model-two", "model-one"))) == ["b1", "b2"]
    assert names(session, ItemQuery(pair=("model-one", "model-three"))) == []
    assert names(session, ItemQuery(pair=("model-one", "model-two"), search="label")) == ["b2"]
    assert names(session, ItemQuery(pair=("model-one", "model-two"), source="alpha")) == []


def test_a_model_keeps_the_items_where_it_was_compared(session: Session) -> None:
    # model-three answered a2 but was never compared; model-one answered a1..a3 and b1, b2
    assert names(session, ItemQuery(model="model-three")) == ["a2"]
    assert names(session, ItemQuery(compared="model-three")) == []
    assert names(session, ItemQuery(compared="model-one")) == ["b1", "b2"]
    assert names(session, ItemQuery(compared="model-two", search="sign")) == ["b1"]


def test_sorting_by_each_column(session: Session) -> None:
    def order(sort: SortKey, descending: bool = False) -> list[str]:
        return names(session, ItemQuery(sort=sort, descending=descending))

    assert order(SortKey.ID, descending=True) == ["b2", "b1", "a3", "a2", "a1"]
    assert order(SortKey.SOURCE, descending=True) == ["b1", "b2", "a1", "a2", "a3"]
    assert order(SortKey.CATEGORY) == ["a2", "a3", "a1", "b1", "b2"]
    assert order(SortKey.LANGUAGE) == ["a1", "a2", "b1", "b2", "a3"]
    assert order(SortKey.OUTPUTS, descending=True)[0] == "a2"  # 6 outputs over three turns
    assert order(SortKey.JUDGMENTS, descending=True)[:2] == ["b1", "b2"]
    assert order(SortKey.FLAGS, descending=True)[:2] == ["a1", "b1"]


def test_rows_count_outputs_judgments_and_flags(session: Session, ids: dict[str, int]) -> None:
    lines = {line["id"]: line for line in sample_lines()}
    rows = {row.external_id: row for row in item_rows(session, list(ids.values()))}
    for name, line in lines.items():
        assert rows[name].outputs == len(line["outputs"])
        assert rows[name].judgments == len(line.get("judgments", []))
        assert rows[name].source == line["source"]
    assert rows["a1"].flags == {ItemFlag.MISSING_IMAGE, ItemFlag.REFERENCE_PROBLEM}
    assert rows["b1"].flags == {ItemFlag.DISAGREEMENT}
    assert rows["b2"].flags == frozenset()
    assert rows["a2"].category_label == "conversation · Catchy Titles"
    # the order asked for is kept, and unknown ids are skipped
    backwards = [ids["b2"], 999_999, ids["a1"]]
    assert [row.external_id for row in item_rows(session, backwards)] == ["b2", "a1"]


def test_the_sql_flags_leave_the_disagreement_flag_to_its_own_lookup(
    session: Session, ids: dict[str, int]
) -> None:
    """The item list's first page and the item view read the SQL flags; the disagreement flag,
    which needs the statistics stack, is asked for on its own."""
    everything = list(ids.values())
    rows = {row.external_id: row for row in item_rows(session, everything, SQL_FLAGS)}
    assert rows["a1"].flags == {ItemFlag.MISSING_IMAGE, ItemFlag.REFERENCE_PROBLEM}
    assert rows["b1"].flags == frozenset()
    assert flagged_items(session, ItemFlag.DISAGREEMENT, everything) == {ids["b1"]}
    full, light = item_detail(session, ids["b1"]), item_detail(session, ids["b1"], SQL_FLAGS)
    assert full is not None and full.flags == {ItemFlag.DISAGREEMENT}
    assert light is not None and light.flags == frozenset()


def test_detail_of_a_multi_image_item(session: Session, ids: dict[str, int]) -> None:
    detail = item_detail(session, ids["a1"])
    assert detail is not None
    assert [slot.is_missing for slot in detail.images] == [False, True, False]
    assert detail.images[1].original_ref == "https://example.invalid/gone.png"
    assert (detail.images[2].width, detail.images[2].height) == EXIF_STORED_SIZE
    assert detail.captions[0].text == "A red square beside a blue one."
    (reference,) = detail.turns[0].references
    assert reference.problem_in_reference is True and reference.verified_correct is False
    assert reference.has_problem
    assert detail.models == ("model-one", "model-two")
    assert detail.turns[0].outputs_of("model-one")[0].text.startswith("# Count")
    assert detail.flags == {ItemFlag.MISSING_IMAGE, ItemFlag.REFERENCE_PROBLEM}
    stored = image_bytes(session, detail.images[2].image_id or 0)
    assert stored == rotated_jpeg_bytes()  # the original bytes, EXIF included
    assert item_image_ids(session, ids["a1"]) == [
        slot.image_id for slot in detail.images if slot.image_id is not None
    ]


def test_detail_of_a_multi_turn_item_aligns_outputs_by_turn(
    session: Session, ids: dict[str, int]
) -> None:
    detail = item_detail(session, ids["a2"])
    assert detail is not None
    line = next(line for line in sample_lines() if line["id"] == "a2")
    assert [turn.prompt for turn in detail.turns] == [turn["prompt"] for turn in line["turns"]]
    assert detail.turns[2].focus_points == "1. mentions green 2. is short"
    for turn in detail.turns:
        for model in ("model-one", "model-three"):
            expected = [
                output["text"]
                for output in line["outputs"]
                if output["model"] == model and output["turn"] == turn.index
            ]
            assert [output.text for output in turn.outputs_of(model)] == expected


def test_detail_of_an_unknown_item_is_none(session: Session) -> None:
    assert item_detail(session, 424242) is None


def test_find_item(session: Session, ids: dict[str, int]) -> None:
    assert find_item(session, "a3") == ids["a3"]
    assert find_item(session, " beta/b1 ") == ids["b1"]
    assert find_item(session, str(ids["b2"])) == ids["b2"]
    assert find_item(session, "nope") is None
    assert find_item(session, "") is None


def test_filter_choices(session: Session) -> None:
    choices = filter_choices(session)
    assert choices.sources == ("alpha", "beta")
    assert choices.models == ("model-one", "model-three", "model-two")
    assert set(choices.categories) == {
        "counting",
        "objects",
        "conversation",
        "Catchy Titles",
        "ocr",
    }


def test_the_bundle_browser_answers_from_any_thread(sample_bundle: Path) -> None:
    from concurrent.futures import ThreadPoolExecutor

    with Bundle.open(sample_bundle) as bundle:
        browser = BundleBrowser(bundle)
        ids = browser.matching_item_ids(ItemQuery())
        assert browser.item_count() == len(ids) == len(sample_lines())
        with ThreadPoolExecutor(max_workers=4) as pool:
            details = list(pool.map(browser.item_detail, ids))
        assert [detail.external_id if detail else None for detail in details] == [
            line["id"] for line in sample_lines()
        ]
        first_image = browser.item_image_ids(ids[0])[0]
        assert browser.image_bytes(first_image) == image_bytes_of(bundle, first_image)
        assert browser.find_item("b2") == ids[-1]
        assert browser.filter_choices().sources == ("alpha", "beta")


def image_bytes_of(bundle: Bundle, image_id: int) -> bytes | None:
    with bundle.read_session() as session:
        return image_bytes(session, image_id)


def test_the_benchmark_bundle_generator_makes_a_browsable_bundle(tmp_path: Path) -> None:
    """bench/make_synthetic_bundle.py, at a small size: what it writes the inspector can read."""
    spec = importlib.util.spec_from_file_location(
        "make_synthetic_bundle", PROJECT_ROOT / "bench" / "make_synthetic_bundle.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    counts = module.make_synthetic_bundle(tmp_path / "syn.wbb", items=300, models=3, seed=1)
    with Bundle.open(tmp_path / "syn.wbb") as bundle:
        browser = BundleBrowser(bundle)
        ids = browser.matching_item_ids(ItemQuery())
        assert len(ids) == counts["items"] == 300
        rows = browser.item_rows(ids)
        assert sum(row.outputs for row in rows) == counts["outputs"] == counts["turns"] * 3
        assert sum(row.judgments for row in rows) == counts["judgments"]
        detail = browser.item_detail(ids[0])
        assert detail is not None and detail.models == tuple(
            f"synthetic-model-{n:02d}" for n in (1, 2, 3)
        )
        assert browser.matching_item_ids(ItemQuery(flag=ItemFlag.REFERENCE_PROBLEM))
