"""Images are decoded with an allowlist of raster formats, so PostScript named ``.png`` never
reaches Ghostscript: not at import (as a file or as base64), not in the viewer, not in a judge
request. A fake ``gs`` first on PATH records any start; the runs happen in fresh processes so
Pillow's cached "is Ghostscript installed" answer cannot hide a start."""

from __future__ import annotations

import base64
import io
import os
import subprocess
import sys
from pathlib import Path

import pytest
from PIL import Image

from tests.importers.canonical_helpers import item_line, write_jsonl
from workbench.importers.images import ImageProblemError, prepare_image

WORKBENCH_COMMAND = Path(sys.executable).with_name("workbench")


def eps_bytes() -> bytes:
    """A real EPS file (Pillow writes EPS without Ghostscript; reading it needs Ghostscript)."""
    buffer = io.BytesIO()
    Image.new("RGB", (8, 8), "red").save(buffer, "EPS")
    return buffer.getvalue()


@pytest.fixture
def gs_watch(tmp_path: Path) -> tuple[dict[str, str], Path]:
    """An environment whose PATH starts with a ``gs`` that logs every start, and that log."""
    folder = tmp_path / "bin"
    folder.mkdir()
    log = tmp_path / "gs-started.log"
    fake = folder / "gs"
    fake.write_text(f'#!/bin/sh\necho "$@" >> {log}\nexit 0\n')
    fake.chmod(0o755)
    env = {**os.environ, "PATH": f"{folder}{os.pathsep}{os.environ['PATH']}"}
    env["QT_QPA_PLATFORM"] = "offscreen"
    return env, log


def run_python(code: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120
    )


def test_the_watch_notices_pillow_starting_ghostscript(
    gs_watch: tuple[dict[str, str], Path], tmp_path: Path
) -> None:
    env, log = gs_watch
    payload = tmp_path / "evil.png"
    payload.write_bytes(eps_bytes())
    run_python(f"from PIL import Image\nImage.open({str(payload)!r}).load()", env)
    assert log.exists()


@pytest.mark.parametrize("as_base64", [False, True])
def test_eps_named_png_is_refused_at_import_and_starts_nothing(
    gs_watch: tuple[dict[str, str], Path], tmp_path: Path, as_base64: bool
) -> None:
    env, log = gs_watch
    if as_base64:
        image = {"base64": base64.b64encode(eps_bytes()).decode()}
    else:
        image = {"path": "images/evil.png"}
    source = write_jsonl(tmp_path / "src", [item_line("q1", images=[image], captions=[])])
    (source.parent / "images" / "evil.png").write_bytes(eps_bytes())
    bundle = tmp_path / "b.wbb"
    done = subprocess.run(
        [str(WORKBENCH_COMMAND), "import", str(source), "--format", "jsonl", "--into", str(bundle)],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 1
    assert "is PostScript/EPS, not an image" in done.stderr
    assert "Traceback" not in done.stderr
    assert not bundle.exists()
    assert not log.exists(), "an external program was started"


def test_eps_stored_by_an_older_version_is_not_shown_or_sent(
    gs_watch: tuple[dict[str, str], Path], tmp_path: Path
) -> None:
    """A bundle imported before the allowlist may hold EPS bytes: the viewer shows a clear
    placeholder and the judge refuses to send them, without starting Ghostscript."""
    env, log = gs_watch
    payload = tmp_path / "evil.png"
    payload.write_bytes(eps_bytes())
    code = f"""
from pathlib import Path
from workbench.gui.image_loader import decode_image
from workbench.importers.images import ImageProblemError
from workbench.judge.images import data_url
data = Path({str(payload)!r}).read_bytes()
print(decode_image(data).error)
try:
    data_url(data, 512)
except ImageProblemError:
    print("judge refused")
"""
    done = run_python(code, env)
    assert done.returncode == 0, done.stderr
    assert "cannot show image: file is PostScript/EPS" in done.stdout
    assert "judge refused" in done.stdout
    assert not log.exists(), "an external program was started"


@pytest.mark.parametrize(
    ("data", "kind"),
    [(b"%PDF-1.7\n1 0 obj\n", "PDF"), (b"\xc5\xd0\xd3\xc6" + bytes(40), "EPS")],
)
def test_documents_given_as_images_are_named_in_the_refusal(data: bytes, kind: str) -> None:
    with pytest.raises(ImageProblemError, match=f"file is {kind}, not an image"):
        prepare_image(data)


@pytest.mark.parametrize("fmt", ["PNG", "JPEG", "WEBP", "GIF", "BMP", "TIFF"])
def test_every_allowed_raster_format_still_imports(fmt: str) -> None:
    buffer = io.BytesIO()
    Image.new("RGB", (4, 3), "blue").save(buffer, fmt)
    prepared = prepare_image(buffer.getvalue())
    assert (prepared.width, prepared.height) == (4, 3)
