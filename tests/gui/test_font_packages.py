"""The font packages the install docs and the system-dependency script name are the ones that
render Chinese, Arabic and emoji: both name the same packages, each script's sample is covered
by a font file of those packages alone (not by some other font that happens to be installed),
and a label mixing the three scripts draws no missing-glyph box. Skipped, saying which, only
when a package is not installed (on a fresh machine scripts/install-system-deps.sh installs
them)."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QFont, QFontMetrics, QImage, QRawFont
from PySide6.QtWidgets import QApplication, QLabel

from workbench.gui.form_compiler import PROJECT_ROOT

pytestmark = pytest.mark.gui

#: script: (sample, the package whose fonts must cover it)
SAMPLES = {
    "chinese": ("这张图片里有几个显示器", "fonts-noto-cjk"),
    "arabic": ("كم عدد الشاشات في الصورة", "fonts-noto-core"),
    "emoji": ("😀👍🎉", "fonts-noto-color-emoji"),
}
FONT_PACKAGES = {package for _, package in SAMPLES.values()}
FONT_FILE = re.compile(r"\.(ttf|otf|ttc)$", re.IGNORECASE)
#: a code point no font has a glyph for: drawn as the missing-glyph box
NO_GLYPH = "\U000f0000"


def named_packages(text: str) -> set[str]:
    return set(re.findall(r"\bfonts-[a-z0-9-]+", text))


def test_the_docs_and_the_script_name_the_same_font_packages() -> None:
    script = (PROJECT_ROOT / "scripts" / "install-system-deps.sh").read_text(encoding="utf-8")
    docs = (PROJECT_ROOT / "docs" / "install.md").read_text(encoding="utf-8")
    assert named_packages(script) >= FONT_PACKAGES
    assert named_packages(docs) >= FONT_PACKAGES
    # the docs' command installs them (not only a mention in prose)
    commands = re.findall(r"sudo apt-get install[^`]*", docs)
    assert any(named_packages(command) >= FONT_PACKAGES for command in commands), commands


def package_fonts(package: str) -> list[Path]:
    """The font files ``package`` installed; skips the test when it is not installed."""
    if shutil.which("dpkg-query") is None:
        pytest.skip("not a Debian-like system: cannot tell which package a font comes from")
    status = subprocess.run(
        ["dpkg-query", "-W", "-f=${Status}", package], capture_output=True, text=True
    )
    if "install ok installed" not in status.stdout:
        pytest.skip(f"{package} is not installed (scripts/install-system-deps.sh installs it)")
    listed = subprocess.run(["dpkg", "-L", package], capture_output=True, text=True, check=True)
    return [Path(line) for line in listed.stdout.splitlines() if FONT_FILE.search(line)]


@pytest.mark.parametrize("script", SAMPLES)
def test_the_named_package_alone_covers_the_script(qapp: QApplication, script: str) -> None:
    text, package = SAMPLES[script]
    letters = {c for c in text if not c.isspace()}
    covering = [
        path
        for path in package_fonts(package)
        if all(QRawFont(str(path), 24).supportsCharacter(ord(c)) for c in letters)
    ]
    assert covering, f"no font file of {package} has every letter of {text!r}"


def render(text: str, font: QFont) -> QImage:
    """``text`` in a label of a fixed size (so two renders compare pixel by pixel)."""
    label = QLabel(text)
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setFont(font)
    label.setAlignment(Qt.AlignmentFlag.AlignCenter)
    label.setFixedSize(64, 64)
    return label.grab().toImage()


def test_a_label_mixing_the_scripts_draws_no_missing_glyph(qapp: QApplication) -> None:
    for _, package in SAMPLES.values():
        package_fonts(package)  # skips, naming the package, when one is absent
    text = " ".join(sample for sample, _ in SAMPLES.values())
    label = QLabel(text)
    font = label.font()
    font.setPixelSize(32)
    metrics = QFontMetrics(font)
    for letter in text.replace(" ", ""):  # through the label font's fallback chain
        assert metrics.inFontUcs4(ord(letter)), f"{letter!r} has no glyph"
    # each letter in a label differs from the box a letter without a glyph draws, and from
    # an empty label
    box, blank = render(NO_GLYPH, font), render("", font)
    assert box != blank  # the probe sees a box
    for letter in {c for c in text if not c.isspace()}:
        drawn = render(letter, font)
        assert drawn != box, f"{letter!r} draws as a missing-glyph box"
        assert drawn != blank, f"{letter!r} draws nothing"
