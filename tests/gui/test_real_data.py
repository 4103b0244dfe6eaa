"""The inspector on the published data: ConvBench (three-turn conversations) and VisIT-Bench
(multi-image items), imported from ../shared/data by their plugins. Expected values are read
from the raw files here, never written down."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pytest
from pytestqt.qtbot import QtBot

from tests.gui.conftest import wait_idle
from tests.patience import HANG_GUARD_MS
from workbench.gui.main_window import MainWindow
from workbench.gui.plain_text import plain_tooltip
from workbench.gui.safe_text import SafeTextView
from workbench.services.browse import ItemFlag
from workbench.services.importing import import_files

pytestmark = [pytest.mark.gui, pytest.mark.shared_data]


@pytest.fixture(scope="module")
def raw(shared_data: Path) -> dict[str, pd.DataFrame]:
    return {
        "convbench": pd.read_excel(shared_data / "convbench" / "ConvBench.xlsx"),
        "multi": pd.read_csv(shared_data / "visit-bench" / "visit_bench_multi_images.csv"),
        "single": pd.read_csv(shared_data / "visit-bench" / "visit_fully_annotated_example.csv"),
    }


@pytest.fixture(scope="module")
def real_bundle(shared_data: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    bundle = tmp_path_factory.mktemp("real") / "real.wbb"
    import_files(bundle, [shared_data / "convbench"], "convbench")
    import_files(bundle, [shared_data / "visit-bench"], "visit-bench")
    return bundle


@pytest.fixture
def window(qtbot: QtBot, real_bundle: Path) -> Iterator[MainWindow]:
    window = MainWindow(persist_layout=False)
    qtbot.addWidget(window)
    window.open_bundle(real_bundle)
    window.show()
    wait_idle(qtbot, window)
    yield window
    window.close()


def image_names(urls_json: str) -> list[str]:
    return [url.rsplit("/", 1)[-1] for url in json.loads(urls_json)]


def apply_filter(qtbot: QtBot, window: MainWindow, combo: str, value: object) -> int:
    box = getattr(window.item_list.ui, combo)
    index = box.findData(value)
    assert index >= 0, f"{value!r} is not offered by the {combo} filter"
    box.setCurrentIndex(index)
    qtbot.waitUntil(
        lambda: window.item_list.current_query() == window.item_list._applied_query,
        timeout=HANG_GUARD_MS,
    )
    wait_idle(qtbot, window)
    return window.item_list.model.total()


def shown_text(view: SafeTextView) -> str:
    return " ".join(view.source_text.split())


def same_text(a: object, b: object) -> bool:
    return " ".join(str(a).split()) == " ".join(str(b).split())


def test_list_counts_and_filters_match_the_files(
    qtbot: QtBot, window: MainWindow, raw: dict[str, pd.DataFrame], shared_data: Path
) -> None:
    convbench, multi, single = raw["convbench"], raw["multi"], raw["single"]
    assert window.item_list.model.total() == len(convbench) + len(multi) + len(single)
    assert apply_filter(qtbot, window, "sourceFilter", "convbench") == len(convbench)
    assert apply_filter(qtbot, window, "sourceFilter", None) == window.item_list._total_items
    family = multi["instruction_category"].iloc[0]
    expected = int((multi["instruction_category"] == family).sum()) + int(
        (single["instruction_category"] == family).sum()
    )
    assert apply_filter(qtbot, window, "categoryFilter", family) == expected
    apply_filter(qtbot, window, "categoryFilter", None)

    convbench_images = {p.name for p in (shared_data / "convbench" / "images").iterdir()}
    visit_images = {p.name for p in (shared_data / "visit-bench" / "images").iterdir()}
    missing = int((~convbench["image_id"].isin(convbench_images)).sum())
    missing += sum(
        any(name not in visit_images for name in image_names(urls)) for urls in multi["images"]
    )
    missing += sum(url.rsplit("/", 1)[-1] not in visit_images for url in single["image_url"])
    assert apply_filter(qtbot, window, "flagFilter", ItemFlag.MISSING_IMAGE) == missing


def test_a_convbench_conversation_turn_by_turn(
    qtbot: QtBot, window: MainWindow, raw: dict[str, pd.DataFrame], shared_data: Path
) -> None:
    convbench = raw["convbench"]
    present = {p.name for p in (shared_data / "convbench" / "images").iterdir()}
    row = convbench[convbench["image_id"].isin(present)].iloc[0]
    assert window.go_to_item(f"convbench/{row['ID']}")
    wait_idle(qtbot, window)
    view = window.item_view
    assert [tile.state for tile in view.images.visible_tiles()] == ["shown"]
    captions = [shown_text(block.text) for block in view.captions if block.isVisible()]
    assert len(captions) == 1 and same_text(captions[0], row["instruction-conditioned-caption"])
    sections = view.visible_turns()
    assert len(sections) == 3
    for section, ordinal in zip(sections, ("first", "second", "third"), strict=True):
        prefix = ordinal.capitalize()
        assert same_text(shown_text(section.prompt), row[f"The_{ordinal}_turn_instruction"])
        assert section.title.text().endswith(str(row[f"{prefix}_turn_instruction_category"]))
        references = [shown_text(block.text) for block in section.references if block.isVisible()]
        assert len(references) == 1 and same_text(references[0], row[f"{ordinal}_turn_answer"])
    assert same_text(shown_text(sections[2].focus), row["third_turn_demands"])
    assert not sections[0].focus.isVisible()

    missing_row = convbench[~convbench["image_id"].isin(present)].iloc[0]
    assert window.go_to_item(f"convbench/{missing_row['ID']}")
    wait_idle(qtbot, window)
    (tile,) = view.images.visible_tiles()
    assert tile.slot is not None
    assert tile.state == "missing" and tile.slot.original_ref.endswith(missing_row["image_id"])
    assert tile.toolTip() == plain_tooltip(tile.slot.original_ref)


def test_a_visit_bench_multi_image_item(
    qtbot: QtBot, window: MainWindow, raw: dict[str, pd.DataFrame], shared_data: Path
) -> None:
    multi = raw["multi"]
    present = {p.name for p in (shared_data / "visit-bench" / "images").iterdir()}
    unique = multi[~multi["reference_output"].duplicated(keep=False)]

    def missing_count(row: pd.Series) -> int:
        return sum(name not in present for name in image_names(row["images"]))

    # a multi-image item, one with missing images if there is one
    candidates = [row for _, row in unique.iterrows() if len(image_names(row["images"])) >= 2]
    chosen = max(candidates, key=lambda row: missing_count(row) > 0)
    window.item_list.ui.searchEdit.setText(chosen["reference_output"])
    qtbot.waitUntil(
        lambda: window.item_list.search_term == chosen["reference_output"], timeout=HANG_GUARD_MS
    )
    wait_idle(qtbot, window)
    assert window.item_list.model.total() == 1
    view = window.item_view
    names = image_names(chosen["images"])
    states = [tile.state for tile in view.images.visible_tiles()]
    assert states == ["shown" if name in present else "missing" for name in names]
    dense = [
        caption
        for caption in json.loads(chosen["images_dense_captions"])
        if isinstance(caption, str) and caption.strip()  # the file has NaN for some images
    ]
    shown_captions = [shown_text(b.text) for b in view.captions if b.isVisible()]
    assert [c for c in shown_captions if any(same_text(c, d) for d in dense)] == [
        " ".join(d.split()) for d in dense
    ]
    (section,) = view.visible_turns()
    assert same_text(shown_text(section.prompt), chosen["instruction"])
    blocks = [block for block in section.references if block.isVisible()]
    texts = [shown_text(block.text) for block in blocks]
    assert any(same_text(text, chosen["reference_output"]) for text in texts)
    candidate = blocks[
        next(i for i, t in enumerate(texts) if same_text(t, chosen["gpt4_prediction"]))
    ]
    flags = candidate.title.text()
    assert f"verified correct: {'yes' if chosen['human_ratings_gpt4_correct'] else 'no'}" in flags
    assert (
        f"problem in reference: {'yes' if chosen['human_ratings_problem_in_gpt4'] else 'no'}"
        in flags
    )
    # the search term is highlighted where it occurs
    assert any(v.highlighted_count() for v in view.text_views())
