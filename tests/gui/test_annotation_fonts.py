"""Every script renders: Chinese, Arabic and emoji in a task draw real glyphs through the
app's font and its fallback chain, not missing-glyph boxes. A script is skipped only when no
installed font covers it at all (scripts/install-system-deps.sh installs the Noto fonts)."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import (
    QColor,
    QFont,
    QFontDatabase,
    QFontMetrics,
    QImage,
    QPainter,
    QRawFont,
)
from PySide6.QtWidgets import QApplication

from workbench.gui.fonts import install_fallback_fonts

pytestmark = pytest.mark.gui

#: script: (sample text, the Debian package with its Noto font, that font's family)
SAMPLES = {
    "chinese": ("这张图片里有几个显示器", "fonts-noto-cjk", "Noto Sans CJK SC"),
    "arabic": ("كم عدد الشاشات في الصورة", "fonts-noto-core", "Noto Sans Arabic"),
    "emoji": ("😀👍🎉", "fonts-noto-color-emoji", "Noto Color Emoji"),
}
#: a code point no font has a glyph for: what a missing glyph looks like in this setup
NO_GLYPH = "\U000f0000"


def families_covering(character: str) -> list[str]:
    """The installed font families with a glyph for ``character``."""
    return [
        family
        for family in QFontDatabase.families()
        if QRawFont.fromFont(QFont(family)).supportsCharacter(ord(character))
    ]


def render(text: str, font: QFont) -> QImage:
    image = QImage(96, 96, QImage.Format.Format_RGB32)
    image.fill(QColor("white"))
    painter = QPainter(image)
    painter.setFont(font)
    painter.setPen(QColor("black"))
    painter.drawText(image.rect(), Qt.AlignmentFlag.AlignCenter, text)
    painter.end()
    return image


@pytest.mark.parametrize("script", SAMPLES)
def test_text_in_every_script_renders_without_boxes(qapp: QApplication, script: str) -> None:
    install_fallback_fonts()
    text, package, noto_family = SAMPLES[script]
    letters = [c for c in text if not c.isspace()]
    covered = [c for c in letters if families_covering(c)]
    font = QApplication.font()
    font.setPixelSize(40)
    missing, blank = render(NO_GLYPH, font), render("", font)
    for letter in covered:  # what some installed font has must reach the screen
        assert QFontMetrics(font).inFontUcs4(ord(letter)), letter  # through the fallback chain
        drawn = render(letter, font)
        assert drawn != missing, f"{letter!r} ({script}) renders as a missing-glyph box"
        assert drawn != blank, f"{letter!r} ({script}) renders as nothing"
    uncovered = [c for c in letters if c not in covered]
    if uncovered and noto_family not in QFontDatabase.families():
        pytest.skip(f"{noto_family} is not installed ({package}): no font has {uncovered}")
    assert uncovered == [], f"{noto_family} is installed but no font has {uncovered}"


def test_the_probe_sees_a_missing_glyph(qapp: QApplication) -> None:
    """The check is not blind: a code point no font has draws as the missing-glyph box."""
    font = QApplication.font()
    font.setPixelSize(40)
    assert families_covering(NO_GLYPH) == []
    assert not QFontMetrics(font).inFontUcs4(ord(NO_GLYPH))
    assert render(NO_GLYPH, font) == render("\U000f0001", font)  # the same box
    assert render("A", font) != render(NO_GLYPH, font)


def test_bundled_fonts_are_registered(qapp: QApplication, tmp_path: Path) -> None:
    """What the frozen app carries in _resources/fonts is given to Qt (a system font file
    stands in for the bundled Noto one here)."""
    system_fonts = [
        path
        for path in (
            "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
            "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc",
        )
        if Path(path).is_file()
    ]
    if not system_fonts:
        pytest.skip("no font file to stand in for a bundled one")
    folder = tmp_path / "fonts"
    folder.mkdir()
    (folder / Path(system_fonts[0]).name).write_bytes(Path(system_fonts[0]).read_bytes())
    (folder / "notes.txt").write_text("not a font")
    families = install_fallback_fonts([folder])
    assert families and all(family in QFontDatabase.families() for family in families)
