"""A local OpenAI-compatible chat-completions server for tests and the throughput bench, with
fault injection: latency, 429 with Retry-After, 500, hangs past the client's timeout, malformed
and empty verdicts, and a refused key.

Built on asyncio streams (HTTP/1.1 with keep-alive), run on its own loop in a background thread,
on 127.0.0.1 with an ephemeral port. ``python tests/judge/fake_openai_server.py --latency 0.2``
runs it in the foreground and prints its base URL (the bench uses that, so the judge and the
server do not share one interpreter).
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import random
import sys
import threading
import time
import urllib.parse
from collections import Counter
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any

Messages = list[dict[str, Any]]
Responder = Callable[[Messages], str]


def message_text(messages: Messages, role: str) -> str:
    """The text of the first message with ``role`` (text parts joined)."""
    for message in messages:
        if message.get("role") != role:
            continue
        content = message.get("content")
        if isinstance(content, str):
            return content
        return "\n".join(p.get("text", "") for p in content or [] if p.get("type") == "text")
    return ""


def stable_share(text: str) -> float:
    """A number in [0, 1) fixed by ``text``: faults keyed on it hit the same requests on every
    attempt and every run."""
    return int(hashlib.sha256(text.encode()).hexdigest()[:8], 16) / 2**32


def default_responder(messages: Messages) -> str:
    """A judge that states its verdict in both the VisIT-Bench sentence and the five-level
    label, choosing A or B by a hash of the prompt."""
    choice = "A" if stable_share(message_text(messages, "user")) < 0.5 else "B"
    label = "A>B" if choice == "A" else "B>A"
    return (
        "Both responses address the instruction; one is more accurate.\n"
        f"Overall, Response {choice} is better.\nMy final verdict is: [[{label}]]"
    )


@dataclass
class Faults:
    """How slow the server is and what goes wrong, how often.

    ``latency_jitter`` j spreads each answer's latency uniformly over latency x (1 - j .. 1 + j),
    as real endpoints vary. ``*_every`` n counts chat requests as they arrive: the 1st,
    (n+1)-th, (2n+1)-th ... request (0: never). ``*_share`` picks requests by a hash of their
    user message, so a malformed verdict stays malformed when asked again."""

    latency: float = 0.0
    latency_jitter: float = 0.0
    rate_limit_every: int = 0
    retry_after_ms: int = 50
    server_error_every: int = 0
    hang_every: int = 0
    hang_seconds: float = 5.0
    malformed_share: float = 0.0
    empty_share: float = 0.0
    refuse_key: bool = False
    #: a 200 answer of request number n given as (content type, body) instead of a completion
    #: (a gateway's HTML page, ``{}``, an SSE stream); None answers normally
    raw_reply: Callable[[int], tuple[str, bytes] | None] | None = None
    #: a 200 answer of request number n given as (extra headers, body chunks), sent with
    #: chunked transfer encoding for as long as the chunks last (an endless iterator: an
    #: endless body); None answers normally
    stream_reply: Callable[[int], tuple[dict[str, str], AsyncIterator[bytes]] | None] | None = None
    #: the body is sent one byte every this many seconds (0: at once), after the headers
    trickle_seconds: float = 0.0
    #: put the request's Authorization header in the answer text (an echoing endpoint)
    echo_authorization: bool = False
    #: hold every chat request until this many are in flight at once, then answer them all
    #: (0: never hold); proves a client's concurrency without timing it. A held request is
    #: answered 503 after ``hold_ceiling`` seconds if the count never comes (a hang guard)
    hold_until_in_flight: int = 0
    hold_ceiling: float = 120.0
    #: answer this many chat requests, then hold every later one until the server stops
    #: (0: never): a run is known to be going, and stays going, until the test acts
    answer_then_hold: int = 0


@dataclass
class ServerStats:
    """What the server saw. ``verdict_requests`` counts the requests answered with content."""

    requests: int = 0
    statuses: Counter[int] = field(default_factory=Counter)
    in_flight: int = 0
    max_in_flight: int = 0
    answered: int = 0
    arrivals: list[tuple[float, str]] = field(default_factory=list)
    authorization: set[str] = field(default_factory=set)
    bodies: list[bytes] = field(default_factory=list)


class FakeOpenAIServer:
    """``with FakeOpenAIServer(faults=Faults(latency=0.05)) as server:`` then point a client at
    ``server.base_url``."""

    def __init__(
        self,
        responder: Responder = default_responder,
        faults: Faults | None = None,
        *,
        keep_bodies: bool = False,
    ) -> None:
        self.responder = responder
        self.faults = faults or Faults()
        self.stats = ServerStats()
        self.keep_bodies = keep_bodies
        self._loop: asyncio.AbstractEventLoop | None = None
        self._server: asyncio.base_events.Server | None = None
        self._thread: threading.Thread | None = None
        self._ready = threading.Event()
        self._handlers: set[asyncio.Task[None]] = set()
        self._random = random.Random(0)
        self._all_held: asyncio.Event | None = None
        self.port = 0

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self) -> FakeOpenAIServer:
        self._thread = threading.Thread(target=self._serve, name="fake-openai", daemon=True)
        self._thread.start()
        if not self._ready.wait(10):
            raise RuntimeError("the fake OpenAI server did not start")
        return self

    def stop(self) -> None:
        if self._loop is not None:
            self._loop.call_soon_threadsafe(self._shutdown)
        if self._thread is not None:
            self._thread.join(10)

    def __enter__(self) -> FakeOpenAIServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def reset_stats(self) -> None:
        self.stats = ServerStats()

    # --- the server's own thread ---------------------------------------------------------------

    def _serve(self) -> None:
        self._loop = asyncio.new_event_loop()
        self._loop.run_until_complete(self._open())
        self._ready.set()
        self._loop.run_forever()
        self._loop.close()

    async def _open(self) -> None:
        self._server = await asyncio.start_server(self._connection, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]

    def _shutdown(self) -> None:
        assert self._loop is not None and self._server is not None
        self._server.close()
        for task in list(self._handlers):
            task.cancel()
        self._loop.call_later(0.05, self._loop.stop)

    async def _connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._handlers.add(task)
        try:
            while True:
                request = await _read_request(reader)
                if request is None:
                    break
                status, headers, body = await self._respond(*request)
                if not isinstance(body, bytes):
                    await _write_chunked(writer, status, headers, body)
                    break  # the client stopped reading: the connection is spent
                trickle = self.faults.trickle_seconds if status == 200 else 0.0
                if trickle:  # the headers now, the body byte by byte below
                    _write_response(
                        writer, status, {**headers, "content-length": str(len(body))}, b""
                    )
                else:
                    _write_response(writer, status, headers, body)
                await writer.drain()
                for index in range(len(body) if trickle else 0):
                    await asyncio.sleep(trickle)
                    writer.write(body[index : index + 1])
                    await writer.drain()
        except (asyncio.CancelledError, ConnectionError, asyncio.IncompleteReadError):
            pass
        finally:
            self._handlers.discard(task)
            writer.close()

    async def _respond(
        self, method: str, path: str, headers: dict[str, str], body: bytes
    ) -> tuple[int, dict[str, str], bytes | AsyncIterator[bytes]]:
        if method != "POST" or not path.endswith("/chat/completions"):
            return 404, {}, _error("no such endpoint", "not_found")
        stats = self.stats
        stats.requests += 1
        number = stats.requests
        stats.in_flight += 1
        stats.max_in_flight = max(stats.max_in_flight, stats.in_flight)
        try:
            stats.authorization.add(headers.get("authorization", ""))
            if self.keep_bodies:
                stats.bodies.append(body)
            payload = json.loads(body)
            messages: Messages = payload.get("messages", [])
            stats.arrivals.append((time.monotonic(), message_text(messages, "user")))
            status, extra, reply = await self._answer(number, payload, messages, headers)
            stats.statuses[status] += 1
            return status, extra, reply
        finally:
            stats.in_flight -= 1

    async def _answer(
        self, number: int, payload: dict[str, Any], messages: Messages, headers: dict[str, str]
    ) -> tuple[int, dict[str, str], bytes | AsyncIterator[bytes]]:
        faults = self.faults
        if faults.refuse_key:
            key = headers.get("authorization", "").removeprefix("Bearer ")
            # real endpoints echo part of the key back; this one echoes all of it
            return 401, {}, _error(f"Incorrect API key provided: {key}", "invalid_api_key")
        if _hits(number, faults.rate_limit_every):
            return (
                429,
                {"retry-after-ms": str(faults.retry_after_ms)},
                _error("Rate limit reached", "rate_limit_exceeded"),
            )
        if _hits(number, faults.server_error_every):
            return 500, {}, _error("The server had an error", "server_error")
        if faults.answer_then_hold and number > faults.answer_then_hold:
            await asyncio.Event().wait()  # never set: cancelled when the server stops
        if faults.hold_until_in_flight and not await self._held_until_enough_in_flight():
            return 503, {}, _error("fewer requests in flight than the test waits for", "held")
        if _hits(number, faults.hang_every):
            await asyncio.sleep(faults.hang_seconds)
        if faults.latency:
            spread = self._random.uniform(-faults.latency_jitter, faults.latency_jitter)
            await asyncio.sleep(faults.latency * (1 + spread))
        streamed = faults.stream_reply(number) if faults.stream_reply is not None else None
        if streamed is not None:
            return 200, streamed[0], streamed[1]
        raw = faults.raw_reply(number) if faults.raw_reply is not None else None
        if raw is not None:
            content_type, raw_body = raw
            return 200, {"content-type": content_type}, raw_body
        user = message_text(messages, "user")
        share = stable_share(user)
        if share < faults.empty_share:
            text = ""
        elif share < faults.empty_share + faults.malformed_share:
            # a different text per request, so that follow-up requests about it differ too
            text = (
                "Both responses have merits and flaws; it is hard to say which one is better "
                f"(case {share:.8f})."
            )
        else:
            text = self.responder(messages)
        if faults.echo_authorization:  # as is, URL-encoded and JSON-escaped
            header = headers.get("authorization", "")
            text += (
                f"\n(authorization: {header}; url: {urllib.parse.quote(header, safe='')}; "
                f"json: {json.dumps(header)})"
            )
        self.stats.answered += 1
        prompt_tokens = sum(len(message_text(messages, role)) for role in ("system", "user")) // 4
        completion_tokens = len(text) // 4
        return (
            200,
            {},
            json.dumps(
                {
                    "id": f"chatcmpl-{number}",
                    "object": "chat.completion",
                    "created": int(time.time()),
                    "model": payload.get("model", "fake"),
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
            ).encode(),
        )

    async def _held_until_enough_in_flight(self) -> bool:
        """Wait until ``hold_until_in_flight`` requests are in flight (once reached, the gate
        stays open); False if the ceiling passed first."""
        if self._all_held is None:
            self._all_held = asyncio.Event()
        if self.stats.in_flight >= self.faults.hold_until_in_flight:
            self._all_held.set()
        try:
            await asyncio.wait_for(self._all_held.wait(), self.faults.hold_ceiling)
        except TimeoutError:
            return False
        return True


def _hits(number: int, every: int) -> bool:
    return every > 0 and (number - 1) % every == 0


def _error(message: str, code: str) -> bytes:
    return json.dumps({"error": {"message": message, "type": code, "code": code}}).encode()


_REASONS = {
    200: "OK",
    401: "Unauthorized",
    404: "Not Found",
    429: "Too Many Requests",
    500: "Internal Server Error",
    503: "Service Unavailable",
}


async def _read_request(
    reader: asyncio.StreamReader,
) -> tuple[str, str, dict[str, str], bytes] | None:
    line = await reader.readline()
    if not line:
        return None
    method, path, _version = line.decode("latin-1").split(" ", 2)
    headers: dict[str, str] = {}
    while True:
        header = await reader.readline()
        if header in (b"\r\n", b"\n", b""):
            break
        name, _, value = header.decode("latin-1").partition(":")
        headers[name.strip().lower()] = value.strip()
    length = int(headers.get("content-length", "0"))
    body = await reader.readexactly(length) if length else b""
    return method, path, headers, body


def _write_response(
    writer: asyncio.StreamWriter, status: int, headers: dict[str, str], body: bytes
) -> None:
    headers = dict(headers)
    content_type = headers.pop("content-type", "application/json")
    length = headers.pop("content-length", str(len(body)))
    lines = [
        f"HTTP/1.1 {status} {_REASONS.get(status, 'Status')}",
        f"content-type: {content_type}",
        f"content-length: {length}",
        "connection: keep-alive",
        *(f"{name}: {value}" for name, value in headers.items()),
    ]
    writer.write(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body)


async def _write_chunked(
    writer: asyncio.StreamWriter,
    status: int,
    headers: dict[str, str],
    chunks: AsyncIterator[bytes],
) -> None:
    """An answer in chunked transfer encoding, chunk by chunk until ``chunks`` ends or the
    client goes away."""
    headers = dict(headers)
    content_type = headers.pop("content-type", "application/json")
    lines = [
        f"HTTP/1.1 {status} {_REASONS.get(status, 'Status')}",
        f"content-type: {content_type}",
        "transfer-encoding: chunked",
        *(f"{name}: {value}" for name, value in headers.items()),
    ]
    writer.write(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1"))
    async for chunk in chunks:
        writer.write(f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n")
        await writer.drain()
    writer.write(b"0\r\n\r\n")
    await writer.drain()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency", type=float, default=0.0, help="seconds per answer")
    parser.add_argument("--jitter", type=float, default=0.0, help="latency spread, 0..1")
    args = parser.parse_args()
    faults = Faults(latency=args.latency, latency_jitter=args.jitter)
    server = FakeOpenAIServer(faults=faults).start()
    print(server.base_url, flush=True)
    try:
        sys.stdin.read()  # runs until its parent closes stdin
    finally:
        server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
