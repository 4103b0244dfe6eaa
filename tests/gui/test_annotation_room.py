"""The responses get the room: with long answers, the turn to judge shows its two responses
at least a stated share of the window's height at 1366x768, 1024x700 and 910x512 (1366x768 at
1.5x scaling, in device-independent pixels), for every protocol; the image strip yields and
five criteria take fewer rows."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from PySide6.QtCore import QRect
from PySide6.QtWidgets import QWidget
from pytestqt.qtbot import QtBot

from tests.conftest import PROJECT_ROOT
from tests.services.campaign_helpers import build_campaign_bundle
from workbench.gui.annotation.annotator_window import AnnotatorWindow
from workbench.plugins import registry
from workbench.services.campaigns import CampaignSpec, add_annotator, create_campaign
from workbench.services.voting import AnnotationSession
from workbench.storage import Bundle
from workbench.storage.bundle import copy_bundle

pytestmark = pytest.mark.gui

#: (width, height, least share of the window's height for the responses of the judged turn)
#: at 910x512 that is about 90 px: five lines of each response beside the five criteria
SIZES = [(1366, 768, 0.40), (1024, 700, 0.35), (910, 512, 0.17)]
#: the protocols that show responses (verification shows the item alone)
PROTOCOLS = [protocol.name for protocol in registry().protocols() if protocol.output_count]
LONG = "\n\n".join(f"Paragraph {n}: " + "words of a long answer " * 12 for n in range(30))


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One-turn items (as VisIT-Bench, WildVision and CHIRP's are), one campaign per
    protocol."""
    path = build_campaign_bundle(tmp_path_factory.mktemp("room"), items=2, turns=1)
    assert isinstance(path, Path)
    with Bundle.open(path) as bundle:
        add_annotator(bundle, "ana")
        for protocol in registry().protocols():
            create_campaign(bundle, CampaignSpec(protocol.name, protocol.name, seed=3))
    return path


def visible_height(widget: QWidget, clip: QWidget, window: QWidget) -> int:
    """The height of ``widget`` on screen: inside ``clip`` (the page's viewport) and the
    window."""
    top_left = widget.mapTo(window, widget.rect().topLeft())
    clip_top_left = clip.mapTo(window, clip.rect().topLeft())
    shown = QRect(top_left, widget.size()) & QRect(clip_top_left, clip.size()) & window.rect()
    return max(shown.height(), 0)


@pytest.mark.parametrize("protocol", PROTOCOLS)
@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h, _ in SIZES])
def test_the_responses_get_the_room(
    qtbot: QtBot, template: Path, tmp_path: Path, protocol: str, size: tuple[int, int, float]
) -> None:
    width, height, share = size
    copy_bundle(template, tmp_path / "b.wbb")
    bundle = Bundle.open(tmp_path / "b.wbb")
    window = AnnotatorWindow(bundle, AnnotationSession(bundle, protocol, "ana"))
    qtbot.addWidget(window)
    window.resize(width, height)
    window.show()
    qtbot.waitExposed(window)
    display = window.view.display
    last = display.turn_panels[-1]
    for view in last.responses:
        view.show_text(LONG)
    qtbot.wait(50)
    assert window.view.task is not None
    display.scroll_to_judged_turn(window.view.task)
    qtbot.wait(50)
    shown = [
        visible_height(scroll.viewport(), display.page.viewport(), window)
        for scroll in last.response_scrolls
    ]
    assert min(shown) >= share * height, (shown, share * height)
    window.close()


SCALED_PROBE = """
import sys
from pathlib import Path
from PySide6.QtCore import QRect
from PySide6.QtWidgets import QApplication
from workbench.gui.annotation.annotator_window import AnnotatorWindow
from workbench.services.voting import AnnotationSession
from workbench.storage import Bundle

app = QApplication([])
bundle = Bundle.open(Path(sys.argv[1]))
window = AnnotatorWindow(bundle, AnnotationSession(bundle, "chirp-five-criteria", "ana"))
window.resize(910, 512)  # 1366x768 at 1.5x, in device-independent pixels
window.show()
display = window.view.display
for view in display.turn_panels[-1].responses:
    view.show_text(sys.argv[2])
for _ in range(50):
    app.processEvents()
clip = display.page.viewport()
clip_rect = QRect(clip.mapTo(window, clip.rect().topLeft()), clip.size())
heights = []
for scroll in display.turn_panels[-1].response_scrolls:
    viewport = scroll.viewport()
    rect = QRect(viewport.mapTo(window, viewport.rect().topLeft()), viewport.size())
    heights.append((rect & clip_rect & window.rect()).height())
print(app.devicePixelRatio(), min(heights))
window.close()
"""


def test_the_responses_keep_their_room_at_real_1_5x_scaling(template: Path, tmp_path: Path) -> None:
    """The same page in a process scaled by QT_SCALE_FACTOR=1.5 (the 910x512 case above, as
    Qt scales it): five criteria and both responses, each a few lines tall."""
    copy_bundle(template, tmp_path / "b.wbb")
    environment = {**os.environ, "QT_SCALE_FACTOR": "1.5", "QT_QPA_PLATFORM": "offscreen"}
    environment["PYTHONPATH"] = os.pathsep.join([str(PROJECT_ROOT), str(PROJECT_ROOT / "plugins")])
    done = subprocess.run(
        [sys.executable, "-c", SCALED_PROBE, str(tmp_path / "b.wbb"), LONG],
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    ratio, height = done.stdout.split()
    assert float(ratio) == 1.5
    assert int(height) >= 0.17 * 512, done.stdout
