"""A small DevTools-protocol client for headless Chromium over ``--remote-debugging-pipe``
(standard library only: the browser reads NUL-terminated JSON commands on fd 3 and writes
replies and events on fd 4). Used to load an HTML report and ask the page what it shows."""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import subprocess
import time
from pathlib import Path
from typing import Any, cast

CHROMIUM = Path("/usr/bin/chromium")
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--remote-debugging-pipe",
)


class Chromium:
    """One headless browser; ``call`` sends a command and returns its result, keeping every
    event received meanwhile in ``events``."""

    def __init__(self, profile: Path, timeout: float = 60.0) -> None:
        self.timeout = timeout
        command_read, self._command_write = os.pipe()
        self._reply_read, reply_write = os.pipe()

        def place_pipes() -> None:
            # in the child: the browser expects the pipes as fds 3 and 4; copy them above 10
            # first so neither is already 3 or 4 (dup2 onto itself would keep close-on-exec)
            high_read = fcntl.fcntl(command_read, fcntl.F_DUPFD, 10)
            high_write = fcntl.fcntl(reply_write, fcntl.F_DUPFD, 10)
            os.dup2(high_read, 3)
            os.dup2(high_write, 4)

        self.process = subprocess.Popen(
            [str(CHROMIUM), *FLAGS, f"--user-data-dir={profile}", "about:blank"],
            close_fds=False,  # closing happens after preexec_fn and would close fds 3 and 4
            preexec_fn=place_pipes,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        os.close(command_read)
        os.close(reply_write)
        self._buffer = b""
        self._next_id = 0
        self.events: list[dict[str, Any]] = []

    def _read_message(self, deadline: float) -> dict[str, Any]:
        while b"\0" not in self._buffer:
            if time.monotonic() > deadline:
                raise TimeoutError("Chromium did not answer in time")
            chunk = os.read(self._reply_read, 1 << 16)
            if not chunk:
                raise RuntimeError("Chromium closed its DevTools pipe")
            self._buffer += chunk
        message, self._buffer = self._buffer.split(b"\0", 1)
        return cast("dict[str, Any]", json.loads(message))

    def call(self, method: str, session: str | None = None, **params: Any) -> dict[str, Any]:
        self._next_id += 1
        command: dict[str, Any] = {"id": self._next_id, "method": method, "params": params}
        if session:
            command["sessionId"] = session
        os.write(self._command_write, json.dumps(command).encode() + b"\0")
        deadline = time.monotonic() + self.timeout
        while True:
            message = self._read_message(deadline)
            if message.get("id") == self._next_id:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return cast("dict[str, Any]", message.get("result", {}))
            self.events.append(message)

    def wait_for(self, method: str) -> dict[str, Any]:
        deadline = time.monotonic() + self.timeout
        for event in self.events:
            if event.get("method") == method:
                return event
        while True:
            message = self._read_message(deadline)
            self.events.append(message)
            if message.get("method") == method:
                return message

    def close(self) -> None:
        with contextlib.suppress(RuntimeError, TimeoutError, OSError):  # it may be gone already
            self.call("Browser.close")
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        os.close(self._command_write)
        os.close(self._reply_read)


#: what the page reports about its figures: every <img class="figure"> loaded and drawn
FIGURES_SCRIPT = """JSON.stringify(Array.from(document.querySelectorAll('img.figure')).map(img => {
  const box = img.getBoundingClientRect();
  return {id: img.id, complete: img.complete, naturalWidth: img.naturalWidth,
          width: box.width, height: box.height};
}))"""


def inspect_page(html: Path, profile: Path, screenshot: Path | None = None) -> dict[str, Any]:
    """Load ``html`` 1200 px wide and return its console errors and exceptions, the URLs it
    requested, its figures' sizes and any JavaScript dialog it opened; optionally save a
    full-page PNG to ``screenshot``."""
    browser = Chromium(profile)
    try:
        target = browser.call("Target.createTarget", url="about:blank")["targetId"]
        session = browser.call("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
        for domain in ("Page", "Runtime", "Log", "Network"):
            browser.call(f"{domain}.enable", session)
        browser.call(
            "Emulation.setDeviceMetricsOverride",
            session,
            width=1200,
            height=900,
            deviceScaleFactor=1,
            mobile=False,
        )
        browser.call("Page.navigate", session, url=html.resolve().as_uri())
        browser.wait_for("Page.loadEventFired")
        figures = json.loads(
            browser.call("Runtime.evaluate", session, expression=FIGURES_SCRIPT)["result"]["value"]
        )
        if screenshot is not None:
            import base64

            shot = browser.call(
                "Page.captureScreenshot", session, format="png", captureBeyondViewport=True
            )
            screenshot.write_bytes(base64.b64decode(shot["data"]))
    finally:
        browser.close()
    events = browser.events
    console_errors = [
        event["params"]
        for event in events
        if (
            event.get("method") == "Runtime.consoleAPICalled"
            and event["params"].get("type") in ("error", "assert")
        )
        or event.get("method") == "Runtime.exceptionThrown"
        or (
            event.get("method") == "Log.entryAdded"
            and event["params"]["entry"].get("level") == "error"
        )
    ]
    requests = [
        event["params"]["request"]["url"]
        for event in events
        if event.get("method") == "Network.requestWillBeSent"
    ]
    dialogs = [event for event in events if event.get("method") == "Page.javascriptDialogOpening"]
    return {
        "console_errors": console_errors,
        "requests": requests,
        "figures": figures,
        "dialogs": dialogs,
    }
