"""The simulated judge served over HTTP as an OpenAI-compatible chat-completions endpoint on
loopback, so a judge run against it takes exactly the path a run against a real local server
takes (client, retries, parsing, storage). ``workbench judge --simulated`` starts one for the
run; ``workbench simulated-judge`` serves one in the foreground for the app's judge dialog."""

from __future__ import annotations

import json
import logging
import threading
import time
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from workbench.judge.simulated import SIMULATED_MODEL, NotSimulable, SimulatedResponder

log = logging.getLogger(__name__)

#: a request body larger than this is refused (a judge request with images is a few MB)
MAX_REQUEST_BYTES = 64 * 1024 * 1024


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            str(part.get("text", ""))
            for part in content
            if isinstance(part, dict) and part.get("type") == "text"
        )
    return ""


def _message(messages: list[Any], role: str) -> str:
    for message in messages:
        if isinstance(message, dict) and message.get("role") == role:
            return _text(message.get("content"))
    return ""


def _completion(text: str, prompt_chars: int) -> dict[str, Any]:
    # token counts as a rough four characters a token: the run's cost lines need numbers
    prompt_tokens, completion_tokens = max(1, prompt_chars // 4), max(1, len(text) // 4)
    return {
        "id": f"simulated-{time.time_ns()}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": SIMULATED_MODEL,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": text},
                "finish_reason": "stop",
            }
        ],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        },
    }


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as the client expects
    server: SimulatedJudgeServer

    def log_message(self, format: str, *args: Any) -> None:
        log.debug("simulated judge: " + format, *args)

    def _send(self, status: HTTPStatus, document: dict[str, Any]) -> None:
        body = json.dumps(document).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _error(self, status: HTTPStatus, message: str) -> None:
        self._send(status, {"error": {"message": message, "type": "invalid_request_error"}})

    def do_GET(self) -> None:
        if self.path.rstrip("/").endswith("/models"):
            self._send(
                HTTPStatus.OK,
                {"object": "list", "data": [{"id": SIMULATED_MODEL, "object": "model"}]},
            )
        else:
            self._error(HTTPStatus.NOT_FOUND, f"no such endpoint: {self.path}")

    def do_POST(self) -> None:
        if not self.path.rstrip("/").endswith("/chat/completions"):
            self._error(HTTPStatus.NOT_FOUND, f"no such endpoint: {self.path}")
            return
        length = int(self.headers.get("Content-Length") or 0)
        if length > MAX_REQUEST_BYTES:
            self.close_connection = True
            self._error(HTTPStatus.REQUEST_ENTITY_TOO_LARGE, "the request is too large")
            return
        try:
            request = json.loads(self.rfile.read(length) or b"{}")
            messages = request.get("messages") if isinstance(request, dict) else None
            if not isinstance(messages, list):
                raise ValueError("the request has no messages")
        except (ValueError, UnicodeDecodeError) as error:
            self._error(HTTPStatus.BAD_REQUEST, f"not a chat request: {error}")
            return
        system, user = _message(messages, "system"), _message(messages, "user")
        try:
            text = self.server.responder.answer(system, user)
        except NotSimulable as error:
            self._error(HTTPStatus.BAD_REQUEST, str(error))
            return
        self.server.answered += 1
        self._send(HTTPStatus.OK, _completion(text, len(system) + len(user)))


class SimulatedJudgeServer(ThreadingHTTPServer):
    """The endpoint, bound to 127.0.0.1 (``port`` 0: a free one). Use as a context manager to
    serve on a background thread, or call :meth:`serve_forever` in the foreground."""

    daemon_threads = True

    def __init__(self, responder: SimulatedResponder, port: int = 0) -> None:
        super().__init__(("127.0.0.1", port), _Handler)
        self.responder = responder
        self.answered = 0
        self._thread: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        host, port = self.server_address[:2]
        return f"http://{host!s}:{port}/v1"

    def __enter__(self) -> SimulatedJudgeServer:
        self._thread = threading.Thread(
            target=self.serve_forever, name="simulated-judge", daemon=True
        )
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.shutdown()
        self.server_close()
        if self._thread is not None:
            self._thread.join()
