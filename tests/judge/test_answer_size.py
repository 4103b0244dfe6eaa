"""Judge answers are read through a byte cap, as sent and as inflated: a gzip bomb or an
endless chunked body fails its request ("answer too large"), unretried, in bounded memory, and
an ordinary compressed answer still reads."""

from __future__ import annotations

import asyncio
import json
import tracemalloc
import zlib
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

import workbench.plugins
from tests.judge.fake_openai_server import FakeOpenAIServer, Faults
from tests.judge.helpers import FAKE_KEY, build_bundle, registry_with_all_templates
from workbench.cli import main
from workbench.judge.answer_limits import MAX_ANSWER_BYTES
from workbench.judge.client import ChatReply, JudgeClient, RequestFailed, RetryPolicy
from workbench.judge.secrets import Secret
from workbench.services.judging.runner import prepare_runtime

MESSAGES = [{"role": "system", "content": "judge"}, {"role": "user", "content": "A or B?"}]
RETRY = RetryPolicy(max_attempts=3, base_delay=0.01, max_delay=0.05, timeout=60.0)
#: what the bomb inflates to: 32 times the cap, from about 256 KB on the wire
BOMB_INFLATED = 256 * 1024 * 1024


def gzip_of_zeros(size: int) -> bytes:
    """``size`` zero bytes gzip-compressed, made a megabyte at a time."""
    packer = zlib.compressobj(9, zlib.DEFLATED, zlib.MAX_WBITS | 16)
    block = bytes(1024 * 1024)
    parts = [packer.compress(block) for _ in range(size // len(block))]
    parts.append(packer.flush())
    return b"".join(parts)


def gzip_of(data: bytes) -> bytes:
    packer = zlib.compressobj(9, zlib.DEFLATED, zlib.MAX_WBITS | 16)
    return packer.compress(data) + packer.flush()


async def in_chunks(data: bytes, size: int = 64 * 1024) -> AsyncIterator[bytes]:
    for start in range(0, len(data), size):
        yield data[start : start + size]


async def endless() -> AsyncIterator[bytes]:
    block = b'{"choices": [' + b" " * (64 * 1024)
    while True:
        yield block
        await asyncio.sleep(0)


def ask(server: FakeOpenAIServer) -> ChatReply:
    async def run() -> ChatReply:
        client = JudgeClient(
            base_url=server.base_url, api_key=Secret(FAKE_KEY), model="judge", retry=RETRY
        )
        try:
            return await client.complete(
                MESSAGES,
                temperature=0.0,
                max_tokens=50,
                estimated_prompt_tokens=10,
                estimated_completion_tokens=10,
            )
        finally:
            await client.aclose()

    return asyncio.run(run())


def test_a_gzip_bomb_fails_its_request_at_the_cap_in_bounded_memory() -> None:
    bomb = gzip_of_zeros(BOMB_INFLATED)
    assert len(bomb) < MAX_ANSWER_BYTES  # small on the wire: only the inflated size is capped
    faults = Faults(stream_reply=lambda _n: ({"content-encoding": "gzip"}, in_chunks(bomb)))
    prepare_runtime()  # the HTTP stack's import is not the answer's memory
    with FakeOpenAIServer(faults=faults) as server:
        tracemalloc.start()
        try:
            with pytest.raises(RequestFailed) as failed:
                ask(server)
            _now, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
        assert server.stats.requests == 1  # not asked again
    assert failed.value.reason == "answer too large"
    assert "inflated" in str(failed.value) and server.base_url in str(failed.value)
    # a few times the cap at most, where reading it whole takes the 256 MiB it inflates to
    assert peak < 4 * MAX_ANSWER_BYTES


def test_an_endless_chunked_body_stops_at_the_cap() -> None:
    faults = Faults(stream_reply=lambda _n: ({}, endless()))
    with FakeOpenAIServer(faults=faults) as server:
        with pytest.raises(RequestFailed) as failed:
            ask(server)
        assert server.stats.requests == 1
    assert failed.value.reason == "answer too large"
    assert "as sent" in str(failed.value)


def test_an_ordinary_answer_compressed_or_not_still_reads() -> None:
    answer = json.dumps(
        {"choices": [{"message": {"role": "assistant", "content": "[[A>B]]"}}]}
    ).encode()
    for headers, body in (({"content-encoding": "gzip"}, gzip_of(answer)), ({}, answer)):

        def chunked_reply(
            _n: int, h: dict[str, str] = headers, b: bytes = body
        ) -> tuple[dict[str, str], AsyncIterator[bytes]]:
            return h, in_chunks(b, 7)

        faults = Faults(stream_reply=chunked_reply)
        with FakeOpenAIServer(faults=faults) as server:
            reply = ask(server)
        assert reply.text == "[[A>B]]"


def test_a_judge_run_against_a_bomb_reports_it_and_exits_1(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    registry = registry_with_all_templates()
    monkeypatch.setattr(workbench.plugins, "registry", lambda: registry)
    monkeypatch.setenv("OPENAI_API_KEY", FAKE_KEY)
    bundle = build_bundle(tmp_path, 1)
    bomb = gzip_of_zeros(64 * 1024 * 1024)
    faults = Faults(stream_reply=lambda _n: ({"content-encoding": "gzip"}, in_chunks(bomb)))
    with FakeOpenAIServer(faults=faults) as server:
        command = ["judge", str(bundle), "--base-url", server.base_url, "--model", "m"]
        assert main([*command, "--template", "visit-bench-pairwise", "--json"]) == 1
    summary = json.loads(capsys.readouterr().out)
    assert summary["failure_reasons"] == {"answer too large": summary["failed"]}
    assert summary["done"] == 0
